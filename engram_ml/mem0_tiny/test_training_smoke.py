"""pytest smoke tests of the training commands on tiny synthetic data (a fraction of a second of training
each): every stage runs end to end through `python -m engram_ml`'s own entry points, writes a checkpoint
the weights-only loader reads back, warm-starts from it, and `export` turns the result into a bundle.
"""

import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml

from engram_ml.mem0_tiny import data as data_module
from engram_ml.mem0_tiny import export, train
from engram_ml.mem0_tiny.checkpoint import load_checkpoint, save_checkpoint
from engram_ml.memory.tokendrop import TokenDropMemory

VOCAB = {"max_length": 4, "pad_id": 0, "size": 8, "vocabulary": {"put the block back": [1, 2, 3], "press": [4]}}
H, W, C, S = 24, 32, 3, 16


def _write_collect_ts_episode(stem: Path, meta: dict, aux: np.ndarray, state_dim: int, rng) -> None:
    """One episode in collect.ts's layout: <stem>.json + images/state/label/aux .npy."""
    t, cams = meta["frames"], len(meta["cameras"])
    stem.with_suffix(".json").write_text(json.dumps(meta))
    np.save(f"{stem}.images.npy", rng.integers(0, 255, (t, cams, H, W, 3), dtype=np.uint8))
    np.save(f"{stem}.state.npy", rng.standard_normal((t, state_dim)).astype(np.float32))
    np.save(f"{stem}.label.npy", rng.standard_normal((t, 4, state_dim)).astype(np.float32) * 0.1)
    np.save(f"{stem}.aux.npy", aux.astype(np.float32))


def _collect_ts_episodes(folder: Path, frames: list) -> None:
    """collect.ts's layout: <stem>.json + images/state/label/aux .npy, and vocabulary.json."""
    folder.mkdir(parents=True)
    (folder / "vocabulary.json").write_text(json.dumps(VOCAB))
    rng = np.random.default_rng(0)
    for i, t in enumerate(frames):
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
        aux = np.concatenate([rng.uniform(0.3, 0.7, (t, 3)), np.zeros((t, 1)), np.arange(t)[:, None] % 4], axis=1)
        _write_collect_ts_episode(folder / f"ep{i}", meta, aux, S, rng)


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
    train.main(["perception", "--data", str(data), "--out", str(tmp_path / "p.pt"), "--heldout", str(data), *fast])
    perception = load_checkpoint(str(tmp_path / "p.pt"))
    assert perception["dims"]["encoder"] == "perception" and perception["train"]["frames"] == 21
    # The held-out report: the block's xy error (cm) and the held flag's accuracy, per task.
    heldout = perception["heldout"]["put-back-block"]
    assert len(heldout["xy_err_cm"]) == 1 and heldout["xy_err_cm"][0] > 0 and 0 <= heldout["bin_acc"][0] <= 1
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


def test_a_warm_start_takes_the_perception_it_is_given_with_its_read_out(tmp_path: Path) -> None:
    """A checkpoint trained under another perception, or rebuilt from a bundle (import-bundle keeps no read-out),
    warm-starts the execution module under a new --perception whose read-out has another number of targets."""
    data = tmp_path / "it0"
    _collect_ts_episodes(data, [9, 12])
    fast = ["--minutes", "0.005", "--batch", "4"]
    train.main(["perception", "--data", str(data), "--out", str(tmp_path / "p.pt"), *fast])
    policy = ["policy", "--data", str(data), "--perception", str(tmp_path / "p.pt"), "--window", "3", *fast]
    train.main([*policy, "--out", str(tmp_path / "it0.pt")])
    old = load_checkpoint(str(tmp_path / "it0.pt"))
    meta = {k: v for k, v in old.items() if k not in ("state_dict", "memory_aux")}
    meta["dims"] = {**old["dims"], "aux_dim": 2}
    weights = dict(old["state_dict"])
    for k in ("encoder.perception.aux.weight", "encoder.perception.aux.bias"):
        weights[k] = weights[k][:2]
    save_checkpoint(str(tmp_path / "other.pt"), meta, state_dict=weights, memory_aux=old["memory_aux"])
    train.main([*policy, "--out", str(tmp_path / "it1.pt"), "--init", str(tmp_path / "other.pt")])
    new, perception = load_checkpoint(str(tmp_path / "it1.pt")), load_checkpoint(str(tmp_path / "p.pt"))
    assert new["dims"]["aux_dim"] == perception["dims"]["aux_dim"] == 4
    for k, v in perception["state_dict"].items():
        assert torch.equal(new["state_dict"][f"encoder.perception.{k}"], v), k


