"""Replays every case of test/vectors/memory.json (the vectors src/memory/ passes too) through the Python
readers of the Mem-0 rule: Mem0Memory itself (what the policy server's adapter drives tick by tick) and the
training data's per-frame memory indices (engram_ml.mem0_tiny.data.FrameMemory, with the ablation switches
applied as the training losses apply them). The other kinds' cases: test_memory_vectors.py.
"""

import json
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest
import torch

from engram_ml.mem0_tiny.data import FrameMemory
from engram_ml.memory.mem0 import Mem0Memory

VECTORS = Path(__file__).resolve().parents[2] / "test" / "vectors" / "memory.json"
CASES: List[Dict[str, Any]] = [c for c in json.loads(VECTORS.read_text())["cases"] if c["strategy"]["kind"] == "mem0"]
IMPLEMENTED = ("mem0",)


def _ids(case: Dict[str, Any]) -> str:
    return case["name"]


def _needs_implemented(case: Dict[str, Any]) -> None:
    kind = case["strategy"]["kind"]
    if kind not in IMPLEMENTED:
        pytest.skip(f"{case['name']!r}: strategy kind {kind!r} has no Python implementation (have {IMPLEMENTED})")


def _expected(case: Dict[str, Any]) -> List[Dict[str, Any]]:
    """The fields this rule defines (a later format may add others beside them)."""
    return [{"step": e["step"], "anchor": e["anchor"], "window": e["window"]} for e in case["expected"]]


def _clears(op: Dict[str, Any]) -> bool:
    if op["op"] == "write":
        return False
    if op["op"] == "subtask_end" or (op["op"] == "reset" and op.get("scope") in ("episode", "session")):
        return True
    raise ValueError(f"{VECTORS}: unknown op {op!r}")


def test_the_vectors_file_has_cases_of_every_ablation() -> None:
    strategies = [c["strategy"] for c in CASES if c["strategy"]["kind"] == "mem0"]
    assert any(not s["anchor"] for s in strategies) and any(not s["sliding"] for s in strategies)
    assert any(s["window"] == 1 for s in strategies)


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_mem0_memory_replays_the_case(case: Dict[str, Any]) -> None:
    _needs_implemented(case)
    s = case["strategy"]
    memory: Mem0Memory[int] = Mem0Memory(s["window"], anchor=s["anchor"], sliding=s["sliding"])
    got = []
    for op in case["ops"]:
        if _clears(op):
            memory.clear()
            continue
        inputs = memory.write(op["step"])
        assert inputs.current == op["step"]
        got.append({"step": op["step"], "anchor": inputs.anchor, "window": inputs.window})
    assert got == _expected(case)


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_training_frame_memory_replays_the_case(case: Dict[str, Any]) -> None:
    """Frames are the writes in order; a clear before a write makes that frame a segment start."""
    _needs_implemented(case)
    s = case["strategy"]
    steps: List[int] = []
    seg_start: List[int] = []
    cleared = True
    for op in case["ops"]:
        if _clears(op):
            cleared = True
            continue
        seg_start.append(len(steps) if cleared or not steps else seg_start[-1])
        steps.append(op["step"])
        cleared = False
    memory = FrameMemory(torch.tensor(seg_start), s["window"])
    anchor, window, mask = memory.indices(torch.arange(len(steps)))
    got = []
    for i, step in enumerate(steps):
        # The training losses mask the anchor (amask 0) and the window (wmask 0) for the ablations.
        a: Optional[int] = steps[int(anchor[i])] if s["anchor"] else None
        w = [steps[int(f)] for f, m in zip(window[i], mask[i]) if m > 0] if s["sliding"] else []
        got.append({"step": step, "anchor": a, "window": w})
    assert got == _expected(case)


def test_frame_memory_refuses_segments_out_of_order() -> None:
    with pytest.raises(ValueError, match="frame 2: segment start 0, expected 2"):
        FrameMemory(torch.tensor([0, 1, 0]), 2)


@pytest.mark.parametrize("window", [0, -1, 1.5, True])
def test_mem0_memory_refuses_a_window_that_is_not_a_positive_integer(window: Any) -> None:
    with pytest.raises(ValueError, match="expected an integer K >= 1"):
        Mem0Memory(window)
