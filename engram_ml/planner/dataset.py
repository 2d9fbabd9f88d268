"""The planner's training data: one npz file (or a folder of .npy files + texts.json, as
training/planner/collect.ts writes) of planner calls, each with the answer it should give.

Arrays (N calls, M key-memory slots, h x w planner images; images as the runtime feeds them: the
planner camera's JPEG resized to h x w, RGB, channel first):

  tasks          [T] str       global task texts (planner.tasks of the bundle, in id order)
  vocabulary     [V] str       answers (planner.vocabulary, in class order); class V is "done"
  task           [N] int64     index into tasks
  initial_image  [N,3,h,w]     uint8
  key_images     [N,M,3,h,w]   uint8, end image of each finished subtask (last M, oldest first; zeros past the mask)
  key_subtasks   [N,M] int64   indices into vocabulary (0 past the mask)
  key_mask       [N,M] uint8   1 where a slot holds a finished subtask
  next           [N] int64     the ground-truth next subtask's index, or V for "done"
  pixel_mean, pixel_std [3] float32 (optional; default 0.5): the bundle's image.pixel_normalization
"""

import json
import os
from dataclasses import dataclass
from typing import Dict, Sequence

import numpy as np
import torch

REQUIRED = ("tasks", "vocabulary", "task", "initial_image", "key_images", "key_subtasks", "key_mask", "next")


@dataclass
class PlannerData:
    """A loaded dataset: texts, and the tensors PlannerNet takes (images normalized, float32)."""

    tasks: Sequence[str]
    vocabulary: Sequence[str]
    inputs: Dict[str, torch.Tensor]
    next: torch.Tensor

    def __len__(self) -> int:
        return int(self.next.shape[0])


def _read_folder(path: str) -> Dict[str, np.ndarray]:
    """A folder as training/planner/collect.ts writes it: <array>.npy files and texts.json {tasks, vocabulary}."""
    a = {f[:-4]: np.load(os.path.join(path, f), allow_pickle=False) for f in os.listdir(path) if f.endswith(".npy")}
    texts = os.path.join(path, "texts.json")
    if os.path.exists(texts):
        with open(texts, encoding="utf-8") as f:
            t = json.load(f)
        a["tasks"], a["vocabulary"] = np.array(t["tasks"]), np.array(t["vocabulary"])
    return a


def load_planner_data(path: str) -> PlannerData:
    """Reads and checks one npz file or folder; raises ValueError naming it, the array and what was wrong."""
    if os.path.isdir(path):
        a = _read_folder(path)
    else:
        with np.load(path, allow_pickle=False) as z:
            a = {k: z[k] for k in z.files}
    missing = [k for k in REQUIRED if k not in a]
    if missing:
        raise ValueError(f"{path}: missing array(s) {', '.join(missing)} (expected {', '.join(REQUIRED)})")
    n, m = a["key_mask"].shape[0], a["key_mask"].shape[1]
    h, w = a["initial_image"].shape[2:4]
    want = {
        "task": (n,), "initial_image": (n, 3, h, w), "key_images": (n, m, 3, h, w),
        "key_subtasks": (n, m), "key_mask": (n, m), "next": (n,),
    }
    for k, shape in want.items():
        if a[k].shape != shape:
            raise ValueError(f"{path}: array {k} has shape {list(a[k].shape)}, expected {list(shape)} (N={n}, M={m})")
    for k in ("initial_image", "key_images"):
        if a[k].dtype != np.uint8:
            raise ValueError(f"{path}: array {k} has dtype {a[k].dtype}, expected uint8 (RGB bytes)")
    t, v = len(a["tasks"]), len(a["vocabulary"])
    for k, top in (("task", t), ("key_subtasks", v), ("next", v + 1)):
        bad = (a[k] < 0) | (a[k] >= top)
        if bad.any():
            raise ValueError(f"{path}: array {k} holds {int(a[k][bad][0])}, expected indices in [0, {top})")
    mean = a.get("pixel_mean", np.full(3, 0.5, np.float32)).reshape(1, 3, 1, 1)
    std = a.get("pixel_std", np.full(3, 0.5, np.float32)).reshape(1, 3, 1, 1)

    def norm(x: np.ndarray) -> torch.Tensor:
        shape = x.shape
        y = (x.reshape(-1, 3, h, w).astype(np.float32) / 255.0 - mean) / std
        return torch.from_numpy(y.reshape(shape).astype(np.float32))

    inputs = {
        "task": torch.from_numpy(a["task"].astype(np.int64)).reshape(n, 1),
        "initial_image": norm(a["initial_image"]),
        "key_images": norm(a["key_images"]),
        "key_subtasks": torch.from_numpy(a["key_subtasks"].astype(np.int64)),
        "key_mask": torch.from_numpy(a["key_mask"].astype(np.float32)),
    }
    return PlannerData([str(s) for s in a["tasks"]], [str(s) for s in a["vocabulary"]], inputs,
                       torch.from_numpy(a["next"].astype(np.int64)))


def synthetic_lamp_data(path: str, n: int = 64, slots: int = 4, h: int = 12, w: int = 16, seed: int = 0) -> None:
    """Writes a tiny dataset where the answer depends on the last end image (a lamp): after "flip"
    with a dark end image, flip again; with a bright one, "done". For smoke tests only."""
    rng = np.random.default_rng(seed)
    vocabulary = np.array(["put both batteries into the holder", "flip the left battery"])
    tasks = np.array(["Put both batteries into the holder, then flip them until the lamp turns green."])
    k = rng.integers(0, slots + 1, size=n)
    bright = rng.integers(0, 2, size=n).astype(bool)
    key_mask = (np.arange(slots)[None, :] < k[:, None]).astype(np.uint8)
    key_subtasks = np.where(np.arange(slots)[None, :] == 0, 0, 1) * key_mask
    key_images = rng.integers(0, 60, size=(n, slots, 3, h, w)).astype(np.uint8)
    last = np.maximum(k - 1, 0)
    key_images[np.arange(n), last] += (bright[:, None, None, None] * 180).astype(np.uint8)
    key_images *= key_mask[:, :, None, None, None]
    nxt = np.where(k == 0, 0, np.where(bright, 2, 1))
    np.savez(
        path, tasks=tasks, vocabulary=vocabulary, task=np.zeros(n, np.int64),
        initial_image=rng.integers(0, 255, size=(n, 3, h, w)).astype(np.uint8), key_images=key_images,
        key_subtasks=key_subtasks.astype(np.int64), key_mask=key_mask, next=nxt.astype(np.int64),
    )