def test_the_perception_refuses_targets_collected_in_two_layouts(tmp_path: Path) -> None:
    """A folder collected before a slot order changed (no aux_layout) beside one collected after: the same
    columns mean other objects, so the perception stops before training, naming both folders."""
    old, new = tmp_path / "old", tmp_path / "new"
    _collect_ts_episodes(old, [9])
    _collect_ts_episodes(new, [9])
    meta = json.loads((new / "ep0.json").read_text())
    (new / "ep0.json").write_text(json.dumps({**meta, "aux_layout": "mn-scene-2"}))
    fast = ["--minutes", "0.005", "--batch", "4"]
    expected = rf"different target layouts \(mn-scene-2 in {new}; unrecorded in {old}\)"
    with pytest.raises(SystemExit, match=expected):
        train.main(["perception", "--data", f"{old},{new}", "--out", str(tmp_path / "p.pt"), *fast])
    with pytest.raises(SystemExit, match=rf"--heldout {old}: target layout unrecorded differs from --data's mn-scene-2"):
        train.main(["perception", "--data", str(new), "--heldout", str(old), "--out", str(tmp_path / "p.pt"), *fast])
    assert not (tmp_path / "p.pt").exists()


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


VIDEO_VOCAB = {
    "max_length": 4,
    "pad_id": 0,
    "size": 8,
    "vocabulary": {"lift the red one": [1, 2, 3, 4], "lift blue": [1, 5]},
}


def _video_episodes(folder: Path, frames: list, demo: int) -> None:
    """collect.ts's layout for a Franka video task: a demonstration's frames first, targets with NaN."""
    folder.mkdir(parents=True)
    (folder / "vocabulary.json").write_text(json.dumps(VIDEO_VOCAB))
    rng = np.random.default_rng(2)
    for i, t in enumerate(frames):
        video = dict(task="video-unmask", instruction=["lift the red one", "lift blue"][i % 2], demo_frames=demo)
        meta = dict(tmc="M1", seed=i, outcome="success", frames=t, width=W, height=H, **video)
        franka = dict(cameras=["exterior_left", "wrist"], layout="joint_8d", control_hz=15)
        meta.update(franka, aux_kinds=["pos", "pos", "pos", "bin", "bin", "phase"], answer=i % 3)
        aux = np.concatenate([rng.uniform(0.3, 0.7, (t, 3)), np.ones((t, 2)), np.arange(t)[:, None] % 2], axis=1)
        aux[:demo, 4] = np.nan  # the camera cannot tell there
        aux[:demo, 5] = -1
        _write_collect_ts_episode(folder / f"ep{i}", meta, aux, 8, rng)


