"""pytest tests of the mem0-tiny adapter (what `serve --checkpoint` runs): the shipped policies/mem0-tiny,
rebuilt into a checkpoint by import-bundle, reproduces the bundle's parity.json (the torch values the ONNX
files were checked against at export) through the adapter's own observe/act path; and on a tiny model built
here, the memory module sees exactly the anchor and window the Mem-0 rule gives, across declared ends.
"""

import json
import shutil
from pathlib import Path
from typing import Any, Dict, List

import numpy as np
import pytest
import torch

from engram_ml.mem0_tiny.checkpoint import load_checkpoint
from engram_ml.mem0_tiny.export import PARITY_SEED, parity_images, parity_state
from engram_ml.mem0_tiny.tiny_checkpoint import write_tiny_checkpoint
from engram_ml.memory.framesamp import frame_sampling_indices
from engram_ml.memory.mem0 import Mem0Memory
from engram_ml.servers.mem0_tiny_adapter import Mem0TinyAdapter, create

REPO = Path(__file__).resolve().parents[2]
SHIPPED = REPO / "policies" / "mem0-tiny"


@pytest.mark.skipif(not (SHIPPED / "train_log.json").is_file(), reason=f"{SHIPPED}/train_log.json absent")
def test_a_bundle_whose_train_log_is_malformed_is_refused_naming_the_field(tmp_path: Path) -> None:
    pytest.importorskip("onnx", reason="import-bundle reads the ONNX files (apt: python3-onnx)")
    from engram_ml.mem0_tiny import import_bundle

    bundle = tmp_path / "bundle"
    shutil.copytree(SHIPPED, bundle, ignore=shutil.ignore_patterns("ablations"))
    log = json.loads((bundle / "train_log.json").read_text())
    (bundle / "train_log.json").write_text(json.dumps({**log, "steps": "many"}))
    with pytest.raises(SystemExit, match="train_log.json: field steps: expected a number, got 'many'"):
        import_bundle.main([str(bundle), str(tmp_path / "m.pt"), str(tmp_path / "p.pt")])
    assert not (tmp_path / "m.pt").exists()


def _camera_images(adapter: Mem0TinyAdapter, flat: np.ndarray) -> Dict[str, np.ndarray]:
    d = adapter.d
    stack = flat.reshape(d.cameras, 3, d.height, d.width)
    return {camera: stack[i] for i, camera in enumerate(adapter.m["cameras"])}


@pytest.mark.skipif(not (SHIPPED / "parity.json").is_file(), reason=f"{SHIPPED}/parity.json absent")
def test_the_shipped_bundle_through_the_adapter_reproduces_its_parity_values(tmp_path: Path) -> None:
    pytest.importorskip("onnx", reason="import-bundle reads the ONNX files (apt: python3-onnx)")
    from engram_ml.mem0_tiny import import_bundle

    import_bundle.main([str(SHIPPED), str(tmp_path / "m.pt"), str(tmp_path / "p.pt")])
    expected = json.loads((SHIPPED / "parity.json").read_text())
    adapter = create(str(tmp_path / "m.pt"))
    assert adapter.m["flow_noise_scale"] == 0.0  # the bundle's, recorded by import-bundle
    history = json.loads((SHIPPED / "train_log.json").read_text())
    train = load_checkpoint(str(tmp_path / "m.pt"))["train"]
    assert (train["steps"], train["log"]) == (history["steps"], history["log"])  # training on counts on from them
    adapter.reset(PARITY_SEED, 0, "M(1)")
    adapter.set_instruction(expected["instruction"])
    st = adapter.m["normalization"]["state"]
    for step, want in enumerate(expected["steps"]):
        state = parity_state(st["mean"], st["std"], step)
        logit, _ = adapter.observe(_camera_images(adapter, parity_images(adapter.d, step)), state)
        assert logit == pytest.approx(want["logit"], abs=1e-4)
    chunk = adapter.act()
    assert chunk.dtype == np.float32 and chunk.shape == (adapter.d.horizon, adapter.d.action_dim)
    assert np.max(np.abs(chunk.ravel() - np.asarray(expected["chunk"]))) < 1e-4


class _MemorySpy(torch.nn.Module):
    """Wraps the model's memory module and records which features fill its anchor and window inputs."""

    def __init__(self, inner: torch.nn.Module) -> None:
        super().__init__()
        self.inner = inner
        self.calls: List[Dict[str, Any]] = []

    def forward(self, current, window, window_mask, anchor, anchor_mask, text):  # noqa: ANN001 - torch module
        valid = int(window_mask.sum())
        self.calls.append(
            {
                "current": current.clone(),
                "window": [window[0, j].clone() for j in range(valid)],
                "window_mask_tail": window_mask[0, valid:].tolist(),
                "anchor": anchor[0, 0].clone() if float(anchor_mask) > 0 else None,
            }
        )
        return self.inner(current, window, window_mask, anchor, anchor_mask, text)


