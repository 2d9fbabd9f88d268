"""Exports a mem0-tiny checkpoint (`python -m engram_ml train`) into a runtime bundle: encoder.onnx, memory.onnx,
classifier.onnx, action_head.onnx, policy.yaml (manifest contract: src/config/schemas/policyManifest.ts)
and parity.json (torch outputs on deterministic inputs, checked against onnxruntime-node by
test/policy/mem0TinyParity.test.ts).

  python -m engram_ml export runs/mem0-tiny/model.pt policies/mem0-tiny [--name mem0-tiny] [--noise-scale 0]

Opset 17 (onnxruntime-node 1.30 runs it). The encoder has a symbolic batch axis; the other three
models take batch 1, as the manifest says and the runtime feeds them.
"""

import argparse
import hashlib
import json
import math
import os
from typing import Any, Callable, Dict, Optional, Sequence, Tuple

import numpy as np
import torch
import yaml

from engram_ml.mem0_tiny.checkpoint import load_checkpoint
from engram_ml.mem0_tiny.data import patch_pixels
from engram_ml.mem0_tiny.model import Dims, Mem0Tiny
from engram_ml.memory.framesamp import frame_sampling_indices
from engram_ml.memory.tokendrop import TokenDropMemory

OPSET = 17
# What memory.onnx was trained to read, per runtime memory strategy other than mem0 (the policy.yaml header).
MEMORY_READS = {
    "framesamp": "framesamp, {K} frames sampled evenly over the whole history, demonstration included; no anchor",
    "none": "none, no history (the current frame only)",
    "tokendrop": "tokendrop, RoboMME's {K} highest-scored patch tokens of the whole history, demonstration included",
}
# memory.onnx's inputs: frame strategies read a window of features, TokenDrop patch tokens.
FRAME_MEMORY_INPUTS = ["current", "window", "window_mask", "anchor", "anchor_mask", "text"]
TOKEN_MEMORY_INPUTS = ["current", "token_pixels", "token_positions", "token_mask", "step", "text"]
CAMERAS = ["head", "left_wrist", "right_wrist"]
FLOW_STEPS = 10
SWITCH_COUNT = 3
THRESHOLD = 0.5
PARITY_SEED = 12345
PARITY_STEPS = 3


def load(ckpt_path: str) -> Tuple[Dict[str, Any], Dims, Mem0Tiny]:
    """A training checkpoint (checkpoint.py: read weights-only) and its model, in eval mode."""
    ckpt = load_checkpoint(ckpt_path)
    d = Dims(**ckpt["dims"])
    model = Mem0Tiny(d)
    model.load_state_dict(ckpt["state_dict"])
    model.eval()
    return ckpt, d, model


def export_onnx(model: Mem0Tiny, d: Dims, out: str) -> None:
    """Writes the four ONNX files of the bundle contract into `out`."""
    F, K, T, H, A, S = d.feature_dim, d.window, d.summary_tokens, d.horizon, d.action_dim, d.state_dim
    enc_in = (
        torch.zeros(1, d.cameras, 3, d.height, d.width),
        torch.zeros(1, S),
        torch.ones(1, d.max_tokens, dtype=torch.int64),
    )
    torch.onnx.export(
        model.encoder,
        enc_in,
        os.path.join(out, "encoder.onnx"),
        opset_version=OPSET,
        input_names=["images", "state", "tokens"],
        output_names=["image_feature", "text_feature"],
        dynamic_axes={n: {0: "batch"} for n in ["images", "state", "tokens", "image_feature", "text_feature"]},
    )
    if d.token_dim:
        mem_in = (
            torch.zeros(1, F),
            torch.zeros(1, K, d.token_dim),
            torch.zeros(1, K, 3),
            torch.ones(1, K),
            torch.zeros(1, 1),
            torch.zeros(1, F),
        )
    else:
        mem_in = (
            torch.zeros(1, F),
            torch.zeros(1, K, F),
            torch.ones(1, K),
            torch.zeros(1, 1, F),
            torch.ones(1, 1),
            torch.zeros(1, F),
        )
    torch.onnx.export(
        model.memory,
        mem_in,
        os.path.join(out, "memory.onnx"),
        opset_version=OPSET,
        input_names=TOKEN_MEMORY_INPUTS if d.token_dim else FRAME_MEMORY_INPUTS,
        output_names=["summary"],
    )
    torch.onnx.export(
        model.classifier,
        (torch.zeros(1, T, F), torch.zeros(1, S)) if d.classifier_state else (torch.zeros(1, T, F),),
        os.path.join(out, "classifier.onnx"),
        opset_version=OPSET,
        input_names=["summary", "state"] if d.classifier_state else ["summary"],
        output_names=["logit"],
    )
    head_in = (torch.zeros(1, H, A), torch.zeros(1, 1), torch.zeros(1, S), torch.zeros(1, T, F))
    torch.onnx.export(
        model.action_head,
        head_in,
        os.path.join(out, "action_head.onnx"),
        opset_version=OPSET,
        input_names=["noisy_actions", "tau", "state", "summary"],
        output_names=["velocity"],
    )


