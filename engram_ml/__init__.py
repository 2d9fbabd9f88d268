"""Engram's Python side: the reference policy server (engram_ml.servers), the mem0-tiny training code
(engram_ml.mem0_tiny) and the memory rule both share with the TypeScript runtime (engram_ml.memory).

Commands: `python -m engram_ml --help`.
"""
