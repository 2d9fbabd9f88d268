"""PlannerNet: the learned planner's torch model, in the ONNX interface the runtime feeds
(src/policy/planner/learnedManifest.ts):

  task [1,1] int64            index of the global task in `tasks`
  initial_image [1,3,h,w]     the episode's first planner-camera image, normalized
  key_images [1,M,3,h,w]      end image of each finished subtask in the key memory (last M, oldest first)
  key_subtasks [1,M] int64    their indices in `vocabulary`
  key_mask [1,M] float32      1 where a slot holds a finished subtask
  -> logits [1,V+1]           over `vocabulary` + "done" (the last class)

A small shared CNN encodes every image (its whole feature map, not a pool); each key-memory slot is
its end image's code plus its subtask's embedding, masked; the slots are concatenated in order (the
last one decides the trial-and-error tasks: Battery Try's lamp, Blocks Ranking Try's check) and an
MLP reads them with the task and the initial image.
"""

from dataclasses import asdict, dataclass
from typing import Any, Dict

import torch
from torch import nn


@dataclass(frozen=True)
class PlannerDims:
    """Sizes of a PlannerNet: T tasks, V answers (+ done), M key-memory slots, h x w images, width."""

    tasks: int
    vocabulary: int
    slots: int
    height: int
    width: int
    dim: int = 32

    def to_dict(self) -> Dict[str, Any]:
        """For checkpoints."""
        return asdict(self)


class ImageEncoder(nn.Module):
    """[N,3,h,w] -> [N,dim]: three strided convolutions and a linear map over the whole feature map,
    which keeps where things are (Press Button's left digit from its middle one; a global pool would not)."""

    def __init__(self, dim: int, height: int, width: int) -> None:
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv2d(3, 16, 5, stride=2, padding=2), nn.ReLU(), nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(32, 32, 3, stride=2, padding=1), nn.ReLU(),
        )
        cells = 1
        for size in (height, width):
            for _ in range(3):
                size = (size + 1) // 2
            cells *= size
        self.out = nn.Linear(32 * cells, dim)

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        return self.out(self.conv(images).flatten(1))


class PlannerNet(nn.Module):
    """The learned planner; forward takes the five inputs of the ONNX interface and returns the logits."""

    def __init__(self, d: PlannerDims) -> None:
        super().__init__()
        self.dims = d
        self.images = ImageEncoder(d.dim, d.height, d.width)
        self.task = nn.Embedding(d.tasks, d.dim)
        self.subtask = nn.Embedding(d.vocabulary, d.dim)
        self.head = nn.Sequential(
            nn.Linear(d.dim * (2 + d.slots) + 1, 4 * d.dim), nn.ReLU(), nn.Linear(4 * d.dim, d.vocabulary + 1)
        )

    def forward(
        self,
        task: torch.Tensor,
        initial_image: torch.Tensor,
        key_images: torch.Tensor,
        key_subtasks: torch.Tensor,
        key_mask: torch.Tensor,
    ) -> torch.Tensor:
        b, m = key_mask.shape
        h, w = initial_image.shape[2], initial_image.shape[3]
        ends = self.images(key_images.reshape(b * m, 3, h, w)).reshape(b, m, -1)
        slots = (ends + self.subtask(key_subtasks)) * key_mask.unsqueeze(-1)
        count = key_mask.sum(dim=1, keepdim=True) / m
        parts = [self.task(task.reshape(b)), self.images(initial_image), slots.reshape(b, -1), count]
        return self.head(torch.cat(parts, dim=1))
