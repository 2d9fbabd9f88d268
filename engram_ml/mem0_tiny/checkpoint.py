"""The checkpoint file: tensors in state dicts, everything else (sizes, normalization stats, vocabulary,
training log) as one JSON text, so `torch.load(..., weights_only=True)` reads it back and a checkpoint
file can never carry code. (torch 1.13, Debian 12's, cannot unpickle a Python float with weights_only:
the plain-data part therefore travels as JSON, not as pickled dicts.)

On disk: {"format": FORMAT, "meta": "<json>", "<name>": state dict, ...}; loaded: the JSON's keys plus
the state dicts, one dict, as the training code reads it (ckpt["dims"], ckpt["state_dict"], ...).
"""

import json
import os
from typing import Any, Dict, Mapping

import torch

FORMAT = "engram_ml.mem0_tiny checkpoint 1"


def save_checkpoint(path: str, meta: Mapping[str, Any], **state_dicts: Mapping[str, torch.Tensor]) -> None:
    """Writes `meta` (JSON-serializable plain data) and the named state dicts (e.g. state_dict=...) to `path`."""
    clash = sorted(set(meta) & (set(state_dicts) | {"format", "meta"}))
    if clash:
        raise ValueError(f"{path}: checkpoint meta keys {clash} clash with the state dicts or the file's own keys")
    torch.save({"format": FORMAT, "meta": json.dumps(meta), **state_dicts}, path)


def load_checkpoint(path: str) -> Dict[str, Any]:
    """Reads a checkpoint save_checkpoint wrote (weights_only: nothing in it runs); its meta and state dicts."""
    if not os.path.isfile(path):
        raise ValueError(f"{path}: no such checkpoint file")
    try:
        raw = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as err:  # noqa: BLE001 - a foreign or older file: say what the reader expects
        raise ValueError(
            f"{path}: not a {FORMAT} file (weights-only load failed: {type(err).__name__}: "
            f"{' '.join(str(err).split())[:200]}). Checkpoints from before engram_ml stored plain "
            "pickles; rebuild one from its bundle with `python -m engram_ml import-bundle`"
        ) from None
    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        what = raw.get("format") if isinstance(raw, dict) else type(raw).__name__
        raise ValueError(f"{path}: checkpoint format {what!r}, expected {FORMAT!r}")
    out = {k: v for k, v in raw.items() if k not in ("format", "meta")}
    return {**json.loads(raw["meta"]), **out}
