"""Memory strategies, as src/memory/ implements them for the runtime (same test vectors)."""

from engram_ml.memory.mem0 import Mem0Inputs, Mem0Memory

__all__ = ["Mem0Inputs", "Mem0Memory"]
