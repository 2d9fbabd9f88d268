"""Trains the learned planner on planner calls (dataset.py's npz format): cross-entropy over
vocabulary + done, Adam, a wall-clock or step budget; optionally exports into a bundle.

  python -m engram_ml train planner --data calls.npz[,more.npz] --out runs/planner [--bundle policies/<name>]

With --no-key-memory every call's key memory is hidden (mask 0), as the runtime feeds a planner
under `policy.key_memory: false` (RMBench's "w/o Key"). Writes <out>/planner.pt and <out>/train_log.json.
"""

import argparse
import json
import os
import time
from typing import Dict, List, Optional, Sequence

import torch
from torch import nn

from engram_ml.planner.dataset import PlannerData, load_planner_data
from engram_ml.planner.export import export_to_bundle
from engram_ml.planner.model import PlannerDims, PlannerNet


def merged(paths: Sequence[str]) -> PlannerData:
    """The datasets at `paths` as one; they must share tasks, vocabulary and sizes."""
    parts = [load_planner_data(p) for p in paths]
    first = parts[0]
    for p, d in zip(paths[1:], parts[1:]):
        if list(d.tasks) != list(first.tasks) or list(d.vocabulary) != list(first.vocabulary):
            raise ValueError(f"{p}: tasks/vocabulary differ from {paths[0]}'s (merge datasets of one bundle)")
    inputs = {k: torch.cat([d.inputs[k] for d in parts]) for k in first.inputs}
    return PlannerData(first.tasks, first.vocabulary, inputs, torch.cat([d.next for d in parts]))


def train(data: PlannerData, steps: int, minutes: float, batch: int, lr: float, dim: int, key_memory: bool,
          seed: int = 0, init: Optional[Dict[str, torch.Tensor]] = None) -> Dict[str, object]:
    """Trains a PlannerNet, from `init`'s weights when given: {"model", "log": [{"step", "loss", "accuracy"}]}."""
    torch.manual_seed(seed)
    x = dict(data.inputs)
    if not key_memory:
        x["key_mask"] = torch.zeros_like(x["key_mask"])
    n, m = x["key_mask"].shape
    h, w = x["initial_image"].shape[2:4]
    model = PlannerNet(PlannerDims(len(data.tasks), len(data.vocabulary), m, int(h), int(w), dim))
    if init is not None:
        model.load_state_dict(init)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    loss_fn = nn.CrossEntropyLoss()
    log: List[Dict[str, float]] = []
    t0 = time.monotonic()
    for step in range(steps):
        if time.monotonic() - t0 > minutes * 60:
            break
        idx = torch.randint(0, n, (min(batch, n),))
        logits = model(*(x[k][idx] for k in ("task", "initial_image", "key_images", "key_subtasks", "key_mask")))
        loss = loss_fn(logits, data.next[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 10 == 0 or step == steps - 1:
            acc = (logits.argmax(dim=1) == data.next[idx]).float().mean().item()
            log.append({"step": step, "loss": round(loss.item(), 5), "accuracy": round(acc, 4)})
            if step % 100 == 0:  # progress on long runs, one JSON line per 100 steps
                print(json.dumps({**log[-1], "s": round(time.monotonic() - t0, 1)}), flush=True)
    return {"model": model, "log": log}


def initial_weights(path: str) -> Dict[str, torch.Tensor]:
    """A planner's weights to start from: a planner.pt, or a folder holding a planner.onnx (e.g. training/planner/mn,
    whose initializers carry the parameters' names)."""
    if os.path.isdir(path):
        import onnx
        from onnx import numpy_helper

        model = onnx.load(os.path.join(path, "planner.onnx"))
        return {i.name: torch.from_numpy(numpy_helper.to_array(i).copy()) for i in model.graph.initializer}
    return torch.load(path, map_location="cpu", weights_only=True)["state"]


def build_parser(prog: Optional[str] = None) -> argparse.ArgumentParser:
    """The flags of `train planner`."""
    ap = argparse.ArgumentParser(prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", required=True, help="comma-separated npz files of planner calls (dataset.py)")
    ap.add_argument("--out", required=True, help="folder for planner.pt and train_log.json")
    ap.add_argument("--bundle", help="policy bundle to export planner.onnx and its manifest section into")
    ap.add_argument("--steps", type=int, default=2000, help="optimizer steps (default 2000)")
    ap.add_argument("--minutes", type=float, default=10.0, help="wall-clock budget (default 10)")
    ap.add_argument("--batch", type=int, default=64, help="calls per step (default 64)")
    ap.add_argument("--lr", type=float, default=1e-3, help="Adam learning rate (default 1e-3)")
    ap.add_argument("--dim", type=int, default=32, help="model width (default 32)")
    ap.add_argument("--no-key-memory", action="store_true", help="hide the key memory (the w/o Key ablation)")
    ap.add_argument("--threads", type=int, default=1, help="torch CPU threads (default 1)")
    ap.add_argument("--seed", type=int, default=0, help="torch's random seed (default 0)")
    ap.add_argument("--init", help="start from these weights: a planner.pt, or a folder with planner.onnx")
    return ap


def main(argv: Optional[Sequence[str]] = None, prog: Optional[str] = None) -> None:
    """`python -m engram_ml train planner ...`."""
    args = build_parser(prog).parse_args(argv)
    torch.set_num_threads(args.threads)
    data = merged(args.data.split(","))
    init = initial_weights(args.init) if args.init else None
    key_memory = not args.no_key_memory
    result = train(data, args.steps, args.minutes, args.batch, args.lr, args.dim, key_memory, args.seed, init)
    model: PlannerNet = result["model"]  # type: ignore[assignment]
    os.makedirs(args.out, exist_ok=True)
    torch.save({"dims": model.dims.to_dict(), "state": model.state_dict(), "tasks": list(data.tasks),
                "vocabulary": list(data.vocabulary), "key_memory": not args.no_key_memory},
               os.path.join(args.out, "planner.pt"))
    with open(os.path.join(args.out, "train_log.json"), "w") as f:
        json.dump(result["log"], f)
    if args.bundle:
        export_to_bundle(model, data.tasks, data.vocabulary, args.bundle)
    last = result["log"][-1] if result["log"] else {}
    figures = f"last loss {last.get('loss')}, accuracy {last.get('accuracy')}"
    print(f"planner: {len(data)} calls, {figures}; wrote {args.out}/planner.pt")


if __name__ == "__main__":
    main()
