"""pytest smoke tests of the training commands on tiny synthetic data (a fraction of a second of training
each): every stage runs end to end through `python -m engram_ml`'s own entry points, writes a checkpoint
the weights-only loader reads back, warm-starts from it, and `export` turns the result into a bundle.
"""

import json
from pathlib import Path

import numpy as np
import pytest

from engram_ml.mem0_tiny import export, train
from engram_ml.mem0_tiny.checkpoint import load_checkpoint

VOCAB = {"max_length": 4, "pad_id": 0, "size": 8, "vocabulary": {"put the block back": [1, 2, 3], "press": [4]}}
H, W, C, S = 24, 32, 3, 16


def _collect_ts_episodes(folder: Path, frames: list) -> None:
    """collect.ts's layout: <stem>.json + images/state/label/aux .npy, and vocabulary.json."""
    folder.mkdir(parents=True)
    (folder / "vocabulary.json").write_text(json.dumps(VOCAB))
    rng = np.random.default_rng(0)
    for i, t in enumerate(frames):
        stem = folder / f"ep{i}"
        meta = {
            "task": "put-back-block",
            "tmc": "M1",
            "instruction": "put the block back",
            "seed": i,
            "outcome": "success",
            "frames": t,
            "cameras": ["head", "left_wrist", "right_wrist"],
            "width": W,
            "height": H,
        }
        stem.with_suffix(".json").write_text(json.dumps(meta))
        np.save(f"{stem}.images.npy", rng.integers(0, 255, (t, C, H, W, 3), dtype=np.uint8))
        np.save(f"{stem}.state.npy", rng.standard_normal((t, S)).astype(np.float32))
        np.save(f"{stem}.label.npy", rng.standard_normal((t, 4, S)).astype(np.float32) * 0.1)
        aux = np.concatenate([rng.uniform(0.3, 0.7, (t, 3)), np.zeros((t, 1)), np.arange(t)[:, None] % 4], axis=1)
        np.save(f"{stem}.aux.npy", aux.astype(np.float32))


def _hdf5_to_npy_episodes(folder: Path, frames: list) -> None:
    """hdf5ToNpy.ts's layout: <stem>.json + images/state/action .npy, and vocabulary.json."""
    folder.mkdir(parents=True)
    (folder / "vocabulary.json").write_text(json.dumps(VOCAB))
    rng = np.random.default_rng(1)
    for i, t in enumerate(frames):
        stem = folder / f"ep{i}"
        segments = [
            {"text": "press", "start": 0, "end": t // 2},
            {"text": "put the block back", "start": t // 2 + 1, "end": t - 1},
        ]
        meta = {
            "task": "press-button",
            "tmc": "Mn",
            "instruction": "press",
            "seed": i,
            "outcome": "success",
            "frames": t,
            "segments": segments,
        }
        stem.with_suffix(".json").write_text(json.dumps(meta))
        np.save(f"{stem}.images.npy", rng.integers(0, 255, (t, C, H, W, 3), dtype=np.uint8))
        np.save(f"{stem}.state.npy", rng.standard_normal((t, S)).astype(np.float32))
        np.save(f"{stem}.action.npy", rng.standard_normal((t, S)).astype(np.float32))


def test_the_canonical_recipe_runs_perception_policy_warm_start_and_export(tmp_path: Path) -> None:
    pytest.importorskip("onnx", reason="export writes ONNX (apt: python3-onnx)")
    data = tmp_path / "it0"
    _collect_ts_episodes(data, [9, 12])
    fast = ["--minutes", "0.005", "--batch", "4"]
    train.main(["perception", "--data", str(data), "--out", str(tmp_path / "p.pt"), *fast])
    perception = load_checkpoint(str(tmp_path / "p.pt"))
    assert perception["dims"]["encoder"] == "perception" and perception["train"]["frames"] == 21
    assert perception["train"]["steps"] >= 1
    policy = ["policy", "--data", str(data), "--perception", str(tmp_path / "p.pt"), "--window", "3", *fast]
    train.main([*policy, "--out", str(tmp_path / "it0.pt")])
    train.main([*policy, "--out", str(tmp_path / "it1.pt"), "--init", str(tmp_path / "it0.pt"), "--no-anchor"])
    ckpt = load_checkpoint(str(tmp_path / "it1.pt"))
    assert ckpt["ablation"] == {"anchor": False, "window": True} and "memory_aux" in ckpt
    assert ckpt["train"]["steps"] > load_checkpoint(str(tmp_path / "it0.pt"))["train"]["steps"] >= 1
    export.main([str(tmp_path / "it1.pt"), str(tmp_path / "bundle"), "--noise-scale", "0"])
    manifest = (tmp_path / "bundle" / "policy.yaml").read_text()
    assert "memory: {window: 3, anchor: false" in manifest
    assert (tmp_path / "bundle" / "parity.json").is_file()


def test_the_end_to_end_recipe_trains_and_warm_starts(tmp_path: Path) -> None:
    data = tmp_path / "npy"
    _hdf5_to_npy_episodes(data, [10, 7])
    fast = ["--steps", "2", "--batch", "4", "--run-length", "2", "--window", "2", "--horizon", "4", "--hidden", "16"]
    train.main(["end-to-end", "--data", str(data), "--out", str(tmp_path / "a.pt"), *fast])
    train.main(
        ["end-to-end", "--data", str(data), "--out", str(tmp_path / "b.pt"), "--init", str(tmp_path / "a.pt"), *fast]
    )
    ckpt = load_checkpoint(str(tmp_path / "b.pt"))
    assert ckpt["train"]["steps"] == 4 and ckpt["dims"]["window"] == 2 and ckpt["action_reference"] == "state"