def embeddable(vocabulary: Dict[str, Sequence[int]], vocab_size: int) -> Dict[str, Sequence[int]]:
    """The entries whose token ids the encoder's embedding has rows for (the runtime refuses a bundle with others)."""
    return {text: ids for text, ids in vocabulary.items() if all(i < vocab_size for i in ids)}


def pin_models(m: Dict[str, Any], out: str) -> Dict[str, Any]:
    """Writes each model's SHA-256 after its file name (the runtime loads only the files the manifest pins)."""
    for key, spec in m["models"].items():
        with open(os.path.join(out, spec["file"]), "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        m["models"][key] = {"file": spec["file"], "sha256": digest, **{k: v for k, v in spec.items() if k != "file"}}
    return m


def manifest(
    name: str,
    d: Dims,
    ckpt: Dict[str, Any],
    noise_scale: float,
    switch_count: int = SWITCH_COUNT,
    threshold: float = THRESHOLD,
    rearm: bool = False,
) -> Dict[str, Any]:
    """policy.yaml's content for a checkpoint (models not yet pinned: pin_models)."""
    st = ckpt["stats"]
    dims = list(range(d.state_dim))
    r6 = lambda xs: [round(float(x), 6) for x in xs]
    t = lambda n, shape, ty="float32": {"name": n, "type": ty, "shape": shape}
    F, K, T, H, A, S = d.feature_dim, d.window, d.summary_tokens, d.horizon, d.action_dim, d.state_dim
    voc = ckpt["vocabulary"]
    return {
        "format_version": 1,
        "kind": "mem0",
        "name": name,
        "cameras": ckpt.get("cameras", CAMERAS[: d.cameras]),
        "image": {
            "width": d.width,
            "height": d.height,
            "pixel_normalization": {"mean": [0.5, 0.5, 0.5], "std": [0.5, 0.5, 0.5]},
        },
        "layout": {"state": ckpt.get("layout", "bimanual_16d"), "action": ckpt.get("layout", "bimanual_16d")},
        "state_dim": S,
        "action_dim": A,
        "action_reference": ckpt.get("action_reference", "absolute"),
        "normalization": {
            "state": {"kind": "mean_std", "dims": dims, "mean": r6(st["state_mean"]), "std": r6(st["state_std"])},
            "action": (
                {"kind": "mean_std", "dims": list(range(A)), "mean": r6(st["action_mean"]), "std": r6(st["action_std"])}
                if ckpt.get("action_norm", "min_max") == "mean_std"
                else {
                    "kind": "min_max",
                    "dims": list(range(A)),
                    "min": r6(st["action_min"]),
                    "max": r6(st["action_max"]),
                }
            ),
        },
        "tokenizer": {
            "kind": "closed_vocabulary",
            "max_length": voc["max_length"],
            "pad_id": voc["pad_id"],
            "vocabulary": embeddable(voc["vocabulary"], d.vocab_size),
        },
        "horizon": H,
        "flow_steps": FLOW_STEPS,
        "flow_noise_scale": noise_scale,
        "control_hz": ckpt.get("control_hz", 10),
        "memory": {
            "window": K,
            "anchor": bool(ckpt["ablation"]["anchor"]),
            "feature_dim": F,
            "summary_tokens": T,
            **({"strategy": ckpt["memory_strategy"]} if ckpt.get("memory_strategy", "mem0") != "mem0" else {}),
            **({"tokendrop": tokendrop_section(ckpt)} if d.token_dim else {}),
        },
        "classifier": {"threshold": threshold, "switch_count": switch_count, **({"rearm": True} if rearm else {})},
        "models": {
            "encoder": {
                "file": "encoder.onnx",
                "inputs": {
                    "images": t("images", ["batch", d.cameras, 3, d.height, d.width]),
                    "state": t("state", ["batch", S]),
                    "tokens": t("tokens", ["batch", d.max_tokens], "int64"),
                },
                "outputs": {
                    "image_feature": t("image_feature", ["batch", F]),
                    "text_feature": t("text_feature", ["batch", F]),
                },
            },
            "memory": {
                "file": "memory.onnx",
                "inputs": (
                    {
                        "current": t("current", [1, F]),
                        "token_pixels": t("token_pixels", [1, K, d.token_dim]),
                        "token_positions": t("token_positions", [1, K, 3]),
                        "token_mask": t("token_mask", [1, K]),
                        "step": t("step", [1, 1]),
                        "text": t("text", [1, F]),
                    }
                    if d.token_dim
                    else {
                        "current": t("current", [1, F]),
                        "window": t("window", [1, K, F]),
                        "window_mask": t("window_mask", [1, K]),
                        "anchor": t("anchor", [1, 1, F]),
                        "anchor_mask": t("anchor_mask", [1, 1]),
                        "text": t("text", [1, F]),
                    }
                ),
                "outputs": {"summary": t("summary", [1, T, F])},
            },
            "classifier": {
                "file": "classifier.onnx",
                "inputs": {
                    "summary": t("summary", [1, T, F]),
                    **({"state": t("state", [1, S])} if d.classifier_state else {}),
                },
                "outputs": {"logit": t("logit", [1, 1])},
            },
            "action_head": {
                "file": "action_head.onnx",
                "inputs": {
                    "noisy_actions": t("noisy_actions", [1, H, A]),
                    "tau": t("tau", [1, 1]),
                    "state": t("state", [1, S]),
                    "summary": t("summary", [1, T, F]),
                },
                "outputs": {"velocity": t("velocity", [1, H, A])},
            },
        },
    }


def tokendrop_section(ckpt: Dict[str, Any]) -> Dict[str, Any]:
    """The manifest's memory.tokendrop: the scoring rule's sizes and the cameras scored (the first token_views)."""
    spec, views = ckpt["tokendrop"], ckpt["dims"]["token_views"]
    return {"stride": spec["stride"], "kept": spec["kept"], "grid": spec["grid"], "cameras": ckpt["cameras"][:views]}


# --- The runtime's seeded noise (src/policy/mem0/flowSampler.ts), ported bit for bit. ---


def _imul(a, b):
    return (a * b) & 0xFFFFFFFF


def chunk_seed(episode_seed: int, chunk_index: int) -> int:
    """The seed of one chunk's starting noise (flowSampler.ts chunkSeed)."""
    h = (_imul(episode_seed & 0xFFFFFFFF, 0x9E3779B1) ^ _imul(chunk_index & 0xFFFFFFFF, 0x85EBCA6B)) & 0xFFFFFFFF
    h = _imul(h ^ (h >> 16), 0x21F0AAAD)
    h = _imul(h ^ (h >> 15), 0x735A2D97)
    return (h ^ (h >> 15)) & 0xFFFFFFFF


def mulberry32(seed: int) -> Callable[[], float]:
    """flowSampler.ts's uniform generator: returns a function drawing the next float in [0, 1)."""
    a = seed & 0xFFFFFFFF

    def nxt():
        nonlocal a
        a = (a + 0x6D2B79F5) & 0xFFFFFFFF
        t = a
        t = _imul(t ^ (t >> 15), t | 1)
        t ^= (t + _imul(t ^ (t >> 7), t | 61)) & 0xFFFFFFFF
        return ((t ^ (t >> 14)) & 0xFFFFFFFF) / 4294967296

    return nxt


def gaussian_noise(n: int, seed: int) -> np.ndarray:
    """n standard normal float32 draws (Box-Muller over mulberry32), as flowSampler.ts draws them."""
    u = mulberry32(seed)
    out = np.zeros(n, dtype=np.float32)
    for i in range(0, n, 2):
        u1, u2 = 1 - u(), u()
        r = math.sqrt(-2 * math.log(u1))
        out[i] = r * math.cos(2 * math.pi * u2)
        if i + 1 < n:
            out[i + 1] = r * math.sin(2 * math.pi * u2)
    return out


# --- Deterministic parity inputs (the test recomputes them with the same formulas). ---


def parity_images(d: Dims, step: int) -> np.ndarray:
    """The deterministic parity images of `step`, flat over [C, 3, H, W]."""
    i = np.arange(d.cameras * 3 * d.height * d.width, dtype=np.float64)
    return (np.sin(0.37 * i + 1.3 * step) * 0.9).astype(np.float32)


def parity_state(mean: Sequence[float], std: Sequence[float], step: int) -> np.ndarray:
    """The deterministic parity state of `step`, robot units."""
    k = np.arange(len(mean), dtype=np.float64)
    return (np.asarray(mean) + np.asarray(std) * np.sin(0.5 * k + step) * 0.5).astype(np.float32)


def parity(model: Mem0Tiny, d: Dims, m: Dict[str, Any]) -> Dict[str, Any]:
    """Torch outputs of the whole observe/act path (what Mem0Policy computes) on deterministic inputs."""
    st, ac = m["normalization"]["state"], m["normalization"]["action"]
    instruction = next(iter(m["tokenizer"]["vocabulary"]))
    ids = m["tokenizer"]["vocabulary"][instruction]
    tokens = torch.zeros(1, d.max_tokens, dtype=torch.int64)
    tokens[0, : len(ids)] = torch.tensor(ids)
    use_anchor = m["memory"]["anchor"]
    strategy = m["memory"].get("strategy", "mem0")
    F, K = d.feature_dim, d.window
    steps, feats, anchor = [], [], None
    tokendrop = m["memory"].get("tokendrop")
    if tokendrop:  # enough steps for a score (frame 0's patches, then the changed ones at step stride - 1)
        tokens_memory = TokenDropMemory(K, tokendrop["stride"], tokendrop["kept"], tokendrop["grid"])
        views, patch_history, n_steps = len(tokendrop["cameras"]), [], tokendrop["stride"] + 2
    with torch.no_grad():
        for s in range(n_steps if tokendrop else PARITY_STEPS):
            state_robot = parity_state(st["mean"], st["std"], s)
            state = torch.from_numpy(
                (state_robot - np.asarray(st["mean"], np.float32)) / np.asarray(st["std"], np.float32)
            ).unsqueeze(0)
            images = torch.from_numpy(parity_images(d, s)).reshape(1, d.cameras, 3, d.height, d.width)
            feat, text = model.encoder(images, state, tokens)
            if use_anchor and anchor is None:
                anchor = feat.clone()
            if tokendrop:
                frame = images[0, :views].permute(0, 2, 3, 1).numpy()  # [V, H, W, 3] in [-1, 1]
                read = tokens_memory.write(frame)
                patch_history.append(patch_pixels(frame[None], tokendrop["grid"])[0])
                per_view = tokendrop["grid"] ** 2
                read_tokens, positions, mask = torch.zeros(1, K, d.token_dim), torch.zeros(1, K, 3), torch.zeros(1, K)
                for j, (step, view, patch) in enumerate(read):
                    read_tokens[0, j] = torch.from_numpy(patch_history[step][view * per_view + patch])
                    positions[0, j] = torch.tensor([step, view, patch], dtype=torch.float32)
                    mask[0, j] = 1
                summary = model.memory(feat, read_tokens, positions, mask, torch.full((1, 1), float(s)), text)
            else:
                window = torch.zeros(1, K, F)
                wmask = torch.zeros(1, K)
                # What the runtime's strategy reads: mem0 the K frames before this one; framesamp K of all so far
                # (this one included); none nothing.
                read = {
                    "mem0": feats[-K:],
                    "framesamp": [(feats + [feat])[i] for i in frame_sampling_indices(s, K)],
                    "none": [],
                }[strategy]
                for j, f in enumerate(read):
                    window[0, j] = f[0]
                    wmask[0, j] = 1
                amask = torch.ones(1, 1) if anchor is not None else torch.zeros(1, 1)
                anc = anchor.unsqueeze(1) if anchor is not None else torch.zeros(1, 1, F)
                summary = model.memory(feat, window, wmask, anc, amask, text)
            logit = model.classifier(summary, state)
            feats.append(feat)
            steps.append(
                {
                    "state": state_robot.tolist(),
                    "image_feature": feat[0].tolist(),
                    "text_feature": text[0].tolist(),
                    "summary": summary.flatten().tolist(),
                    "logit": float(logit[0, 0]),
                }
            )
        H, A = d.horizon, d.action_dim
        x = torch.from_numpy(gaussian_noise(H * A, chunk_seed(PARITY_SEED, 0))).reshape(1, H, A) * m["flow_noise_scale"]
        n = m["flow_steps"]
        for k in range(n):
            x = x + (1.0 / n) * model.action_head(x, torch.full((1, 1), k / n), state, summary)
        if ac["kind"] == "mean_std":
            chunk = x[0].numpy() * np.asarray(ac["std"], np.float32) + np.asarray(ac["mean"], np.float32)
        else:
            lo, hi = np.asarray(ac["min"], np.float32), np.asarray(ac["max"], np.float32)
            chunk = (x[0].numpy() + 1) / 2 * (hi - lo) + lo
        if m["action_reference"] == "state":
            chunk = chunk + state_robot[None, :]
    return {
        "instruction": instruction,
        "seed": PARITY_SEED,
        "steps": steps,
        "chunk": chunk.flatten().tolist(),
        "inputs": "images[i] = float32(sin(0.37 i + 1.3 step) * 0.9) over [C, 3, H, W]; "
        "state[k] = float32(mean[k] + std[k] * sin(0.5 k + step) * 0.5) in robot units (manifest state stats)",
    }


def main(argv: Optional[Sequence[str]] = None, prog: Optional[str] = None) -> None:
    """`python -m engram_ml export CHECKPOINT OUT`."""
    ap = argparse.ArgumentParser(prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("checkpoint", help="training checkpoint (.pt) from `train policy` or `train end-to-end`")
    ap.add_argument("out", help="bundle folder to write (created; its files are replaced)")
    ap.add_argument("--name", default="mem0-tiny", help="the manifest's policy name (default mem0-tiny)")
    ap.add_argument(
        "--noise-scale",
        type=float,
        default=1.0,
        help="manifest flow_noise_scale: scale of the sampler's starting noise (default 1; shipped: 0)",
    )
    ap.add_argument(
        "--switch-count",
        type=int,
        default=SWITCH_COUNT,
        help=f"manifest classifier.switch_count: positive ticks that declare a subtask end (default {SWITCH_COUNT})",
    )
    ap.add_argument(
        "--threshold",
        type=float,
        default=THRESHOLD,
        help=f"manifest classifier.threshold: the probability a tick counts as positive from (default {THRESHOLD})",
    )
    ap.add_argument(
        "--rearm",
        action="store_true",
        help="manifest classifier.rearm: after an end, count again only once a tick falls below the threshold",
    )
    args = ap.parse_args(argv)
    if args.switch_count < 1:
        raise SystemExit(f"export: --switch-count must be at least 1, got {args.switch_count}")
    if not 0 < args.threshold < 1:
        raise SystemExit(f"export: --threshold must be between 0 and 1, got {args.threshold}")
    ckpt, d, model = load(args.checkpoint)
    os.makedirs(args.out, exist_ok=True)
    export_onnx(model, d, args.out)
    m = pin_models(manifest(args.name, d, ckpt, args.noise_scale, args.switch_count, args.threshold, args.rearm), args.out)
    tr = ckpt["train"]
    recipe = ckpt.get("recipe", "expert demonstrations: train end-to-end")
    seeds = f"seeds {min(tr['seeds'])}-{max(tr['seeds'])}"
    window = "on" if ckpt["ablation"]["window"] else "OFF (run with policy.sliding: false)"
    header = (
        f"# Generated by engram_ml.mem0_tiny.export from {os.path.basename(args.checkpoint)}: "
        f"trained {tr['steps']} steps ({tr['seconds']:.0f} s wall, {tr.get('cpu_seconds', float('nan')):.0f} s CPU) "
        f"on {tr['episodes']} {recipe} episodes of {', '.join(tr['tasks'])} ({seeds}).\n"
        f"# Ablation at training: anchor {'on' if ckpt['ablation']['anchor'] else 'OFF'}, sliding window {window}.\n"
    )
    strategy = ckpt.get("memory_strategy", "mem0")
    if strategy != "mem0":
        header = header.split("# Ablation")[0] + f"# Memory at training: {MEMORY_READS[strategy].format(K=d.window)}.\n"
    with open(os.path.join(args.out, "policy.yaml"), "w") as f:
        f.write(header + yaml.safe_dump(m, sort_keys=False, width=160, default_flow_style=None, allow_unicode=True))
    with open(os.path.join(args.out, "parity.json"), "w") as f:
        json.dump(parity(model, d, m), f)
    with open(os.path.join(args.out, "train_log.json"), "w") as f:
        # The debounce is tuned to the target's length; checkpoints from before --end-frames trained on 8.
        target = ckpt.get("classifier_target", {"end_frames": 8, "retrained_alone": False})
        json.dump({"dims": ckpt["dims"], "ablation": ckpt["ablation"], "classifier_target": target, **tr}, f)
    print(
        f"wrote {args.out}/{{policy.yaml,encoder.onnx,memory.onnx,classifier.onnx,action_head.onnx,"
        "parity.json,train_log.json}"
    )


if __name__ == "__main__":
    main()
