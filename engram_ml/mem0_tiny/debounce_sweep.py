"""Chooses the subtask-end debounce (the manifest's classifier threshold and switch count) on the states the policy
itself reaches: the classifier logits that `engram run` writes (logits-episode-*.json) in GT-classifier rows
(`classifier: oracle`). There the memory is cleared at the twin's true ends, so each true subtask is replayed on
its own: from its first tick to its true end, the debounce either declares an end within 5 steps of it (right),
more than 5 steps before it (early: the plan moves on as if the subtask were done), or not at all (missed).
Expert episodes (classifier_eval) score the classifier on the expert's states, which the policy does not reach.

  python -m engram_ml.mem0_tiny.debounce_sweep --current 0.5,8 runs/val/mn-gt-classifier-press-button runs/val/...
"""

import argparse
import glob
import json
import math
import os
from typing import Dict, List, Optional, Sequence, Tuple

from engram_ml.mem0_tiny.classifier_eval import TOLERANCE_STEPS, debounce

THRESHOLDS = (0.5, 0.6, 0.7, 0.8, 0.9)
SWITCH_COUNTS = tuple(range(1, 11))  # 1-2 for a classifier trained on a short end target


def probability(logit: object) -> float:
    """sigmoid(logit); a logit the run wrote as null (NaN: the runtime counts it as negative) is 0."""
    if not isinstance(logit, (int, float)) or math.isnan(logit):
        return 0.0
    return 0.5 * (1 + math.tanh(logit / 2))  # the logistic function, without overflow


def run_subtasks(run_dir: str) -> List[Tuple[List[float], int]]:
    """Each true subtask of a run folder's episodes: (its ticks' probabilities, the index of its true end)."""
    files = sorted(glob.glob(os.path.join(run_dir, "logits-episode-*.json")))
    if not files:
        raise SystemExit(f"debounce_sweep: no logits-episode-*.json in {run_dir} (an `engram run` folder)")
    out = []
    for path in files:
        try:
            with open(path) as f:
                episode = json.load(f)
        except ValueError as e:  # a truncated or corrupt side file
            raise SystemExit(f"debounce_sweep: {path}: not JSON ({e})")
        fields = episode if isinstance(episode, dict) else {}
        if not isinstance(fields.get("logits"), list) or not isinstance(fields.get("truth"), list):
            raise SystemExit(f"debounce_sweep: {path}: expected the fields logits and truth (lists)")
        probabilities = [probability(x) for x in episode["logits"]]
        start = 0
        for end in sorted(episode["truth"]):
            if end >= len(probabilities):
                raise SystemExit(f"debounce_sweep: {path}: true end {end} past its {len(probabilities)} logits")
            out.append((probabilities[start : end + 1], end - start))
            start = end + 1
    return out


def sweep(
    subtasks: Sequence[Tuple[List[float], int]],
    thresholds: Sequence[float] = THRESHOLDS,
    switch_counts: Sequence[int] = SWITCH_COUNTS,
) -> Dict[Tuple[float, int], Dict[str, int]]:
    """Per (threshold, switch count): how many true subtasks the debounce ends right, early, or misses."""
    out = {}
    for threshold in thresholds:
        for n in switch_counts:
            tally = {"right": 0, "early": 0, "missed": 0}
            for probabilities, end in subtasks:
                declared = debounce(probabilities, threshold, n)
                if not declared:
                    tally["missed"] += 1
                elif declared[0] < end - TOLERANCE_STEPS:
                    tally["early"] += 1
                else:
                    tally["right"] += 1
            out[(threshold, n)] = tally
    return out


def main(argv: Optional[Sequence[str]] = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="+", help="`engram run` folders of GT-classifier rows")
    ap.add_argument("--top", type=int, default=8, help="settings to print, best first (default 8)")
    ap.add_argument("--current", help="the bundle's threshold,switch_count (e.g. 0.5,8), printed beside the best")
    args = ap.parse_args(argv)
    current = None
    if args.current:
        try:
            threshold, n = args.current.split(",")
            current = (float(threshold), int(n))
            if not (0 < current[0] < 1 and current[1] >= 1):
                raise ValueError
        except ValueError:
            raise SystemExit(f"debounce_sweep: --current expects THRESHOLD,SWITCH_COUNT (e.g. 0.5,8): {args.current!r}")
    grid = (sorted({*THRESHOLDS, current[0]}), sorted({*SWITCH_COUNTS, current[1]})) if current else ()
    per_run = {run: sweep(run_subtasks(run), *grid) for run in args.runs}
    settings = next(iter(per_run.values())).keys()
    # An early end moves the plan on, which no later tick undoes; so rank by right minus early.
    total = {s: sum(r[s]["right"] - r[s]["early"] for r in per_run.values()) for s in settings}
    shown = sorted(settings, key=lambda s: -total[s])[: args.top]
    if current and current not in shown:
        shown.append(current)
    for threshold, n in shown:
        cells = "  ".join(
            f"{os.path.basename(run.rstrip('/'))}: {r[(threshold, n)]['right']} right / "
            f"{r[(threshold, n)]['early']} early / {r[(threshold, n)]['missed']} missed"
            for run, r in per_run.items()
        )
        print(f"threshold {threshold} switch_count {n}: score {total[(threshold, n)]}  {cells}")


if __name__ == "__main__":
    main()