def test_video_data_keeps_the_demonstration_out_of_the_labels_and_in_framesamp_memory(tmp_path: Path) -> None:
    data = tmp_path / "video"
    _video_episodes(data, [40, 45], demo=30)
    d = train.Data([str(data)], 8, load_images=False)
    # Only execution frames carry labels: 10 + 15 of 85.
    assert d.execution.tolist() == list(range(30, 40)) + list(range(70, 85))
    assert d.instructions == ["lift the red one", "lift blue"] and d.instruction[45].item() == 1
    assert d.answer[:40].tolist() == [0] * 40 and d.answer[40:].tolist() == [1] * 45
    # FrameSamp at episode 1's frame 84 (history index 44): 8 of 0..44 over its own history, frame 0 first.
    _, window, mask, shown = d.memory_indices(torch.tensor([84]), "framesamp")
    assert window[0].tolist() == [40 + i for i in [0, 6, 12, 18, 25, 31, 37, 44]] and mask.sum() == 8 and shown == 0.0
    _, _, mask, shown = d.memory_indices(torch.tensor([84]), "none")
    assert mask.sum() == 0 and shown == 0.0
    xyz, flags = d.aux_targets(torch.tensor([0, 35]))
    assert xyz.shape == (2, 3) and torch.isnan(flags[0, 1]) and not torch.isnan(flags[1]).any()
    assert d.phase()[:30].tolist() == [0] * 30  # a demonstration's -1 is clamped (its frames are never sampled)


def _video_policy_args(tmp_path: Path) -> list:
    """Two video episodes and a perception trained on them (tmp_path/p.pt); `train policy`'s arguments on them."""
    folder = tmp_path / "video"
    _video_episodes(folder, [40, 45], demo=30)
    fast = ["--minutes", "0.005", "--batch", "4"]
    train.main(["perception", "--data", str(folder), "--out", str(tmp_path / "p.pt"), "--bin-weight", "1", *fast])
    return ["policy", "--data", str(folder), "--perception", str(tmp_path / "p.pt"), *fast]


def test_a_framesamp_policy_for_the_franka_exports_its_strategy_cameras_and_layout(tmp_path: Path) -> None:
    pytest.importorskip("onnx", reason="export writes ONNX (apt: python3-onnx)")
    policy = [*_video_policy_args(tmp_path), "--window", "8"]
    assert load_checkpoint(str(tmp_path / "p.pt"))["dims"]["aux_dim"] == 5
    train.main([*policy, "--out", str(tmp_path / "fs.pt"), "--memory", "framesamp"])
    ckpt = load_checkpoint(str(tmp_path / "fs.pt"))
    assert ckpt["memory_strategy"] == "framesamp" and ckpt["ablation"]["anchor"] is False
    export.main([str(tmp_path / "fs.pt"), str(tmp_path / "bundle"), "--noise-scale", "0"])
    manifest = (tmp_path / "bundle" / "policy.yaml").read_text()
    assert "memory: {window: 8, anchor: false, feature_dim: 64, summary_tokens: 3, strategy: framesamp}" in manifest
    assert "cameras: [exterior_left, wrist]" in manifest and "layout: {state: joint_8d, action: joint_8d}" in manifest
    assert "control_hz: 15" in manifest


def test_patch_pixels_cut_as_the_runtime_does() -> None:
    views = np.arange(2 * 1 * 8 * 12 * 3, dtype=np.float32).reshape(2, 1, 8, 12, 3)
    patches = data_module.patch_pixels(views, 4)  # 4x4 patches of 2 rows x 3 columns
    assert patches.shape == (2, 16, 18)
    # Frame 1, patch 6 (row 1, column 2): channel-major, then rows, then columns (TokenDropMemory.ts patchPixels).
    expected = views[1, 0, 2:4, 6:9, :].transpose(2, 0, 1).reshape(-1)
    assert patches[1, 6].tolist() == expected.tolist()


