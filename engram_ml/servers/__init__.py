"""The reference policy server (docs/remote-policy.md): websocket framing, per-connection protocol,
and the mem0-tiny adapter. `python -m engram_ml serve --help`."""
