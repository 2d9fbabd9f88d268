"""Mem-0's memory rule: an anchor and a sliding window over the features an execution module writes,
the same rule src/memory/ implements for the runtime (test/vectors/memory.json holds both to it).

Each control tick writes one feature, and the memory module reads, on that same tick:
  anchor  the first feature written since the last clear; it is set BEFORE the memory module runs,
          so the first tick after a clear attends to its own feature. None with the anchor off.
  window  the up-to-K features written before the current one since the last clear, oldest first.
          Empty with the sliding window off.
A declared subtask end and an episode or session reset clear both.

The rule does not care what a feature is: the policy server stores tensors, the training data code
stores frame indices, the test vectors store step numbers.
"""

from collections import deque
from dataclasses import dataclass
from typing import Deque, Generic, List, Optional, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Mem0Inputs(Generic[T]):
    """What the memory module reads on the tick that wrote `current`."""

    current: T
    anchor: Optional[T]
    window: List[T]


class Mem0Memory(Generic[T]):
    """Anchor + sliding window of K features (K >= 1); `anchor` / `sliding` False are the ablations."""

    def __init__(self, window: int, anchor: bool = True, sliding: bool = True) -> None:
        if not isinstance(window, int) or isinstance(window, bool) or window < 1:
            raise ValueError(f"Mem-0 memory: window {window!r}, expected an integer K >= 1")
        self.size = window
        self.use_anchor = anchor
        self.use_sliding = sliding
        self._anchor: Optional[T] = None
        self._window: Deque[T] = deque(maxlen=window)

    def write(self, feature: T) -> Mem0Inputs[T]:
        """Writes this tick's feature and returns the inputs the memory module reads on this tick."""
        if self.use_anchor and self._anchor is None:
            self._anchor = feature
        inputs = Mem0Inputs(
            current=feature,
            anchor=self._anchor if self.use_anchor else None,
            window=list(self._window) if self.use_sliding else [],
        )
        self._window.append(feature)
        return inputs

    def clear(self) -> None:
        """Forgets anchor and window: on a declared subtask end and on an episode or session reset."""
        self._anchor = None
        self._window.clear()
