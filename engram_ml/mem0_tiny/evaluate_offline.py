"""Offline check of mem0-tiny checkpoints on converted episodes (e.g. held-out seeds): the action
chunk sampled by flow matching (N Euler steps from Gaussian noise, as the runtime does) against the
expert's chunk, as mean squared error in normalized action units (per annotated subtask) and mean
absolute error in robot units (rad, m); and the classifier's precision/recall on the end labels.
Memory is built as in training (data.py), with the checkpoint's own ablation switches. Prints one
JSON line per checkpoint.

  python -m engram_ml evaluate-offline --data data/npy-heldout [--tasks put-back-block] runs/mem0-tiny/main.pt ...
"""

import argparse
import json
from typing import Any, Dict, Optional, Sequence

import torch

from engram_ml.mem0_tiny.data import Episodes
from engram_ml.mem0_tiny.end_to_end import Batch
from engram_ml.mem0_tiny.export import FLOW_STEPS, load


def evaluate(
    path: str,
    data: str,
    tasks: Optional[Sequence[str]] = None,
    seed: int = 0,
    batch_size: int = 128,
    noise_scale: float = 1.0,
) -> Dict[str, Any]:
    """One checkpoint's offline errors and classifier precision/recall on the episodes in `data`."""
    ckpt, d, model = load(path)
    ds = Episodes(data, d.window, tasks=tasks)
    stats = {k: torch.tensor(v) for k, v in ckpt["stats"].items()}
    batch = Batch(
        ds, stats, d.horizon, ckpt.get("action_reference", "absolute") == "state", ckpt.get("action_norm", "min_max")
    )
    use_anchor, use_window = ckpt["ablation"]["anchor"], ckpt["ablation"]["window"]
    # Annotated subtask index of every frame (0, 1, 2, ... within its episode).
    phase = torch.zeros(ds.n, dtype=torch.long)
    offset = 0
    for meta in ds.metas:
        for i, s in enumerate(sorted(meta["segments"], key=lambda s: s["start"])):
            phase[offset + s["start"] : offset + s["end"] + 1] = i
        offset += meta["frames"]
    g = torch.Generator().manual_seed(seed)
    err = torch.zeros(ds.n)
    err_robot = torch.zeros(ds.n)
    logits = torch.zeros(ds.n)
    with torch.no_grad():
        for lo in range(0, ds.n, batch_size):
            idx = torch.arange(lo, min(lo + batch_size, ds.n))
            s = batch.sample(idx)
            B, K = s["win"].shape
            frames, inverse = torch.unique(torch.cat([idx, s["anchor"], s["win"].flatten()]), return_inverse=True)
            feat, _ = model.encoder(batch.images[frames], batch.state[frames], ds.tokens[frames])
            text = model.encoder.text_feature(ds.tokens[idx])
            wmask = s["mask"] if use_window else torch.zeros_like(s["mask"])
            amask = torch.ones(B, 1) if use_anchor else torch.zeros(B, 1)
            window = feat[inverse[2 * B :]].reshape(B, K, -1) * wmask.unsqueeze(-1)
            anc = feat[inverse[B : 2 * B]].unsqueeze(1) * amask.unsqueeze(-1)
            summary = model.memory(feat[inverse[:B]], window, wmask, anc, amask, text)
            logits[idx] = model.classifier(summary).squeeze(-1)
            x = torch.randn(s["chunk"].shape, generator=g) * noise_scale
            for k in range(FLOW_STEPS):
                x = x + model.action_head(x, torch.full((B, 1), k / FLOW_STEPS), batch.state[idx], summary) / FLOW_STEPS
            err[idx] = ((x - s["chunk"]) ** 2).mean((1, 2))
            err_robot[idx] = (batch.denormalize_chunk(x) - s["chunk_raw"]).abs().mean((1, 2))
    pred = torch.sigmoid(logits) >= 0.5
    truth = ds.label > 0.5
    tp = (pred & truth).sum().item()
    return {
        "checkpoint": path,
        "ablation": ckpt["ablation"],
        "steps": ckpt["train"]["steps"],
        "episodes": len(ds.metas),
        "seeds": sorted({m["seed"] for m in ds.metas}),
        "frames": ds.n,
        "noise_scale": noise_scale,
        "action_mse": round(err.mean().item(), 4),
        "action_mean_abs_error_robot_units": round(err_robot.mean().item(), 4),
        "action_mse_by_subtask": [round(err[phase == i].mean().item(), 4) for i in range(int(phase.max()) + 1)],
        "classifier": {
            "precision": round(tp / max(pred.sum().item(), 1), 3),
            "recall": round(tp / max(truth.sum().item(), 1), 3),
        },
    }


def main(argv: Optional[Sequence[str]] = None, prog: Optional[str] = None) -> None:
    """`python -m engram_ml evaluate-offline --data DIR CHECKPOINT...`."""
    ap = argparse.ArgumentParser(prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", required=True, help="hdf5ToNpy.ts output folder (e.g. held-out seeds)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the sampler's starting noise (default 0)")
    ap.add_argument("--tasks", default="", help="comma-separated task ids (default: all)")
    ap.add_argument(
        "--noise-scale",
        type=float,
        default=1.0,
        help="scale of the starting noise (the manifest's flow_noise_scale; 0 = what the shipped bundles run)",
    )
    ap.add_argument("checkpoints", nargs="+", help="training checkpoints (.pt) to evaluate")
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    for path in args.checkpoints:
        print(
            json.dumps(
                evaluate(
                    path, args.data, [t for t in args.tasks.split(",") if t], args.seed, noise_scale=args.noise_scale
                )
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()