def test_tokendrop_reads_are_the_rules_reads_at_every_frame(tmp_path: Path) -> None:
    folder = tmp_path / "video"
    _video_episodes(folder, [40, 45], demo=30)
    d = train.Data([str(folder)], 1, load_images=False)
    spec = dict(budget=20, stride=8, kept=64, grid=4)
    reads, patches = train.token_reads(d, spec, 1, lambda p: p)
    assert patches.shape == (85, 16, 3 * 6 * 8)
    rule = TokenDropMemory(**spec)
    images = np.load(str(folder / "ep1.images.npy"))[:, :1]
    for t in range(45):  # episode 1: frames 40..84, its own history from step 0
        expected = rule.write(images[t].astype(np.float32) / 127.5 - 1.0)
        r = reads.read_of_frame[40 + t]
        n = int(reads.mask[r].sum())
        got = [(int(f) - 40, int(p) // 16, int(p) % 16) for f, p in zip(reads.frame[r, :n], reads.patch[r, :n])]
        assert got == expected and reads.step[r, :n].tolist() == [s for s, _, _ in expected], t
    # Frame 0's 16 patches first, then the 20 highest-scored once the heap holds more.
    assert int(reads.mask[reads.read_of_frame[40]].sum()) == 16 and int(reads.mask[reads.read_of_frame[84]].sum()) == 20


def test_a_tokendrop_policy_exports_the_token_memory_module(tmp_path: Path) -> None:
    pytest.importorskip("onnx", reason="export writes ONNX (apt: python3-onnx)")
    import onnx

    policy = _video_policy_args(tmp_path)
    with pytest.raises(SystemExit, match="--token-grid 8 --token-pool 4: a 32x24 image"):
        train.main([*policy, "--out", str(tmp_path / "td.pt"), "--memory", "tokendrop", "--window", "16"])
    token = ["--memory", "tokendrop", "--window", "16", "--token-grid", "2", "--token-kept", "64"]
    train.main([*policy, "--out", str(tmp_path / "td.pt"), *token])
    ckpt = load_checkpoint(str(tmp_path / "td.pt"))
    assert ckpt["memory_strategy"] == "tokendrop" and ckpt["tokendrop"] == {"budget": 16, "stride": 8, "kept": 64, "grid": 2}
    export.main([str(tmp_path / "td.pt"), str(tmp_path / "bundle"), "--noise-scale", "0"])
    manifest = (tmp_path / "bundle" / "policy.yaml").read_text()
    assert "  strategy: tokendrop\n  tokendrop:\n    stride: 8\n    kept: 64\n    grid: 2\n    cameras: [exterior_left]\n" in manifest
    memory = onnx.load(str(tmp_path / "bundle" / "memory.onnx"))
    assert [i.name for i in memory.graph.input] == export.TOKEN_MEMORY_INPUTS
    parity = json.loads((tmp_path / "bundle" / "parity.json").read_text())
    assert len(parity["steps"]) == 10  # past the first score, at step 7


def _mn_episode(folder: Path, name: str, outcome: str, rng) -> None:
    """A 30-frame M(n) episode as collect.ts writes it: two runtime segments, true ends at frames 12 and 29 (last)."""
    meta = {
        "task": "press-button",
        "tmc": "Mn",
        "instruction": "put the block back",
        "seed": 0,
        "outcome": outcome,
        "frames": 30,
        "cameras": ["head", "left_wrist", "right_wrist"],
        "width": W,
        "height": H,
        # The runtime declared the first end at frame 14, two frames after the true one.
        "segments": [{"text": "press", "start": 0, "end": 14}, {"text": "put the block back", "start": 15, "end": 29}],
        "subtask_end": [12],
        "subtasks": ["press", "put the block back"],
    }
    stage = (np.arange(30) > 12).astype(np.float64)[:, None]  # the oracle's subtask: the second after the true end
    aux = np.concatenate([rng.uniform(0.3, 0.7, (30, 3)), np.zeros((30, 1)), stage], axis=1)
    _write_collect_ts_episode(folder / name, meta, aux, S, rng)


def _mn_folder(tmp_path: Path, seed: int) -> Path:
    """tmp_path/mn: vocabulary.json, a successful M(n) episode `a` and a failed one `b`."""
    folder = tmp_path / "mn"
    folder.mkdir()
    (folder / "vocabulary.json").write_text(json.dumps(VOCAB))
    rng = np.random.default_rng(seed)
    _mn_episode(folder, "a", "success", rng)
    _mn_episode(folder, "b", "failure", rng)
    return folder


def test_mn_episodes_train_as_the_runtime_ran_them_with_true_end_labels(tmp_path: Path) -> None:
    folder = _mn_folder(tmp_path, 3)
    d = train.Data([str(folder)], 4, load_images=False)
    # The memory restarts where the runtime cleared it, each segment on the text the policy was told.
    assert d.seg_start[:30].tolist() == [0] * 15 + [15] * 15 and d.seg_start[30:45].tolist() == [30] * 15
    assert [d.instructions[i] for i in d.instruction[[0, 14, 15]].tolist()] == ["press", "press", "put the block back"]
    anchor, window, mask, _ = d.memory_indices(torch.tensor([16]), "mem0")
    assert anchor.item() == 15 and window[0][mask[0] > 0].tolist() == [15]
    # Positives: the last 8 frames of each true subtask; the failed episode's unfinished last one has none.
    assert torch.nonzero(d.end_label[:30]).flatten().tolist() == list(range(5, 13)) + list(range(22, 30))
    assert torch.nonzero(d.end_label[30:]).flatten().tolist() == list(range(5, 13))
    # The end was declared 2 frames late: there the label already does the next subtask, so no action loss.
    assert torch.nonzero(~d.text_agrees[:30]).flatten().tolist() == [13, 14]
    broken = json.loads((folder / "b.json").read_text())
    broken["segments"][1]["start"] = 16
    (folder / "b.json").write_text(json.dumps(broken))
    expected = r"b.json: segment 'put the block back' \[16, 29\]: expected one starting at frame 15"
    with pytest.raises(SystemExit, match=expected):
        train.Data([str(folder)], 4, load_images=False)


def test_planner_calls_from_runtime_episodes(tmp_path: Path) -> None:
    from engram_ml.planner.from_collect import collect_calls

    folder = _mn_folder(tmp_path, 4)
    vocabulary = ["press", "put the block back"]
    calls = collect_calls([str(folder)], ["put the block back"], vocabulary, slots=2)
    # Each episode: at the start, then after the true end at frame 12 (no frame shows the success's last end).
    assert calls["next"].tolist() == [0, 1, 0, 1]
    assert calls["key_mask"].tolist() == [[0, 0], [1, 0], [0, 0], [1, 0]]
    assert calls["key_subtasks"][1].tolist() == [0, 0]
    images = np.load(folder / "a.images.npy")
    assert (calls["key_images"][1, 0] == images[12, 0].transpose(2, 0, 1)).all()
    assert (calls["initial_image"][2] == np.load(folder / "b.images.npy")[0, 0].transpose(2, 0, 1)).all()


def test_a_classifier_reading_the_state_trains_and_is_scored_offline_per_switch_count(tmp_path: Path) -> None:
    from engram_ml.mem0_tiny import classifier_eval

    folder = _mn_folder(tmp_path, 5)
    fast = ["--minutes", "0.005", "--batch", "4"]
    train.main(["perception", "--data", str(folder), "--out", str(tmp_path / "p.pt"), *fast])
    train.main(
        ["policy", "--data", str(folder), "--perception", str(tmp_path / "p.pt"), "--out", str(tmp_path / "c.pt")]
        + ["--classifier-state", "--pos-weight", "10", "--memory-aux", "0", *fast]
    )
    assert load_checkpoint(str(tmp_path / "c.pt"))["dims"]["classifier_state"] is True
    data, logits = classifier_eval.frame_logits(str(tmp_path / "c.pt"), str(tmp_path / "p.pt"), [str(folder)])
    assert logits.shape == (60,) and torch.isfinite(logits).all()
    s = classifier_eval.scores(data, logits, [1, 8])
    assert s["press-button"][8]["true_ends"] == 3  # the success's two ends, the failure's one
    # The runtime's debounce and summary.json's matching.
    assert classifier_eval.debounce([0.9, 0.9, 0.9, 0.1, 0.9, 0.9, 0.1, 0.9], 0.5, 3) == [2, 7]
    assert classifier_eval.debounce([0.9] * 6 + [0.1, 0.9, 0.9, 0.9], 0.5, 3, rearm=True) == [2, 9]  # as subtaskDebounce.ts
    assert classifier_eval.match([2, 20], [4, 30]) == (1, 1, 1, [-2])
    # Exported, the classifier reads the state beside the summary; onnxruntime-node and Mem0Policy agree with torch.
    pytest.importorskip("onnx", reason="export writes ONNX (apt: python3-onnx)")
    bundle = tmp_path / "bundle"
    debounce = ["--switch-count", "6", "--threshold", "0.7", "--rearm"]
    export.main([str(tmp_path / "c.pt"), str(bundle), "--noise-scale", "0", *debounce])
    manifest = (bundle / "policy.yaml").read_text()
    assert "classifier: {threshold: 0.7, switch_count: 6, rearm: true}" in manifest  # Mem0Policy's schema takes it
    cls_inputs = yaml.safe_load(manifest)["models"]["classifier"]["inputs"]
    assert cls_inputs["state"] == {"name": "state", "type": "float32", "shape": [1, 16]}
    repo = Path(__file__).resolve().parents[2]
    parity = subprocess.run(
        ["node", "--import", "tsx", "--test", "test/policy/mem0TinyParity.test.ts"],
        cwd=repo, env={**os.environ, "MEM0_TINY_BUNDLE": str(bundle)}, capture_output=True, text=True, timeout=300,
    )
    assert parity.returncode == 0 and "# pass 3" in parity.stdout, parity.stdout[-3000:] + parity.stderr[-2000:]


def test_a_shorter_end_target_retrains_the_classifier_alone(tmp_path: Path) -> None:
    folder = _mn_folder(tmp_path, 6)
    # The last 3 frames of each true subtask instead of 8: a repeated press (8 steps) is then not all positive.
    d = train.Data([str(folder)], 4, load_images=False, end_frames=3)
    assert torch.nonzero(d.end_label[:30]).flatten().tolist() == [10, 11, 12, 27, 28, 29]
    fast = ["--minutes", "0.005", "--batch", "4"]
    train.main(["perception", "--data", str(folder), "--out", str(tmp_path / "p.pt"), *fast])
    policy = ["policy", "--data", str(folder), "--perception", str(tmp_path / "p.pt"), "--classifier-state", *fast]
    train.main([*policy, "--out", str(tmp_path / "full.pt")])
    with pytest.raises(SystemExit, match="--classifier-only retrains the classifier of a trained policy: give it"):
        train.main([*policy, "--out", str(tmp_path / "x.pt"), "--classifier-only"])
    with pytest.raises(SystemExit, match="--end-frames 0: a subtask's end needs at least one positive frame"):
        train.main([*policy, "--out", str(tmp_path / "x.pt"), "--end-frames", "0"])
    retrain = ["--init", str(tmp_path / "full.pt"), "--classifier-only", "--end-frames", "3", "--steps", "3"]
    train.main([*policy, "--out", str(tmp_path / "cls.pt"), *retrain])
    before, after = load_checkpoint(str(tmp_path / "full.pt")), load_checkpoint(str(tmp_path / "cls.pt"))
    moved = {k for k, v in after["state_dict"].items() if not torch.equal(v, before["state_dict"][k])}
    assert moved and all(k.startswith("classifier.") for k in moved), moved
    assert after["classifier_target"] == {"end_frames": 3, "retrained_alone": True}
    assert after["train"]["steps"] == before["train"]["steps"] + 3
    pytest.importorskip("onnx", reason="export writes ONNX (apt: python3-onnx)")
    export.main([str(tmp_path / "cls.pt"), str(tmp_path / "bundle"), "--noise-scale", "0"])
    log = json.loads((tmp_path / "bundle" / "train_log.json").read_text())
    assert log["classifier_target"] == {"end_frames": 3, "retrained_alone": True}
