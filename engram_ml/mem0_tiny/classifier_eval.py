"""The subtask-end classifier of a `train policy` checkpoint, offline, on held-out collect.ts episodes of the M(n)
tasks: every frame's logit with the memory as the episode ran (cleared at its segments' starts), then the
runtime's debounce (a declared end once `switch_count` ticks with sigmoid(logit) >= threshold have come since
the last one) for each switch count, matched to the twin's ends as summary.json does (a declared end within
+-5 steps of an unmatched true end; offset = declared - true). Per task: precision, recall, mean offset.

  python -m engram_ml.mem0_tiny.classifier_eval --checkpoint data/mn/runs/it0.pt \
      --perception data/mn/runs/perception.pt --data data/mn/heldout [--switch-counts 1-8]
"""

import argparse
import json
import os
from typing import Dict, List, Optional, Sequence, Tuple

import torch

from engram_ml.mem0_tiny.checkpoint import load_checkpoint
from engram_ml.mem0_tiny.data import Vocabulary
from engram_ml.mem0_tiny.model import Dims, Mem0Tiny
from engram_ml.mem0_tiny.train import Data, load_perception, perception_features, true_ends

TOLERANCE_STEPS = 5  # summarizeRun's default (src/trial/summary.ts)


def frame_logits(checkpoint: str, perception: str, dirs: List[str], batch: int = 256) -> Tuple[Data, torch.Tensor]:
    """Every frame's classifier logit [N], the memory read as in training (mem0: anchor + window)."""
    ckpt = load_checkpoint(checkpoint)
    d = Dims(**ckpt["dims"])
    model = Mem0Tiny(d)
    model.load_state_dict(ckpt["state_dict"])
    model.eval()
    data = Data(dirs, d.window, load_images=False)
    _, _, p = load_perception(perception)
    feats = perception_features(p, data, cache_key=perception)
    stats = {k: torch.tensor(v) for k, v in ckpt["stats"].items()}
    state_n = (data.state - stats["state_mean"]) / stats["state_std"]
    vocab = Vocabulary(os.path.join(dirs[0], "vocabulary.json"))
    tokens = torch.stack([torch.from_numpy(vocab.tokens(t, "classifier_eval")) for t in data.instructions])
    out = []
    with torch.no_grad():
        text_all = model.encoder.text_feature(tokens)
        fuse = lambda i: model.encoder.fused(feats[i], state_n[i])
        for s in range(0, data.n, batch):
            idx = torch.arange(s, min(s + batch, data.n))
            anchor_i, win_i, win_mask, shown = data.memory_indices(idx, ckpt.get("memory_strategy", "mem0"))
            B = idx.shape[0]
            window = fuse(win_i.flatten()).reshape(B, d.window, -1)
            anchor = fuse(anchor_i).unsqueeze(1)
            text = text_all[data.instruction[idx]]
            summary = model.memory(fuse(idx), window, win_mask, anchor, torch.full((B, 1), shown), text)
            out.append(model.classifier(summary, state_n[idx]).squeeze(-1))
    return data, torch.cat(out)


def debounce(probabilities: Sequence[float], threshold: float, switch_count: int, rearm: bool = False) -> List[int]:
    """The frames where the runtime's debounce declares an end (src/policy/mem0/subtaskDebounce.ts); with
    `rearm` the count after an end starts once a tick has fallen below the threshold."""
    ends, positives, armed = [], 0, True
    for t, p in enumerate(probabilities):
        if not armed:
            armed = p < threshold
            continue
        positives += 1 if p >= threshold else 0
        if positives >= switch_count:
            ends.append(t)
            positives, armed = 0, not rearm
    return ends


def match(
    declared: Sequence[int], truth: Sequence[int], tolerance: int = TOLERANCE_STEPS
) -> Tuple[int, int, int, List[int]]:
    """(tp, fp, fn, offsets): greedy in time order, the nearest unmatched true end within tolerance."""
    used, offsets = set(), []
    for dcl in declared:
        best = min(
            (i for i in range(len(truth)) if i not in used and abs(dcl - truth[i]) <= tolerance),
            key=lambda i: abs(dcl - truth[i]),
            default=None,
        )
        if best is not None:
            used.add(best)
            offsets.append(dcl - truth[best])
    return len(offsets), len(declared) - len(offsets), len(truth) - len(offsets), offsets


def scores(
    data: Data, logits: torch.Tensor, switch_counts: Sequence[int], threshold: float = 0.5, rearm: bool = False
) -> Dict:
    """Per task and switch count: precision, recall, mean offset (steps), over the episodes' true ends."""
    prob = torch.sigmoid(logits).tolist()
    per: Dict[str, Dict[int, List[int]]] = {}
    offsets: Dict[str, Dict[int, List[int]]] = {}
    start = 0
    for meta in data.metas:
        T = meta["frames"]
        truth = true_ends(meta)
        for n in switch_counts:
            tp, fp, fn, off = match(debounce(prob[start : start + T], threshold, n, rearm), truth)
            acc = per.setdefault(meta["task"], {}).setdefault(n, [0, 0, 0])
            acc[0], acc[1], acc[2] = acc[0] + tp, acc[1] + fp, acc[2] + fn
            offsets.setdefault(meta["task"], {}).setdefault(n, []).extend(off)
        start += T
    out: Dict = {}
    for task, by_n in per.items():
        for n, (tp, fp, fn) in by_n.items():
            off = offsets[task][n]
            out.setdefault(task, {})[n] = {
                "precision": round(tp / (tp + fp), 3) if tp + fp else None,
                "recall": round(tp / (tp + fn), 3) if tp + fn else None,
                "mean_offset_steps": round(sum(off) / len(off), 2) if off else None,
                "true_ends": tp + fn,
            }
    return out


def main(argv: Optional[Sequence[str]] = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--checkpoint", required=True, help="a `train policy` checkpoint")
    ap.add_argument("--perception", required=True, help="its perception checkpoint")
    ap.add_argument("--data", required=True, help="comma-separated held-out collect.ts folders")
    ap.add_argument("--switch-counts", default="1-8", help="switch counts to score, A-B (default 1-8)")
    ap.add_argument("--threshold", type=float, default=0.5, help="the debounce's probability threshold (default 0.5)")
    ap.add_argument("--rearm", action="store_true", help="the debounce's rearm (manifest classifier.rearm)")
    args = ap.parse_args(argv)
    bounds = args.switch_counts.split("-")
    if len(bounds) != 2 or not all(x.isdigit() for x in bounds) or not 1 <= int(bounds[0]) <= int(bounds[1]):
        raise SystemExit(f"classifier_eval: --switch-counts expects A-B with 1 <= A <= B, got {args.switch_counts!r}")
    a, b = int(bounds[0]), int(bounds[1])
    data, logits = frame_logits(args.checkpoint, args.perception, args.data.split(","))
    print(json.dumps({"checkpoint": args.checkpoint, "scores": scores(data, logits, range(a, b + 1), args.threshold, args.rearm)}))


if __name__ == "__main__":
    main()