@pytest.mark.parametrize("complexity", ["M(n)", "M(1)"])
def test_the_adapter_feeds_the_memory_module_the_mem0_rule(tmp_path: Path, complexity: str) -> None:
    write_tiny_checkpoint(str(SHIPPED / "policy.yaml"), str(tmp_path / "tiny.pt"))
    adapter = create(str(tmp_path / "tiny.pt"))
    adapter.m["classifier"]["threshold"] = 0.0  # every tick positive: an end every switch_count ticks
    spy = _MemorySpy(adapter.model.memory)
    adapter.model.memory = spy
    adapter.reset(3, 0, complexity)
    adapter.set_instruction(next(iter(adapter.m["tokenizer"]["vocabulary"])))
    rule: Mem0Memory[int] = Mem0Memory(adapter.d.window)
    rng = np.random.default_rng(0)
    ends = 0
    for tick in range(11):
        images = {
            c: rng.standard_normal((3, adapter.d.height, adapter.d.width)).astype(np.float32)
            for c in adapter.m["cameras"]
        }
        _, ended = adapter.observe(images, rng.standard_normal(adapter.d.action_dim).astype(np.float32))
        want = rule.write(tick)
        call = spy.calls[tick]
        features = [c["current"] for c in spy.calls]
        assert call["anchor"] is not None and torch.equal(call["anchor"], features[want.anchor][0])
        assert len(call["window"]) == len(want.window) and call["window_mask_tail"] == [0.0] * (
            adapter.d.window - len(want.window)
        )
        for got, step in zip(call["window"], want.window):
            assert torch.equal(got, features[step][0])
        if ended:
            ends += 1
            if complexity == "M(n)":  # M(1) keeps its memory across declared ends
                rule.clear()
    assert ends == 3  # switch_count 3: ends at ticks 2, 5, 8
    adapter.reset(4, 1, complexity)
    adapter.set_instruction(next(iter(adapter.m["tokenizer"]["vocabulary"])))
    adapter.observe(images, np.zeros(adapter.d.action_dim, dtype=np.float32))
    assert spy.calls[-1]["window"] == [] and torch.equal(spy.calls[-1]["anchor"], spy.calls[-1]["current"][0])


@pytest.mark.parametrize("strategy", ["framesamp", "none"])
def test_the_adapter_feeds_the_memory_module_the_strategy_it_serves(tmp_path: Path, strategy: str) -> None:
    """FrameSamp: the window is frame_sampling_indices over the whole history (subtask ends clear nothing),
    no anchor; none: nothing but the current feature."""
    write_tiny_checkpoint(str(SHIPPED / "policy.yaml"), str(tmp_path / "tiny.pt"))
    adapter = create(str(tmp_path / "tiny.pt"), memory_strategy=strategy)
    adapter.m["classifier"]["threshold"] = 0.0  # ends every switch_count ticks: FrameSamp must not clear
    spy = _MemorySpy(adapter.model.memory)
    adapter.model.memory = spy
    adapter.reset(3, 0, "M(n)")
    adapter.set_instruction(next(iter(adapter.m["tokenizer"]["vocabulary"])))
    rng = np.random.default_rng(1)
    K = adapter.d.window
    for tick in range(3 * K):
        images = {
            c: rng.standard_normal((3, adapter.d.height, adapter.d.width)).astype(np.float32)
            for c in adapter.m["cameras"]
        }
        adapter.observe(images, rng.standard_normal(adapter.d.action_dim).astype(np.float32))
        call = spy.calls[tick]
        assert call["anchor"] is None
        want = frame_sampling_indices(tick, K) if strategy == "framesamp" else []
        features = [c["current"] for c in spy.calls]
        assert len(call["window"]) == len(want) and call["window_mask_tail"] == [0.0] * (K - len(want))
        for got, index in zip(call["window"], want):
            assert torch.equal(got, features[index][0])


def test_the_adapter_refuses_an_unknown_memory_strategy(tmp_path: Path) -> None:
    write_tiny_checkpoint(str(SHIPPED / "policy.yaml"), str(tmp_path / "tiny.pt"))
    with pytest.raises(ValueError, match="memory strategy 'tokendrop': expected mem0, framesamp or none"):
        create(str(tmp_path / "tiny.pt"), memory_strategy="tokendrop")


def test_a_checkpoint_in_the_old_plain_pickle_format_is_refused_naming_import_bundle(tmp_path: Path) -> None:
    torch.save({"dims": {"window": 4}, "stats": {"state_mean": [0.5]}}, tmp_path / "old.pt")
    with pytest.raises(ValueError, match="import-bundle"):
        create(str(tmp_path / "old.pt"))
