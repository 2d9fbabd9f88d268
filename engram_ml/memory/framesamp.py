"""RoboMME's FrameSamp memory, the rule src/memory/FrameSampMemory.ts implements for the runtime
(test/vectors/memory.json holds both to it).

The whole history since the last reset is kept; at history index t the memory module reads every
frame 0..t while t < n, else n indices spread over the whole history, ``linspace(0, t, n)`` cast to
int32 (RoboMME's even_sampling_indices). The current frame is always the last one read, demonstration
frames are history like any other, and a subtask end clears nothing.
"""

from typing import Generic, List, TypeVar

T = TypeVar("T")


def frame_sampling_indices(t: int, frames: int) -> List[int]:
    """The history indices FrameSamp reads at history index ``t`` with ``frames`` slots, oldest first."""
    if isinstance(t, bool) or not isinstance(t, int) or t < 0:
        raise ValueError(f"frame sampling: history index {t!r}, expected an integer >= 0")
    if isinstance(frames, bool) or not isinstance(frames, int) or frames < 1:
        raise ValueError(f"frame sampling: {frames!r} frames, expected an integer >= 1")
    if t < frames:
        return list(range(t + 1))
    if frames == 1:
        return [0]
    # numpy's linspace: i * (t / (n - 1)), the last set to t exactly, then truncated.
    step = t / (frames - 1)
    return [t if i == frames - 1 else int(i * step) for i in range(frames)]


class FrameSampMemory(Generic[T]):
    """The history of one episode (or a longer session) and FrameSamp's sample of it."""

    def __init__(self, frames: int) -> None:
        frame_sampling_indices(0, frames)
        self.frames = frames
        self._history: List[T] = []

    def write(self, feature: T) -> List[T]:
        """Writes this tick's feature and returns what the memory module reads on this tick, oldest first."""
        self._history.append(feature)
        return [self._history[i] for i in frame_sampling_indices(len(self._history) - 1, self.frames)]

    def clear(self) -> None:
        """Forgets the history (an episode or session reset; a subtask end keeps it)."""
        self._history.clear()
