"""RoboMME's TokenDrop memory (mme_vla_suite MemoryBuffer), the rule src/memory/TokenDropMemory.ts
implements for the runtime (test/vectors/memory.json holds both to it).

Each view (H x W x C, pixels in [-1, 1]) is cut into a grid x grid patch grid. Frame 0's patches enter
a min-heap with score 1000; then at history index stride-1, 2*stride-1, ... each patch is scored by its
mean |pixel difference| against the last scored frame (frame 0 the first time), patches under 1e-4
skipped, the rest pushed as (score, step, view, patch) with the heap capped at ``kept`` (the lowest
popped). The memory read at a tick is the ``budget`` highest entries, sorted by (step, view, patch).
"""

import heapq
from typing import List, Optional, Tuple

import numpy as np

FIRST_FRAME_SCORE = 1000.0
MIN_DIFFERENCE = 1e-4

Token = Tuple[int, int, int]


class TokenDropMemory:
    """One history's scored patches; ``write`` takes the frame's views, [V, H, W, C] in [-1, 1]."""

    def __init__(self, budget: int = 512, stride: int = 8, kept: int = 2048, grid: int = 8) -> None:
        for name, v in (("budget", budget), ("stride", stride), ("kept", kept), ("grid", grid)):
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"tokendrop {name} {v!r}: expected an integer >= 1")
        self.budget, self.stride, self.kept, self.grid = budget, stride, kept, grid
        self.clear()

    def clear(self) -> None:
        """Forgets everything (an episode or session reset; a subtask end keeps it)."""
        self._heap: List[Tuple[float, int, int, int]] = []
        self._last_scored = -1
        self._reference: Optional[np.ndarray] = None
        self._written = 0

    def _patches(self, views: np.ndarray) -> np.ndarray:
        """[V, H, W, C] -> [V, grid * grid, (h w c)], patches row-major."""
        v, h, w, c = views.shape
        g = self.grid
        if h % g or w % g:
            raise ValueError(f"tokendrop: a {w}x{h} view does not divide into a {g}x{g} grid")
        p = views.reshape(v, g, h // g, g, w // g, c).transpose(0, 1, 3, 2, 4, 5)
        return p.reshape(v, g * g, -1)

    def write(self, views: np.ndarray) -> List[Token]:
        """Writes one frame and returns the tokens the memory module reads on this tick: (step, view, patch)."""
        step = self._written
        self._written += 1
        patches = self._patches(np.asarray(views, dtype=np.float32))
        if step == 0:
            self._reference = patches
            for patch in range(patches.shape[1]):
                for view in range(patches.shape[0]):
                    heapq.heappush(self._heap, (FIRST_FRAME_SCORE, step, view, patch))
        if step == self._last_scored + self.stride:
            assert self._reference is not None
            for view in range(patches.shape[0]):
                difference = np.abs(self._reference[view] - patches[view]).mean(axis=-1)
                for patch in range(patches.shape[1]):
                    if difference[patch] < MIN_DIFFERENCE:
                        continue
                    heapq.heappush(self._heap, (float(difference[patch]), step, view, patch))
                    if len(self._heap) > self.kept:
                        heapq.heappop(self._heap)
            self._last_scored += self.stride
            self._reference = patches
        return self.tokens()

    def tokens(self) -> List[Token]:
        """The ``budget`` highest-scored tokens, sorted by (step, view, patch)."""
        ranked = sorted(self._heap)
        return sorted((s, v, p) for _, s, v, p in ranked[-self.budget :])
