"""`python -m engram_ml <command> [flags]`: Engram's Python side from any directory.

Each command is one module's `main(argv, prog)`, imported only when it runs, so `--help` needs no torch.
"""

import argparse
import importlib
import sys
from typing import Optional, Sequence

# command -> (module, one line for the command list)
COMMANDS = {
    "serve": (
        "engram_ml.servers.policy_server",
        "the reference policy server: mem0 ops and openpi infer over a websocket (docs/remote-policy.md)",
    ),
    "train": (
        "engram_ml.mem0_tiny.train",
        "train mem0-tiny: perception | policy | probe (the shipped recipe), end-to-end (the earlier one); planner",
    ),
    "export": (
        "engram_ml.mem0_tiny.export",
        "export a training checkpoint to a runtime bundle (four ONNX, policy.yaml, parity.json)",
    ),
    "evaluate-offline": (
        "engram_ml.mem0_tiny.evaluate_offline",
        "a checkpoint's chunk error and classifier precision/recall on converted episodes",
    ),
    "import-bundle": (
        "engram_ml.mem0_tiny.import_bundle",
        "rebuild a training checkpoint from a shipped perception-first bundle (checked on parity.json)",
    ),
}


def _parser() -> argparse.ArgumentParser:
    lines = "\n".join(f"  {name:<18}{summary}" for name, (_, summary) in COMMANDS.items())
    return argparse.ArgumentParser(
        prog="python -m engram_ml",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Engram's Python side: the reference policy server and mem0-tiny training.",
        epilog=f"commands:\n{lines}\n\n`python -m engram_ml COMMAND --help` lists a command's flags.",
        usage="python -m engram_ml [-h] COMMAND [flags]",
    )


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Runs one command; exit status 2 (with the command list) for a missing or unknown command."""
    args = list(sys.argv[1:] if argv is None else argv)
    parser = _parser()
    if not args or args[0] in ("-h", "--help"):
        parser.print_help()
        return 0 if args else 2
    name, rest = args[0], args[1:]
    if name not in COMMANDS:
        parser.error(f"unknown command {name!r}: expected one of {', '.join(COMMANDS)}")
    module = importlib.import_module(COMMANDS[name][0])
    module.main(rest, prog=f"python -m engram_ml {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
