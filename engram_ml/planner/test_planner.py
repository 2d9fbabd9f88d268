"""The learned planner's Python side: dataset checks, a training smoke on tiny synthetic data, the CLI
entry point, and parity of the exported planner.onnx with torch under onnxruntime-node (the runtime's ORT)."""

import json
import os
import shutil
import subprocess

import numpy as np
import pytest
import torch
import yaml

from engram_ml.planner.dataset import load_planner_data, synthetic_lamp_data
from engram_ml.planner.export import INPUTS, example_inputs, export_onnx, export_to_bundle, main as export_main
from engram_ml.planner.model import PlannerDims, PlannerNet
from engram_ml.planner.train import train

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HAS_NODE = shutil.which("node") is not None and os.path.isdir(os.path.join(REPO, "node_modules", "onnxruntime-node"))


def test_dataset_errors_name_the_array(tmp_path):
    path = str(tmp_path / "calls.npz")
    synthetic_lamp_data(path, n=8)
    data = load_planner_data(path)
    assert len(data) == 8 and data.inputs["key_images"].shape == (8, 4, 3, 12, 16)
    z = dict(np.load(path))
    z["next"] = z["next"][:5]
    np.savez(path, **z)
    with pytest.raises(ValueError, match=r"array next has shape \[5\], expected \[8\]"):
        load_planner_data(path)
    z["next"] = np.full(8, 7)
    np.savez(path, **z)
    with pytest.raises(ValueError, match=r"array next holds 7, expected indices in \[0, 3\)"):
        load_planner_data(path)
    del z["key_mask"]
    np.savez(path, **z)
    with pytest.raises(ValueError, match="missing array"):
        load_planner_data(path)


def accuracy(model, data, key_memory=True):
    x = dict(data.inputs)
    if not key_memory:
        x["key_mask"] = torch.zeros_like(x["key_mask"])
    with torch.no_grad():
        return (model(*(x[k] for k in INPUTS)).argmax(1) == data.next).float().mean().item()


def test_training_learns_the_lamp_rule_and_needs_key_memory(tmp_path):
    fit, held = str(tmp_path / "fit.npz"), str(tmp_path / "held.npz")
    synthetic_lamp_data(fit, n=192, seed=0)
    synthetic_lamp_data(held, n=128, seed=1)
    data, heldout = load_planner_data(fit), load_planner_data(held)
    full = train(data, steps=300, minutes=2, batch=32, lr=3e-3, dim=16, key_memory=True)
    log = full["log"]
    assert log[-1]["loss"] < log[0]["loss"] * 0.5, log[::5]
    acc = accuracy(full["model"], heldout)
    assert acc > 0.9, acc
    blind = train(data, steps=300, minutes=2, batch=32, lr=3e-3, dim=16, key_memory=False)["model"]
    blind_acc = accuracy(blind, heldout, key_memory=False)
    assert blind_acc < acc - 0.2, (blind_acc, acc)


def test_cli_train_planner_writes_a_checkpoint(tmp_path):
    from engram_ml.__main__ import main

    path = str(tmp_path / "calls.npz")
    synthetic_lamp_data(path, n=16)
    out = str(tmp_path / "run")
    main(["train", "planner", "--data", path, "--out", out, "--steps", "5", "--dim", "8"])
    ck = torch.load(os.path.join(out, "planner.pt"))
    assert ck["dims"]["slots"] == 4 and ck["vocabulary"][1] == "flip the left battery"
    assert len(json.load(open(os.path.join(out, "train_log.json")))) >= 1


@pytest.mark.skipif(not HAS_NODE, reason="node or node_modules/onnxruntime-node missing (npm ci)")
def test_onnx_parity_with_torch_under_onnxruntime_node(tmp_path):
    d = PlannerDims(tasks=2, vocabulary=5, slots=8, height=48, width=64, dim=32)
    torch.manual_seed(1)
    model = PlannerNet(d).eval()
    onnx_path = str(tmp_path / "planner.onnx")
    export_onnx(model, onnx_path)
    timings = []
    for seed in (0, 1, 2):
        x = example_inputs(d, seed)
        with torch.no_grad():
            want = model(*(x[k] for k in INPUTS)).numpy().reshape(-1)
        spec = {
            k: {"type": "int64" if v.dtype == torch.int64 else "float32", "dims": list(v.shape),
                "data": v.reshape(-1).tolist()}
            for k, v in x.items()
        }
        inputs = tmp_path / f"inputs{seed}.json"
        inputs.write_text(json.dumps(spec))
        script = os.path.join(REPO, "engram_ml", "planner", "ort_node.mjs")
        run = subprocess.run(["node", script, onnx_path, str(inputs)], cwd=REPO, capture_output=True, text=True,
                             timeout=120)
        assert run.returncode == 0, run.stderr
        got = json.loads(run.stdout)
        assert got["dims"] == [1, 6]
        np.testing.assert_allclose(np.array(got["logits"]), want, atol=1e-4, rtol=1e-4)
        timings.append(got["ms"])
    print(f"planner.onnx (M=8, 64x48) under onnxruntime-node: {min(timings):.3f} ms per run (p50 of 50)")


TSX = os.path.join(REPO, "node_modules", ".bin", "tsx")


def write_test_bundle(bundle: str) -> None:
    """A tiny bundle whose tokenizer holds every sim task's texts (src/policy/mem0/testBundle.ts)."""
    build = [TSX, "src/policy/mem0/testBundle.ts", bundle]
    subprocess.run(build, cwd=REPO, check=True, capture_output=True, timeout=120)


