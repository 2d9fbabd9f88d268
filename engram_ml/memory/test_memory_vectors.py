"""Replays the FrameSamp, TokenDrop and no-history cases of test/vectors/memory.json (the vectors
src/memory/ passes too) through the Python readers: the strategies the policy server drives tick by tick
(engram_ml.memory) and the training data's per-frame FrameSamp indices (engram_ml.mem0_tiny.data).
Mem-0's cases: test_mem0_vectors.py.
"""

import json
from pathlib import Path
from typing import Any, Dict, List

import numpy as np
import pytest
import torch

from engram_ml.mem0_tiny.data import FrameSampFrames
from engram_ml.memory import FrameSampMemory, TokenDropMemory, frame_sampling_indices

VECTORS = Path(__file__).resolve().parents[2] / "test" / "vectors" / "memory.json"
DOC = json.loads(VECTORS.read_text())


def _cases(kind: str) -> List[Dict[str, Any]]:
    return [c for c in DOC["cases"] if c["strategy"]["kind"] == kind]


def _view(levels: List[float], grid: int) -> np.ndarray:
    """grid x grid patches, each 2x2 pixels of 3 channels at its level: [H, W, C]."""
    a = np.asarray(levels, dtype=np.float32).reshape(grid, grid)
    return np.repeat(np.repeat(a, 2, axis=0), 2, axis=1)[:, :, None].repeat(3, axis=2)


def test_every_strategy_kind_has_cases() -> None:
    for kind in ("framesamp", "tokendrop", "none"):
        assert _cases(kind), kind


@pytest.mark.parametrize("row", DOC["frame_sampling"], ids=lambda r: f"t={r['t']},n={r['frames']}")
def test_frame_sampling_matches_the_table(row: Dict[str, Any]) -> None:
    assert frame_sampling_indices(row["t"], row["frames"]) == row["indices"]


def test_frame_sampling_is_numpy_linspace_truncated() -> None:
    for t in range(0, 1400, 7):
        for n in (1, 2, 5, 32):
            want = list(range(t + 1)) if t < n else np.linspace(0, t, n, dtype=np.int32).tolist()
            assert frame_sampling_indices(t, n) == want, (t, n)


@pytest.mark.parametrize("case", _cases("framesamp"), ids=lambda c: c["name"])
def test_framesamp_memory_replays_the_case(case: Dict[str, Any]) -> None:
    memory: FrameSampMemory[int] = FrameSampMemory(case["strategy"]["frames"])
    got = []
    for op in case["ops"]:
        if op["op"] == "write":
            got.append({"step": op["step"], "anchor": None, "window": memory.write(op["step"])})
        elif op["op"] == "reset":
            memory.clear()
    assert got == case["expected"]


@pytest.mark.parametrize("case", _cases("framesamp"), ids=lambda c: c["name"])
def test_training_framesamp_frames_replay_the_case(case: Dict[str, Any]) -> None:
    """Frames are the writes in order; a reset before a write starts a new history there."""
    steps: List[int] = []
    history_start: List[int] = []
    new_history = True
    for op in case["ops"]:
        if op["op"] == "reset":
            new_history = True
        elif op["op"] == "write":
            history_start.append(len(steps) if new_history else history_start[-1])
            steps.append(op["step"])
            new_history = False
    frames = FrameSampFrames(torch.tensor(history_start), case["strategy"]["frames"])
    window, mask = frames.indices(torch.arange(len(steps)))
    got = [
        {"step": s, "anchor": None, "window": [steps[int(f)] for f, m in zip(window[i], mask[i]) if m > 0]}
        for i, s in enumerate(steps)
    ]
    assert got == case["expected"]


@pytest.mark.parametrize("case", _cases("tokendrop"), ids=lambda c: c["name"])
def test_tokendrop_memory_replays_the_case(case: Dict[str, Any]) -> None:
    s = case["strategy"]
    memory = TokenDropMemory(s["budget"], s["stride"], s["kept"], s["grid"])
    got = []
    steps: List[int] = []
    for op in case["ops"]:
        if op["op"] == "write":
            steps.append(op["step"])
            tokens = memory.write(np.stack([_view(v, s["grid"]) for v in op["views"]]))
            got.append({"step": op["step"], "tokens": [[steps[h], v, p] for h, v, p in tokens]})
        elif op["op"] == "reset":
            memory.clear()
            steps = []
    assert got == case["expected"]


def test_tokendrop_refuses_a_view_the_grid_does_not_divide() -> None:
    with pytest.raises(ValueError, match="does not divide into a 8x8 grid"):
        TokenDropMemory().write(np.zeros((1, 30, 32, 3), dtype=np.float32))
