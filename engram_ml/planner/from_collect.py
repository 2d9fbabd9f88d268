"""Planner calls from episodes run through the runtime (training/mem0_tiny/collect.ts, M(n) tasks): the
policy's first camera (the planner camera) at the episode's first frame and at each ground-truth subtask
end, with the twin's subtask list as the answers. This puts the end images of the states the execution
module really reaches (the reactive expert's, a policy's rollouts) into the planner's data, beside the
scripted expert's that training/planner/collect.ts captures.

A call is made at the start and after every true end the twin showed: the runtime's answer there is the
next subtask. No "done" call: a success ends the episode on the tick its last subtask ends, so no frame
shows that end (the last frame is one tick before it: Battery Try's lamp not yet green). The scripted
expert's calls (training/planner/collect.ts) teach "done".
The images are the policy's 128x96 view, not the planner's JPEG round trip: the two differ only by
JPEG's loss (quality 80).

  python -m engram_ml.planner.from_collect --data data/mn/it0 --texts training/planner/mn/planner.yaml \
      --out data/mn/planner-it0
"""

import argparse
import glob
import json
import os
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np
import yaml


def texts_of(path: str) -> Tuple[List[str], List[str]]:
    """(tasks, vocabulary) from a planner.yaml (its `planner` section) or a collect folder's texts.json."""
    with open(path, encoding="utf-8") as f:
        doc = yaml.safe_load(f)
    section = doc.get("planner", doc)
    return list(section["tasks"]), list(section["vocabulary"])


Call = Tuple[np.ndarray, List[np.ndarray], List[str], str]


def episode_calls(meta: Dict, images: np.ndarray, where: str) -> List[Call]:
    """[(initial CHW, end images CHW, finished texts, the next subtask)] of one episode."""
    texts = meta["subtasks"]
    ends = [int(e) for e in meta["subtask_end"]]
    if len(ends) >= len(texts):
        raise ValueError(f"{where}: {len(ends)} subtask ends seen, but the plan has {len(texts)} subtasks")
    chw = lambda t: np.ascontiguousarray(images[t, 0].transpose(2, 0, 1))
    initial = chw(0)
    return [(initial, [chw(e) for e in ends[:done]], texts[:done], texts[done]) for done in range(len(ends) + 1)]


def collect_calls(dirs: Sequence[str], tasks: List[str], vocabulary: List[str], slots: int) -> Dict[str, np.ndarray]:
    """The arrays of engram_ml/planner/dataset.py for every M(n) episode in `dirs`."""
    rows = []
    for d in dirs:
        for meta_path in sorted(glob.glob(os.path.join(d, "*.json"))):
            with open(meta_path) as f:
                meta = json.load(f)
            if meta.get("tmc") != "Mn" or "subtasks" not in meta:
                continue
            if meta["instruction"] not in tasks:
                raise ValueError(f"{meta_path}: task {meta['instruction']!r} is not one of the planner's tasks")
            images = np.load(meta_path[: -len(".json")] + ".images.npy", mmap_mode="r")
            for initial, ends, finished, answer in episode_calls(meta, images, meta_path):
                rows.append((tasks.index(meta["instruction"]), initial, ends, finished, answer))
    if not rows:
        raise SystemExit(f"no M(n) episodes with subtask lists in {list(dirs)} (collect.ts writes them)")
    n, shape = len(rows), rows[0][1].shape
    out = {
        "task": np.array([r[0] for r in rows], dtype=np.int64),
        "initial_image": np.stack([r[1] for r in rows]),
        "key_images": np.zeros((n, slots, *shape), dtype=np.uint8),
        "key_subtasks": np.zeros((n, slots), dtype=np.int64),
        "key_mask": np.zeros((n, slots), dtype=np.uint8),
        "next": np.array([vocabulary.index(r[4]) for r in rows], dtype=np.int64),
    }
    for i, (_task, _initial, ends, finished, _answer) in enumerate(rows):
        kept = list(zip(ends, finished))[-slots:]  # the last M finished subtasks, oldest first
        for k, (image, text) in enumerate(kept):
            out["key_images"][i, k] = image
            out["key_subtasks"][i, k] = vocabulary.index(text)
            out["key_mask"][i, k] = 1
    return out


def main(argv: Optional[Sequence[str]] = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", required=True, help="comma-separated collect.ts folders")
    ap.add_argument("--texts", required=True, help="planner.yaml (or texts.json) whose tasks and vocabulary to use")
    ap.add_argument("--out", required=True, help="folder to write (dataset.py's layout)")
    ap.add_argument("--slots", type=int, default=8, help="key memory slots (default 8)")
    args = ap.parse_args(argv)
    tasks, vocabulary = texts_of(args.texts)
    try:
        arrays = collect_calls(args.data.split(","), tasks, vocabulary, args.slots)
    except ValueError as err:  # names the episode file and what disagrees with the plan
        raise SystemExit(f"from_collect: {err}")
    os.makedirs(args.out, exist_ok=True)
    for name, a in arrays.items():
        np.save(os.path.join(args.out, f"{name}.npy"), a)
    with open(os.path.join(args.out, "texts.json"), "w", encoding="utf-8") as f:
        json.dump({"tasks": tasks, "vocabulary": vocabulary}, f, indent=2)
    print(f"planner calls: {len(arrays['next'])} from {args.data} -> {args.out}")


if __name__ == "__main__":
    main()