def assert_engram_check_accepts(bundle: str) -> None:
    check = subprocess.run([TSX, "src/cli.ts", "check", os.path.join(bundle, "policy.yaml")], cwd=REPO,
                           capture_output=True, text=True, timeout=180)
    assert check.returncode == 0, check.stdout + check.stderr


@pytest.mark.skipif(not HAS_NODE, reason="node or node_modules missing (npm ci)")
def test_export_into_a_bundle_that_engram_check_accepts(tmp_path):
    bundle = str(tmp_path / "bundle")
    write_test_bundle(bundle)
    tasks = ["Put both batteries into the holder, then flip them one at a time, trying each polarity combination once, "
             "until the lamp turns green."]
    vocabulary = ["put both batteries into the holder", "flip the left battery", "flip the right battery"]
    model = PlannerNet(PlannerDims(tasks=1, vocabulary=3, slots=4, height=24, width=32, dim=8))
    export_to_bundle(model, tasks, vocabulary, bundle)
    manifest = yaml.safe_load(open(os.path.join(bundle, "policy.yaml")))
    assert manifest["planner"]["model"]["inputs"]["key_images"]["shape"] == [1, 4, 3, 24, 32]
    assert_engram_check_accepts(bundle)


@pytest.mark.skipif(not HAS_NODE, reason="node or node_modules missing (npm ci)")
def test_the_shipped_planner_folder_goes_into_a_bundle_and_a_damaged_one_is_refused(tmp_path):
    bundle = str(tmp_path / "bundle")
    write_test_bundle(bundle)
    shipped = os.path.join(REPO, "training", "planner", "mn")
    damaged = str(tmp_path / "mn")
    shutil.copytree(shipped, damaged)
    with open(os.path.join(damaged, "planner.onnx"), "r+b") as f:
        f.seek(5000)
        byte = f.read(1)
        f.seek(5000)
        f.write(bytes([byte[0] ^ 0xFF]))
    before = open(os.path.join(bundle, "policy.yaml")).read()
    with pytest.raises(SystemExit, match=r"planner\.onnx: SHA-256 .* is not planner\.model\.sha256"):
        export_main([damaged, bundle])
    assert open(os.path.join(bundle, "policy.yaml")).read() == before, "a refused copy leaves the bundle as it was"
    export_main([shipped, bundle])
    manifest = yaml.safe_load(open(os.path.join(bundle, "policy.yaml")))
    assert len(manifest["planner"]["tasks"]) == 4 and manifest["planner"]["image"] == {"width": 128, "height": 96}
    assert_engram_check_accepts(bundle)


def test_evaluate_scores_calls_per_task_and_whole_plans():
    from engram_ml.planner.dataset import PlannerData
    from engram_ml.planner.evaluate import score

    # Two episodes of task 0 (3 calls each: 0, 1, 2 finished) and one of task 1 (2 calls).
    finished = [0, 1, 2, 0, 1, 2, 0, 1]
    m = 4
    mask = torch.tensor([[1.0 if s < f else 0.0 for s in range(m)] for f in finished])
    inputs = {"task": torch.tensor([[0], [0], [0], [0], [0], [0], [1], [1]]), "key_mask": mask}
    truth = torch.tensor([0, 1, 2, 0, 1, 2, 1, 2])
    got = torch.tensor([0, 1, 2, 0, 2, 2, 1, 2])  # one wrong call, in the second episode
    data = PlannerData(["a", "b"], ["x", "y"], inputs, truth)
    r = score(data, got)
    assert r["overall"] == {"right": 7, "calls": 8, "accuracy": 0.875}
    assert r["per_task"]["a"]["plans_right"] == 1 and r["per_task"]["a"]["episodes"] == 2
    assert r["per_task"]["b"] == {"right": 2, "calls": 2, "accuracy": 1.0, "plans_right": 1, "episodes": 1}
    assert r["per_finished"]["1"] == {"right": 2, "calls": 3, "accuracy": 0.6667}


def test_dataset_reads_a_collect_folder(tmp_path):
    # training/planner/collect.ts writes one .npy per array and texts.json; the same calls as an npz load alike.
    synthetic_lamp_data(str(tmp_path / "calls.npz"), n=8)
    folder = tmp_path / "calls"
    folder.mkdir()
    with np.load(tmp_path / "calls.npz") as z:
        for k in z.files:
            if k not in ("tasks", "vocabulary"):
                np.save(folder / f"{k}.npy", z[k])
        texts = {"tasks": [str(t) for t in z["tasks"]], "vocabulary": [str(v) for v in z["vocabulary"]]}
    (folder / "texts.json").write_text(json.dumps(texts))
    a, b = load_planner_data(str(tmp_path / "calls.npz")), load_planner_data(str(folder))
    assert list(a.tasks) == list(b.tasks) and list(a.vocabulary) == list(b.vocabulary)
    assert torch.equal(a.next, b.next) and all(torch.equal(a.inputs[k], b.inputs[k]) for k in a.inputs)
    (folder / "texts.json").unlink()
    with pytest.raises(ValueError, match="missing array"):
        load_planner_data(str(folder))


def test_training_starts_from_a_shipped_planner_onnx():
    from engram_ml.planner.train import initial_weights

    shipped = os.path.join(REPO, "training", "planner", "mn")
    w = initial_weights(shipped)
    section = yaml.safe_load(open(os.path.join(shipped, "planner.yaml")))["planner"]
    d = PlannerDims(tasks=len(section["tasks"]), vocabulary=len(section["vocabulary"]), slots=8, height=96, width=128)
    model = PlannerNet(d)
    model.load_state_dict(w)  # strict: every parameter is named in the ONNX file
    assert torch.equal(model.state_dict()["head.2.bias"], w["head.2.bias"])
