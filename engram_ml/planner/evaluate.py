"""Scores a trained planner on held-out planner calls (dataset.py's format): accuracy of its answer
against the ground-truth next subtask, overall, per task and per call (episode start, after k
finished subtasks), and the share of episodes whose every call is right (the whole plan, as a
perfect executor would follow it). A planner trained without key memory is scored as the runtime
feeds it, its key memory hidden.

  python -m engram_ml.planner.evaluate --data data/planner/heldout --checkpoint runs/planner/planner.pt \
      [--json out.json]
"""

import argparse
import json
from collections import defaultdict
from typing import Dict, List, Optional, Sequence

import torch

from engram_ml.planner.dataset import PlannerData, load_planner_data
from engram_ml.planner.export import load_planner_checkpoint
from engram_ml.planner.model import PlannerNet

INPUTS = ("task", "initial_image", "key_images", "key_subtasks", "key_mask")


def answers(model: PlannerNet, data: PlannerData, key_memory: bool, batch: int = 128) -> torch.Tensor:
    """The model's answer (class index) for every call."""
    x = dict(data.inputs)
    if not key_memory:
        x["key_mask"] = torch.zeros_like(x["key_mask"])
    out: List[torch.Tensor] = []
    with torch.no_grad():
        for i in range(0, len(data), batch):
            out.append(model(*(x[k][i:i + batch] for k in INPUTS)).argmax(dim=1))
    return torch.cat(out)


def score(data: PlannerData, got: torch.Tensor) -> Dict[str, object]:
    """Accuracy overall, per task, per number of finished subtasks; whole-plan rate per task."""
    right = (got == data.next).tolist()
    tasks = data.inputs["task"].reshape(-1).tolist()
    finished = data.inputs["key_mask"].sum(dim=1).long().tolist()
    per_task: Dict[str, List[int]] = defaultdict(list)
    per_call: Dict[int, List[int]] = defaultdict(list)
    plans: Dict[str, List[int]] = defaultdict(list)
    episode_ok = True
    for i, ok in enumerate(right):
        name = data.tasks[tasks[i]]
        per_task[name].append(ok)
        per_call[finished[i]].append(ok)
        # An episode's calls are consecutive, the first with nothing finished.
        if finished[i] == 0 and i > 0:
            plans[data.tasks[tasks[i - 1]]].append(int(episode_ok))
            episode_ok = True
        episode_ok = episode_ok and bool(ok)
    if right:
        plans[data.tasks[tasks[-1]]].append(int(episode_ok))
    rate = lambda xs: {"right": sum(xs), "calls": len(xs), "accuracy": round(sum(xs) / max(1, len(xs)), 4)}
    return {
        "overall": rate(right),
        "per_task": {
            t: {**rate(v), "plans_right": sum(plans[t]), "episodes": len(plans[t])} for t, v in per_task.items()
        },
        "per_finished": {str(k): rate(v) for k, v in sorted(per_call.items())},
    }


def main(argv: Optional[Sequence[str]] = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", required=True, help="held-out planner calls (npz or collect.ts folder)")
    ap.add_argument("--checkpoint", required=True, help="planner.pt from python -m engram_ml train planner")
    ap.add_argument("--json", help="write the scores here")
    args = ap.parse_args(argv)
    ckpt = load_planner_checkpoint(args.checkpoint)
    data = load_planner_data(args.data)
    if list(data.tasks) != list(ckpt["tasks"]) or list(data.vocabulary) != list(ckpt["vocabulary"]):
        why = "(collect both with the same --tasks)"
        raise SystemExit(f"{args.data}: tasks/vocabulary differ from {args.checkpoint}'s {why}")
    model = ckpt["model"]
    model.eval()
    result = score(data, answers(model, data, bool(ckpt.get("key_memory", True))))
    result["key_memory"] = bool(ckpt.get("key_memory", True))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
