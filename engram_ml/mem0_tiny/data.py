"""Dataset for mem0-tiny: episodes converted by training/mem0_tiny/hdf5ToNpy.ts (from `engram export`).

Each training sample is one control step t of one episode, with the memory the runtime would hold
at t: engram_ml.memory.mem0's rule (the one the runtime and the policy server follow) run over the
frames in order, cleared at the start of each instruction segment. So the anchor is the segment's
first frame (at that frame the current frame itself), the window the up-to-K frames of the segment
before t, oldest first, zero-padded at the end (`FrameMemory`).

Instruction segments follow what the policy is told at run time (src/trial/runTrial.ts):
  M(1) tasks (put-back-block, ...): one segment over the whole episode, the global instruction.
  M(n) tasks (press-button, ...):   the annotated subtask segments, each with its own text.
Classifier positives: the last END_FRAMES frames of each instruction segment.
"""

import glob
import json
import os
import re
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np
import torch

from engram_ml.memory.framesamp import frame_sampling_indices
from engram_ml.memory.mem0 import Mem0Memory
from engram_ml.memory.tokendrop import TokenDropMemory

END_FRAMES = 8


class FrameMemory:
    """Per-frame memory indices of a flat frame sequence: what Mem0Memory holds at each frame when the
    frames are written in order and the memory is cleared at each segment start. `seg_start[i]` is the
    first frame of frame i's segment (segments contiguous, in order); computed once, looked up per batch."""

    def __init__(self, seg_start: torch.Tensor, window: int) -> None:
        memory: Mem0Memory[int] = Mem0Memory(window)
        anchors: List[int] = []
        windows: List[List[int]] = []
        masks: List[List[float]] = []
        previous = -1
        for i, start in enumerate(seg_start.tolist()):
            if start == i:
                memory.clear()
            elif start != previous:
                raise ValueError(f"frame {i}: segment start {start}, expected {i} (a new segment) or {previous}")
            previous = start
            inputs = memory.write(i)
            anchors.append(inputs.anchor)
            pad = window - len(inputs.window)
            windows.append(inputs.window + [i] * pad)  # padding slots point anywhere valid: masked out
            masks.append([1.0] * len(inputs.window) + [0.0] * pad)
        self.anchor = torch.tensor(anchors, dtype=torch.int64)
        self.window = torch.tensor(windows, dtype=torch.int64).reshape(len(anchors), window)
        self.mask = torch.tensor(masks, dtype=torch.float32).reshape(len(anchors), window)

    def indices(self, idx: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """For frame indices idx [B]: anchor index [B], window indices [B, K] (oldest first), window mask [B, K]."""
        return self.anchor[idx], self.window[idx], self.mask[idx]


class FrameSampFrames:
    """Per-frame FrameSamp indices of a flat frame sequence: the frames RoboMME's FrameSamp reads at each
    frame when the history starts at `history_start[i]` (an episode's first frame, or its demonstration's:
    subtask ends clear nothing). Same contract as FrameMemory's window: [B, K] oldest first, padding masked."""

    def __init__(self, history_start: torch.Tensor, frames: int) -> None:
        windows: List[List[int]] = []
        masks: List[List[float]] = []
        previous = -1
        for i, start in enumerate(history_start.tolist()):
            if start != i and start != previous:
                raise ValueError(f"frame {i}: history start {start}, expected {i} (a new history) or {previous}")
            previous = start
            read = [start + h for h in frame_sampling_indices(i - start, frames)]
            pad = frames - len(read)
            windows.append(read + [i] * pad)  # padding slots point anywhere valid: masked out
            masks.append([1.0] * len(read) + [0.0] * pad)
        self.window = torch.tensor(windows, dtype=torch.int64).reshape(len(windows), frames)
        self.mask = torch.tensor(masks, dtype=torch.float32).reshape(len(windows), frames)

    def indices(self, idx: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        """For frame indices idx [B]: window indices [B, K] (oldest first) and window mask [B, K]."""
        return self.window[idx], self.mask[idx]


def patch_pixels(views: np.ndarray, grid: int) -> np.ndarray:
    """uint8 [T, V, H, W, 3] -> [T, V * grid * grid, 3 * (H / grid) * (W / grid)]: each patch's pixels in
    (channel, row, column) order, as src/memory/TokenDropMemory.ts cuts them; patches row-major per view."""
    t, v, h, w, c = views.shape
    p = views.reshape(t, v, grid, h // grid, grid, w // grid, c).transpose(0, 1, 2, 4, 6, 3, 5)
    return np.ascontiguousarray(p.reshape(t, v * grid * grid, -1))


class TokenDropReads:
    """Per-frame TokenDrop reads of a flat frame sequence: the tokens RoboMME's TokenDrop (engram_ml.memory.
    tokendrop, the runtime's rule) hands the memory module at each frame of each history. The read changes only
    on frame 0 and every `stride` frames, so reads are kept once per change: `read_of_frame` [N] points into
    `frame` / `patch` / `step` / `mask` [R, budget] (the token's global frame, its patch over all views, its
    history step; padding masked). `add` takes one history's views, uint8 [T, V, H, W, 3], in order."""

    def __init__(self, budget: int, stride: int, kept: int, grid: int) -> None:
        self.spec = dict(budget=budget, stride=stride, kept=kept, grid=grid)
        self._reads: List[np.ndarray] = []  # [budget, 3]: global frame, patch, step
        self._counts: List[int] = []
        self._read_of_frame: List[int] = []

    def add(self, offset: int, views: np.ndarray) -> None:
        memory = TokenDropMemory(**self.spec)
        patches = self.spec["grid"] ** 2
        previous = None
        for t in range(views.shape[0]):
            read = memory.write(views[t].astype(np.float32) / 127.5 - 1.0)
            if read != previous:
                rows = np.zeros((self.spec["budget"], 3), dtype=np.int64)
                for j, (step, view, patch) in enumerate(read):
                    rows[j] = (offset + step, view * patches + patch, step)
                self._reads.append(rows)
                self._counts.append(len(read))
                previous = read
            self._read_of_frame.append(len(self._reads) - 1)

    def finish(self) -> None:
        """Stacks the reads into tensors (after the last `add`)."""
        reads = torch.from_numpy(np.stack(self._reads))
        self.frame, self.patch, self.step = reads[..., 0], reads[..., 1], reads[..., 2].float()
        counts = torch.tensor(self._counts)
        self.mask = (torch.arange(self.spec["budget"])[None, :] < counts[:, None]).float()
        self.read_of_frame = torch.tensor(self._read_of_frame)


def canonical(text: str) -> str:
    """Same canonical form as src/policy/mem0/tokenizer.ts canonicalInstruction."""
    return re.sub(r"\s+", " ", re.sub(r"\.+$", "", text.strip()).strip()).lower()


class Vocabulary:
    """Closed word vocabulary written by hdf5ToNpy.ts (vocabulary.json)."""

    def __init__(self, path: str) -> None:
        with open(path) as f:
            v = json.load(f)
        self.max_length = v["max_length"]
        self.pad_id = v["pad_id"]
        self.size = v["size"]
        self.vocabulary = v["vocabulary"]
        self._by_canonical = {canonical(k): ids for k, ids in self.vocabulary.items()}

    def tokens(self, text: str, where: str) -> np.ndarray:
        """Token ids of `text` padded to max_length (ValueError naming `where` for text outside the vocabulary)."""
        ids = self._by_canonical.get(canonical(text))
        if ids is None:
            raise ValueError(
                f"{where}: instruction {text!r} is not in the closed vocabulary ({len(self.vocabulary)} entries)"
            )
        out = np.full(self.max_length, self.pad_id, dtype=np.int64)
        out[: len(ids)] = ids
        return out


def instruction_segments(meta: Dict, where: str) -> List[Tuple[str, int, int]]:
    """[(text, start, end)] covering every frame, per the module docstring."""
    T = meta["frames"]
    if meta["tmc"] == "M1" or not meta["segments"]:
        return [(meta["instruction"], 0, T - 1)]
    segs = sorted(meta["segments"], key=lambda s: s["start"])
    out = []
    for i, s in enumerate(segs):
        # Frames between annotated segments belong to the next one (the policy is already told it);
        # the last runs to the end.
        start = 0 if i == 0 else out[-1][2] + 1
        end = T - 1 if i == len(segs) - 1 else min(s["end"], T - 1)
        if end < start:
            raise ValueError(f"{where}: segment {i} {s['text']!r} [{s['start']}, {s['end']}] overlaps the previous one")
        out.append((s["text"], start, end))
    return out


class Episodes:
    """All episodes in memory as flat per-frame tensors plus per-frame memory indices."""

    def __init__(
        self, npy_dir: str, window: int, tasks: Optional[Sequence[str]] = None, outcomes: Sequence[str] = ("success",)
    ) -> None:
        self.vocab = Vocabulary(os.path.join(npy_dir, "vocabulary.json"))
        images, states, actions, tokens, labels = [], [], [], [], []
        seg_start, ep_start, ep_end, self.metas = [], [], [], []
        offset = 0
        for meta_path in sorted(glob.glob(os.path.join(npy_dir, "*.json"))):
            if meta_path.endswith("vocabulary.json"):
                continue
            stem = meta_path[: -len(".json")]
            with open(meta_path) as f:
                meta = json.load(f)
            if tasks and meta["task"] not in tasks:
                continue
            if outcomes and meta["outcome"] not in outcomes:
                continue
            T = meta["frames"]
            images.append(np.load(stem + ".images.npy"))
            states.append(np.load(stem + ".state.npy"))
            actions.append(np.load(stem + ".action.npy"))
            for text, start, end in instruction_segments(meta, meta_path):
                tok = self.vocab.tokens(text, meta_path)
                for t in range(start, end + 1):
                    tokens.append(tok)
                    seg_start.append(offset + start)
                    labels.append(1.0 if t > end - END_FRAMES else 0.0)
            ep_start += [offset] * T
            ep_end += [offset + T - 1] * T
            self.metas.append(meta)
            offset += T
        if not self.metas:
            raise ValueError(f"{npy_dir}: no episodes (tasks={tasks}, outcomes={outcomes})")
        self.images = torch.from_numpy(np.concatenate(images))  # uint8 [N, C, H, W, 3]
        self.state = torch.from_numpy(np.concatenate(states)).float()
        self.action = torch.from_numpy(np.concatenate(actions)).float()
        self.tokens = torch.from_numpy(np.stack(tokens))
        self.label = torch.tensor(labels)
        self.seg_start = torch.tensor(seg_start)
        self.ep_end = torch.tensor(ep_end)
        self.window = window
        self.memory = FrameMemory(self.seg_start, window)
        self.n = len(self.label)

    def stats(self, horizon: int, relative: bool, widen: Optional[torch.Tensor] = None) -> Dict[str, torch.Tensor]:
        """State mean/std and action min/max and mean/std (robot units), as the manifest's normalization
        block wants them. With `relative` the action stats cover chunk offsets from the state
        (action_reference: state); `widen` [D] is the largest extra spread the training state noise
        adds to the labels (std U(0, 1) * widen / 2, variance widen^2 / 12)."""
        s_mean = self.state.mean(0)
        s_std = self.state.std(0).clamp(min=1e-3)
        all_idx = torch.arange(self.n)
        a = self.chunk(all_idx, horizon)
        if relative:
            a = a - self.state[:, None, :]
        a = a.flatten(0, 1)
        a_min, a_max = a.min(0).values, a.max(0).values
        margin = ((a_max - a_min) * 0.05).clamp(min=1e-3)
        a_var = a.var(0)
        if widen is not None:
            margin = margin + widen  # room for labels off the recorded states (state noise)
            a_var = a_var + widen**2 / 12
        return {
            "state_mean": s_mean,
            "state_std": s_std,
            "action_min": a_min - margin,
            "action_max": a_max + margin,
            "action_mean": a.mean(0),
            "action_std": a_var.sqrt().clamp(min=1e-3),
        }

    def memory_indices(self, idx: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """For frame indices idx [B]: anchor index [B], window indices [B, K] and window mask [B, K]."""
        return self.memory.indices(idx)

    def chunk(self, idx: torch.Tensor, horizon: int) -> torch.Tensor:
        """Action chunk rows idx..idx+H-1 [B, H, D], repeating the episode's last action past its end."""
        steps = idx[:, None] + torch.arange(horizon)[None, :]
        steps = torch.minimum(steps, self.ep_end[idx][:, None])
        return self.action[steps]
