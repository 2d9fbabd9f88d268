"""Training mem0-tiny: the canonical recipe, perception first, on DAgger data (training/mem0_tiny/collect.ts).
It made the shipped bundle (policies/mem0-tiny/README.md); training/mem0_tiny/dagger.sh runs one iteration.

  perception  trains model.Perception alone on single frames to read the twin's privileged targets
              (block position, held) from the three cameras; the features it learns are what the
              policy needs to place the fingers to about a centimetre. Written to --out.
  policy      freezes the perception, caches its feature for every frame, and trains the rest of
              the execution module on the oracle's labels: the fusion with the state (in encoder.onnx),
              the memory, the classifier and the flow action head. Chunks are offsets from the state
              (action_reference: state), normalized by mean/std. A DAgger iteration re-runs this stage
              on the aggregated data, warm-started (--init). Writes a checkpoint `export` exports.
  planner     the learned planner (engram_ml/planner/train.py; its own flags: `train planner --help`)
  probe       a linear read-out of the block's position from a perception checkpoint's features.
  end-to-end  the earlier recipe (not shipped): everything at once on expert demonstrations converted
              by training/mem0_tiny/hdf5ToNpy.ts (engram_ml.mem0_tiny.end_to_end; pipeline.sh).

  python -m engram_ml train perception --data DIR[,DIR...] --out runs/staged/perception.pt --minutes 15
  python -m engram_ml train policy --data DIR[,DIR...] --perception runs/staged/perception.pt \
      --out runs/staged/full.pt --minutes 10
  python -m engram_ml train probe --fit DIR --data HELDOUT_DIR --perception runs/staged/perception.pt

Memory semantics as data.py documents them (Put Back Block is M(1): one segment per episode; the
anchor is the first frame, the window the up-to-K frames before t). An M(n) episode is trained as the
runtime ran it: the memory cleared after each declared end, each segment on the subtask text the
policy was told (collect.ts `segments`). Classifier positives: the last 8 frames of each ground-truth
subtask (`end_labels`; --end-frames sets how many). --classifier-only retrains the classifier alone on a warm
start, the rest frozen: a target of another length without moving the actions.
"""

import argparse
import glob
import json
import os
import sys
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np
import torch
import torch.nn.functional as Fn

from engram_ml.mem0_tiny import end_to_end
from engram_ml.mem0_tiny.checkpoint import load_checkpoint, save_checkpoint
from engram_ml.mem0_tiny.data import END_FRAMES, FrameMemory, FrameSampFrames, TokenDropReads, Vocabulary, patch_pixels
from engram_ml.mem0_tiny.losses import focal_bce
from engram_ml.mem0_tiny.model import Dims, Mem0Tiny, Perception

AUX_CENTRE = torch.tensor([0.5, 0.0, 0.8])
PHASES = 4  # collect.ts PHASES: to-centre, press, put-back, done


def original_mat(first_xy: torch.Tensor) -> torch.Tensor:
    """Index of Put Back Block's starting mat from the block's first (x, y): the mats lie at x 0.40 | 0.62 and
    y +0.2 | -0.2 (+-2 cm jitter), in src/sim/tasks/put-back-block.ts's order."""
    return (first_xy[:, 0] > 0.51).long() + 2 * (first_xy[:, 1] < 0).long()


class MemoryAux(torch.nn.Module):
    """Training-only read-outs of the memory summary (not exported): the block's starting mat, which only the
    anchor still shows after the block has left it, and the task phase (to-centre / press / put-back / done),
    which after the press only the memory can tell. Their losses make the summary carry what the action head
    needs; their accuracies say whether it does."""

    def __init__(self, d: Dims) -> None:
        super().__init__()
        self.net = torch.nn.Sequential(
            torch.nn.Linear(d.summary_tokens * d.feature_dim, 64), torch.nn.ReLU(), torch.nn.Linear(64, 4 + PHASES)
        )

    def forward(self, summary: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        out = self.net(summary.flatten(1))
        return out[:, :4], out[:, 4:]


AUX_SCALE = 10.0  # block position in decimetres around the workspace centre
# Columns of a Put Back Block aux.npy from before collect.ts wrote aux_kinds: block x, y, z, held, phase.
LEGACY_AUX_KINDS = ["pos", "pos", "pos", "bin", "phase"]
MEMORY_STRATEGIES = ("mem0", "framesamp", "tokendrop", "none")


def normalize_images(u8: torch.Tensor) -> torch.Tensor:
    """uint8 [..., C, H, W, 3] -> float [..., C, 3, H, W] with the manifest's (v/255 - 0.5) / 0.5."""
    return (u8.float() / 127.5 - 1.0).movedim(-1, -3)


def runtime_segments(meta: Dict, where: str) -> List[Tuple[str, int, int]]:
    """[(text, start, end)] over every frame: an M(n) episode's segments as the runtime ran them (the memory
    cleared at each declared end, the policy told each text); else one segment on the episode's instruction."""
    T = meta["frames"]
    if meta.get("tmc") != "Mn" or not meta.get("segments"):
        return [(meta["instruction"], 0, T - 1)]
    out = [(s["text"], int(s["start"]), int(s["end"])) for s in meta["segments"]]
    expected = 0
    for text, start, end in out:
        if start != expected or end < start:
            raise SystemExit(f"{where}: segment {text!r} [{start}, {end}]: expected one starting at frame {expected}")
        expected = end + 1
    if expected != T:
        raise SystemExit(f"{where}: the segments cover frames 0-{expected - 1} of {T}")
    return out


def true_ends(meta: Dict) -> List[int]:
    """The frames where a subtask truly ended: an M(n) episode's are the twin's (`subtask_end`, whatever the
    runtime declared), plus the episode's last frame when it succeeded (its last subtask ended the episode);
    an M(1) episode has one subtask, ending with a success."""
    ends = [int(e) for e in meta.get("subtask_end", [])] if meta.get("tmc") == "Mn" else []
    if meta["outcome"] == "success":
        ends.append(meta["frames"] - 1)
    return ends


def end_labels(meta: Dict, end_frames: int = END_FRAMES) -> List[float]:
    """Subtask-end classifier targets per frame (Mem-0's L_mem, END_FRAMES by default): positive on the last
    `end_frames` frames of each true subtask (`true_ends`)."""
    ends = true_ends(meta)
    return [1.0 if any(e - end_frames < t <= e for e in ends) else 0.0 for t in range(meta["frames"])]


def text_agrees(meta: Dict, phase: np.ndarray, where: str) -> List[bool]:
    """Per frame: the text the runtime told the policy is the subtask the oracle's label carries out (the twin's
    stage `phase`, an index into `subtasks`). After a mistimed end or a wrong plan in a DAgger rollout the two
    differ, and the label would teach the action head to ignore its text. True off M(n) and where no stage is known."""
    subtasks = meta.get("subtasks") or []
    if meta.get("tmc") != "Mn" or not subtasks:
        return [True] * meta["frames"]
    out = []
    for text, start, end in runtime_segments(meta, where):
        for p in phase[start : end + 1]:
            out.append(bool(np.isnan(p)) or (0 <= p < len(subtasks) and subtasks[int(p)] == text))
    return out


class Data:
    """Every frame of every episode in `dirs` (collect.ts layout), flat, with per-frame memory indices.
    With `load_images` False the images stay on disk (`episode_images` reads one episode): the policy
    stage needs them only for episodes whose perception features are not cached yet."""

    def __init__(self, dirs: List[str], window: int, load_images: bool = True, end_frames: int = END_FRAMES) -> None:
        metas, images, states, labels, aux, seg_start, pos, self.stems = [], [], [], [], [], [], [], []
        execution, instruction, answer, agrees = [], [], [], []
        self.instructions: List[str] = []
        self.aux_layouts: Dict[str, List[str]] = {}  # target layout -> the folders holding it
        offset = 0
        for d in dirs:
            for meta_path in sorted(glob.glob(os.path.join(d, "*.json"))):
                stem = meta_path[: -len(".json")]
                if not os.path.exists(stem + ".label.npy"):
                    continue
                with open(meta_path) as f:
                    meta = json.load(f)
                T = meta["frames"]
                if load_images:
                    images.append(np.load(stem + ".images.npy"))
                states.append(np.load(stem + ".state.npy"))
                labels.append(np.load(stem + ".label.npy"))
                aux.append(np.load(stem + ".aux.npy"))
                demo = int(meta.get("demo_frames", 0))  # a demonstration prompt's frames come first: no labels
                execution += [offset + t for t in range(demo, T)]
                for text, start, end in runtime_segments(meta, meta_path):
                    if text not in self.instructions:
                        self.instructions.append(text)
                    seg_start += [offset + start] * (end - start + 1)
                    instruction += [self.instructions.index(text)] * (end - start + 1)
                answer += [-1 if meta.get("answer") is None else int(meta["answer"])] * T
                pos += end_labels(meta, end_frames)
                kinds_here = meta.get("aux_kinds", LEGACY_AUX_KINDS)
                phase = aux[-1][:, kinds_here.index("phase")] if "phase" in kinds_here else np.full(T, np.nan)
                agrees += text_agrees(meta, phase, meta_path)
                folders = self.aux_layouts.setdefault(meta.get("aux_layout", "unrecorded"), [])
                if d not in folders:
                    folders.append(d)
                metas.append(meta)
                self.stems.append(stem)
                offset += T
        if not metas:
            raise SystemExit(f"no collect.ts episodes in {dirs}")
        kinds = {json.dumps(m.get("aux_kinds", LEGACY_AUX_KINDS)) for m in metas}
        if len(kinds) > 1:
            raise SystemExit(f"{dirs}: episodes with different aux_kinds (other tasks' collections?): {sorted(kinds)}")
        self.aux_kinds: List[str] = json.loads(kinds.pop())
        self.metas = metas
        self.images = torch.from_numpy(np.concatenate(images)) if load_images else None  # uint8 [N, C, H, W, 3]
        self.state = torch.from_numpy(np.concatenate(states)).float()
        self.label = torch.from_numpy(np.concatenate(labels)).float()  # [N, H, D] absolute
        self.aux = torch.from_numpy(np.concatenate(aux)).float()  # [N, 5]
        self.seg_start = torch.tensor(seg_start)
        self.end_label = torch.tensor(pos)
        self.window = window
        self.memory = FrameMemory(self.seg_start, window)
        self.n = len(seg_start)
        self.execution = torch.tensor(execution, dtype=torch.int64)  # frames with an oracle label
        self.instruction = torch.tensor(instruction, dtype=torch.int64)
        self.text_agrees = torch.tensor(agrees)  # the action head trains only where the label follows the text
        self.answer = torch.tensor(answer, dtype=torch.int64)  # -1: train_policy derives it (Put Back Block's mat)
        self._framesamp: Optional[FrameSampFrames] = None  # built on first use (a loop over every frame)
        pos_cols = [i for i, k in enumerate(self.aux_kinds) if k == "pos"]
        self.aux_centre = (
            AUX_CENTRE.repeat(len(pos_cols) // 3)
            if self.aux_kinds == LEGACY_AUX_KINDS
            else torch.from_numpy(np.nanmean(self.aux[:, pos_cols].numpy(), axis=0)).float()
        )
        first = metas[0]
        self.cameras, self.height, self.width = len(first["cameras"]), first["height"], first["width"]

    def aux_layout(self, what: str) -> str:
        """The one layout of these episodes' targets (collect.ts's aux_layout). Training on targets refuses a mix:
        the same columns would mean other objects in folders collected before a slot order changed."""
        if len(self.aux_layouts) > 1:
            mix = "; ".join(f"{layout} in {', '.join(dirs)}" for layout, dirs in sorted(self.aux_layouts.items()))
            raise SystemExit(f"{what}: episodes collected with different target layouts ({mix}): re-collect the older")
        return next(iter(self.aux_layouts))

    def episode_images(self, k: int) -> torch.Tensor:
        """uint8 [T, C, H, W, 3] of episode k (from memory when loaded, else from its file)."""
        if self.images is not None:
            start = int(sum(m["frames"] for m in self.metas[:k]))
            return self.images[start : start + self.metas[k]["frames"]]
        return torch.from_numpy(np.load(self.stems[k] + ".images.npy"))

    def aux_targets(self, idx: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        """The perception's targets of the frames `idx`: positions normalized around the data's centre in
        decimetres [B, P] and flags [B, Q] (aux_kinds "pos", "bin"); NaN where the camera cannot tell."""
        a = self.aux[idx]
        kinds = self.aux_kinds
        pos = a[:, [i for i, k in enumerate(kinds) if k == "pos"]]
        return (pos - self.aux_centre) * AUX_SCALE, a[:, [i for i, k in enumerate(kinds) if k == "bin"]]

    def phase(self) -> torch.Tensor:
        """The oracle's subtask index of every frame [N] (0 where the data has none)."""
        if "phase" not in self.aux_kinds:
            return torch.zeros(self.n, dtype=torch.int64)
        return self.aux[:, self.aux_kinds.index("phase")].nan_to_num(0).long().clamp(0, PHASES - 1)

    def memory_indices(
        self, idx: torch.Tensor, strategy: str = "mem0"
    ) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor, float]:
        """For frame indices idx [B], what memory.onnx reads under the runtime's `strategy`: anchor index
        [B], window indices [B, K], window mask [B, K], and whether the anchor is shown (1.0) or masked."""
        anchor, window, mask = self.memory.indices(idx)
        if strategy == "framesamp":  # RoboMME's 32-of-everything-so-far, demonstration included; no anchor
            if self._framesamp is None:
                self._framesamp = FrameSampFrames(self.seg_start, self.window)
            window, mask = self._framesamp.indices(idx)
            return anchor, window, mask, 0.0
        if strategy == "none":
            return anchor, window, torch.zeros_like(mask), 0.0
        return anchor, window, mask, 1.0


def token_reads(
    data: Data, spec: Dict[str, int], views: int, pool: Callable[[torch.Tensor], torch.Tensor]
) -> Tuple[TokenDropReads, torch.Tensor]:
    """TokenDrop's read at every frame (each episode one history, demonstration included) over the first `views`
    cameras, and every frame's patches [N, views * grid * grid, cells] pooled by the memory module's `pool`."""
    reads, patches = TokenDropReads(**spec), []
    offset = 0
    with torch.no_grad():
        for k, meta in enumerate(data.metas):
            images = data.episode_images(k)[:, :views].numpy()
            reads.add(offset, images)
            patches.append(pool(torch.from_numpy(patch_pixels(images, spec["grid"])).float() / 127.5 - 1.0))
            offset += meta["frames"]
    reads.finish()
    return reads, torch.cat(patches)


def perception_features(
    perception: Perception, data: Data, batch: int = 256, cache_key: Optional[str] = None
) -> torch.Tensor:
    """Perception feature of every frame [N, P] (no grad). With `cache_key` (the perception checkpoint's
    path) each episode's features are kept beside its arrays (<stem>.perception.npy) and reused while
    they are newer than the checkpoint: the perception is frozen across DAgger iterations."""
    out = []
    with torch.no_grad():
        for k, stem in enumerate(data.stems):
            cached = stem + ".perception.npy"
            if cache_key and os.path.exists(cached) and os.path.getmtime(cached) > os.path.getmtime(cache_key):
                out.append(torch.from_numpy(np.load(cached)))
                continue
            images = data.episode_images(k)
            f = torch.cat(
                [perception(normalize_images(images[i : i + batch])) for i in range(0, images.shape[0], batch)]
            )
            if cache_key:
                np.save(cached, f.numpy())
            out.append(f)
    return torch.cat(out)


def perception_errors(perception: Perception, data: Data, batch: int = 256) -> Dict[str, Dict[str, Any]]:
    """Per task of `data` (held-out episodes): each position target's mean xy error (cm, where it is not NaN)
    and the 0/1 targets' accuracy, as the perception's own read-out gives them."""
    kinds = data.aux_kinds
    pos_cols = [i for i, k in enumerate(kinds) if k == "pos"]
    out: Dict[str, Dict[str, Any]] = {}
    offset = 0
    with torch.no_grad():
        for k, meta in enumerate(data.metas):
            images = data.episode_images(k)
            pred = torch.cat(
                [
                    perception.aux(perception(normalize_images(images[i : i + batch])))
                    for i in range(0, images.shape[0], batch)
                ]
            )
            idx = torch.arange(offset, offset + meta["frames"])
            xyz, flags = data.aux_targets(idx)
            P = len(pos_cols)
            xy = (pred[:, :P] - xyz).reshape(len(idx), P // 3, 3)[:, :, :2].norm(dim=-1) / AUX_SCALE * 100
            hit = ((pred[:, P:] > 0).float() == flags).float().masked_fill(flags.isnan(), float("nan"))
            task = out.setdefault(meta["task"], {"xy": [], "bin": []})
            task["xy"].append(xy)
            task["bin"].append(hit)
            offset += meta["frames"]
    report = {}
    for task, r in out.items():
        xy, hit = torch.cat(r["xy"]), torch.cat(r["bin"])
        report[task] = {
            "xy_err_cm": [None if v.isnan() else round(v.item(), 2) for v in xy.nanmean(0)],
            "bin_acc": [None if v.isnan() else round(v.item(), 3) for v in hit.nanmean(0)],
        }
    return report


def train_perception(args: argparse.Namespace) -> None:
    """The perception stage: trains and saves model.Perception."""
    data = Data(args.data.split(","), 8)  # single frames: the memory indices are not read
    d = Dims(
        cameras=data.cameras,
        height=data.height,
        width=data.width,
        encoder="perception",
        keypoints=args.keypoints,
        perception_dim=args.perception_dim,
        aux_dim=sum(k in ("pos", "bin") for k in data.aux_kinds),
    )
    # Read before training: held-out episodes with other targets fail now, not after the training budget.
    held_data = Data(args.heldout.split(","), 8, load_images=False) if args.heldout else None
    layout = data.aux_layout(f"--data {args.data}")
    if held_data is not None and held_data.aux_kinds != data.aux_kinds:
        raise SystemExit(
            f"--heldout {args.heldout}: aux_kinds {held_data.aux_kinds} differ from --data's {data.aux_kinds}"
        )
    held_layout = held_data.aux_layout(f"--heldout {args.heldout}") if held_data is not None else layout
    if held_layout != layout:
        raise SystemExit(f"--heldout {args.heldout}: target layout {held_layout} differs from --data's {layout}")
    perception = Perception(d)
    opt = torch.optim.AdamW(perception.parameters(), lr=args.lr, weight_decay=1e-4)
    print(
        f"perception: {len(data.metas)} episodes, {data.n} frames, "
        f"{sum(p.numel() for p in perception.parameters())} parameters",
        flush=True,
    )
    start, cpu0, step, log = time.time(), time.process_time(), 0, []
    while time.time() - start < args.minutes * 60:
        frac = (time.time() - start) / (args.minutes * 60)
        for g in opt.param_groups:
            g["lr"] = args.lr * 0.5 * (1 + np.cos(np.pi * frac))
        idx = torch.randint(0, data.n, (args.batch,))
        images = normalize_images(data.images[idx])
        if args.jitter:
            images = images + args.jitter * torch.randn(
                images.shape[0], images.shape[1], 3, 1, 1
            )  # lighting jitter per camera
        out = perception.aux(perception(images))
        xyz, held = data.aux_targets(idx)
        P = xyz.shape[1]
        pos_loss = masked_mean(Fn.smooth_l1_loss(out[:, :P], xyz.nan_to_num(0), beta=0.05, reduction="none"), xyz)
        held_loss = masked_mean(
            Fn.binary_cross_entropy_with_logits(out[:, P:], held.nan_to_num(0), reduction="none"), held
        )
        loss = pos_loss + args.bin_weight * held_loss
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        if step % 25 == 0:
            err_cm = ((out[:, :2] - xyz[:, :2]).norm(dim=-1).nanmean() / AUX_SCALE * 100).item()
            line = {
                "step": step,
                "s": round(time.time() - start, 1),
                "cpu_s": round(time.process_time() - cpu0, 1),
                "pos": round(pos_loss.item(), 4),
                "held": round(held_loss.item(), 4),
                "xy_err_cm": round(err_cm, 2),
            }
            log.append(line)
            print(json.dumps(line), flush=True)
    heldout = None
    if held_data is not None:
        heldout = perception_errors(perception.eval(), held_data)
        print(json.dumps({"heldout": heldout}), flush=True)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    save_checkpoint(
        args.out,
        {
            "dims": d.as_dict(),
            "heldout": heldout,
            "train": {
                "steps": step,
                "seconds": round(time.time() - start, 1),
                "cpu_seconds": round(time.process_time() - cpu0, 1),
                "episodes": len(data.metas),
                "frames": data.n,
                "log": log,
            },
        },
        state_dict=perception.state_dict(),
    )
    print(
        f"saved {args.out}: {step} steps, {time.time() - start:.0f} s wall, {time.process_time() - cpu0:.0f} s CPU",
        flush=True,
    )


def masked_mean(loss: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Mean of the elementwise `loss` where `target` is known (not NaN); 0 when nothing is."""
    known = ~torch.isnan(target)
    return (loss * known).sum() / known.sum().clamp(min=1)


def load_perception(path: str) -> Tuple[Dict[str, Any], Dims, Perception]:
    """A perception checkpoint, its sizes and the module (eval mode)."""
    ckpt = load_checkpoint(path)
    d = Dims(**ckpt["dims"])
    p = Perception(d)
    p.load_state_dict(ckpt["state_dict"])
    p.eval()
    return ckpt, d, p


def probe(args: argparse.Namespace) -> None:
    """A linear read-out of the block's table position from the perception features: least squares
    fit on the training frames (--fit), error in cm on the held-out frames (--data)."""
    _, _, perception = load_perception(args.perception)
    fit, test = Data(args.fit.split(","), 8, load_images=False), Data(args.data.split(","), 8, load_images=False)

    def design(data):
        f = perception_features(perception, data)
        return torch.cat([f, torch.ones(f.shape[0], 1)], dim=1).double()

    Xf, Xt = design(fit), design(test)
    w = torch.linalg.pinv(Xf) @ fit.aux[:, :2].double()  # (torch 1.13's lstsq driver fails on dead ReLU columns)
    err = ((Xt @ w) - test.aux[:, :2].double()).norm(dim=1) * 100
    print(
        json.dumps(
            {
                "probe": "linear read-out of block (x, y) from the perception feature",
                "fit_frames": fit.n,
                "heldout_frames": test.n,
                "heldout_episodes": len(test.metas),
                "mean_err_cm": round(err.mean().item(), 2),
                "median_err_cm": round(err.median().item(), 2),
                "p90_err_cm": round(err.quantile(0.9).item(), 2),
            }
        )
    )


def train_policy(args: argparse.Namespace) -> None:
    """The policy stage: trains the execution module on a frozen perception and saves the checkpoint."""
    # TokenDrop's reads are built below; the frame strategies' indices need the window.
    if args.end_frames < 1:
        raise SystemExit(f"--end-frames {args.end_frames}: a subtask's end needs at least one positive frame")
    if args.classifier_only and not args.init:
        raise SystemExit("--classifier-only retrains the classifier of a trained policy: give it --init")
    frames_window = 1 if args.memory == "tokendrop" else args.window
    data = Data(args.data.split(","), frames_window, load_images=False, end_frames=args.end_frames)
    pckpt, pd, perception = load_perception(args.perception)
    vocab = Vocabulary(args.vocabulary or os.path.join(args.data.split(",")[0], "vocabulary.json"))
    init = load_checkpoint(args.init) if args.init else None
    t0 = time.time()
    feats = perception_features(perception, data, cache_key=args.perception)
    print(
        f"policy: {len(data.metas)} episodes, {data.n} frames ({int((~data.text_agrees).sum())} told another subtask"
        f" than the label's: no action loss); perception features in {time.time() - t0:.0f} s",
        flush=True,
    )
    offsets = data.label - data.state[:, None, :]  # [N, H, D]
    strategy = args.memory
    tokendrop = dict(budget=args.window, stride=args.token_stride, kept=args.token_kept, grid=args.token_grid)
    patch = (data.height // args.token_grid, data.width // args.token_grid)
    whole = not (data.height % args.token_grid or data.width % args.token_grid)
    if strategy == "tokendrop" and not (whole and patch[0] % args.token_pool == 0 and patch[1] % args.token_pool == 0):
        raise SystemExit(
            f"--token-grid {args.token_grid} --token-pool {args.token_pool}: a {data.width}x{data.height} image must cut"
            f" into whole patches of whole {args.token_pool}x{args.token_pool} cells"
        )
    token_dims = (
        {
            "token_dim": 3 * patch[0] * patch[1],
            "token_grid": args.token_grid,
            "token_views": args.token_views,
            "token_pool": args.token_pool,
        }
        if strategy == "tokendrop"
        else {"token_dim": 0, "token_grid": 0, "token_views": 0}
    )
    if init:
        stats = {k: torch.tensor(v) for k, v in init["stats"].items()}
        # The perception's read-out is the --perception checkpoint's (another perception's may read other targets).
        d = Dims(**{**init["dims"], "aux_dim": pd.aux_dim, "window": args.window, **token_dims})
    else:
        flat = offsets.flatten(0, 1)
        stats = {
            "state_mean": data.state.mean(0),
            "state_std": data.state.std(0).clamp(min=1e-3),
            "action_mean": flat.mean(0),
            "action_std": flat.std(0).clamp(min=1e-3),
        }
        d = Dims(
            **{
                **pd.as_dict(),
                "window": args.window,
                "horizon": data.label.shape[1],
                "vocab_size": vocab.size,
                "max_tokens": vocab.max_length,
                "state_dim": data.state.shape[1],
                "action_dim": data.label.shape[2],
                "hidden": args.hidden,
                "classifier_state": args.classifier_state,
                **token_dims,
            }
        )
    model = Mem0Tiny(d)
    if init:
        # A warm start into another memory module keeps the rest (fusion, classifier, action head).
        same = (init.get("memory_strategy") == "tokendrop") == (strategy == "tokendrop")
        weights = {k: v for k, v in init["state_dict"].items() if same or not k.startswith("memory.")}
        weights.update({f"encoder.perception.{k}": v for k, v in perception.state_dict().items()})
        model.load_state_dict(weights, strict=same)
    model.encoder.perception.load_state_dict(perception.state_dict())
    memory_aux = MemoryAux(d)
    if init and "memory_aux" in init:
        memory_aux.load_state_dict(init["memory_aux"])
    answer = data.answer if (data.answer >= 0).all() else original_mat(data.aux[data.seg_start, :2])
    phase = data.phase()
    # The perception stays frozen; --classifier-only freezes all but the classifier.
    trained = model.classifier if args.classifier_only else model
    for p in model.parameters():
        p.requires_grad_(False)
    for p in trained.parameters():
        p.requires_grad_(True)
    for p in model.encoder.perception.parameters():
        p.requires_grad_(False)
    tokens = torch.stack([torch.from_numpy(vocab.tokens(text, "policy")) for text in data.instructions])
    state_n = (data.state - stats["state_mean"]) / stats["state_std"]
    target = (offsets - stats["action_mean"]) / stats["action_std"]
    params = [p for p in model.parameters() if p.requires_grad]
    if not args.classifier_only:
        params += list(memory_aux.parameters())
    opt = torch.optim.AdamW(params, lr=args.lr, weight_decay=1e-4)
    pos = data.end_label.sum().item()
    pos_weight = torch.tensor(args.pos_weight if args.pos_weight else (data.n - pos) / max(pos, 1.0))
    prior = init["train"] if init else {"steps": 0, "seconds": 0.0, "cpu_seconds": 0.0, "log": []}
    log = list(prior["log"])
    start, cpu0, step = time.time(), time.process_time(), 0
    use_anchor, use_window = not args.no_anchor, not args.no_window
    if strategy == "tokendrop":
        t0 = time.time()
        reads, patches = token_reads(data, tokendrop, args.token_views, model.memory.pool)
        print(f"tokendrop reads: {reads.mask.shape[0]} reads in {time.time() - t0:.0f} s", flush=True)

    def log_line(losses: Dict[str, float]) -> None:
        line = {
            "step": prior["steps"] + step,
            "s": round(prior["seconds"] + time.time() - start, 1),
            "cpu_s": round(prior["cpu_seconds"] + time.process_time() - cpu0, 1),
            **losses,
        }
        log.append(line)
        print(json.dumps(line), flush=True)

    # A step budget makes the run the same however loaded the machine is; else the wall-clock budget.
    progress = (lambda: step / args.steps) if args.steps else (lambda: (time.time() - start) / (args.minutes * 60))
    while progress() < 1:
        for g in opt.param_groups:
            g["lr"] = args.lr * 0.5 * (1 + np.cos(np.pi * progress()))
        idx = data.execution[torch.randint(0, data.execution.shape[0], (args.batch,))]
        fuse = lambda i: model.encoder.fused(feats[i], state_n[i])
        B = idx.shape[0]
        current = fuse(idx)
        text = model.encoder.text_feature(tokens)[data.instruction[idx]]
        if strategy == "tokendrop":
            r = reads.read_of_frame[idx]
            read = patches[reads.frame[r], reads.patch[r]]  # [B, N, cells], pooled
            per_view = args.token_grid**2
            view, patch = (reads.patch[r] // per_view).float(), (reads.patch[r] % per_view).float()
            positions = torch.stack([reads.step[r], view, patch], -1)
            now = (idx - data.seg_start[idx]).float().unsqueeze(1)  # the history step (the runtime's)
            summary = model.memory.read(current, read, positions, reads.mask[r], now, text)
        else:
            anchor_i, win_i, win_mask, shown = data.memory_indices(idx, strategy)
            window = fuse(win_i.flatten()).reshape(B, d.window, -1)
            anchor = fuse(anchor_i).unsqueeze(1)
            anchor_mask = torch.full((B, 1), shown if use_anchor else 0.0)
            if not use_window:
                win_mask = torch.zeros_like(win_mask)
            summary = model.memory(current, window, win_mask, anchor, anchor_mask, text)
        cls = focal_bce(model.classifier(summary, state_n[idx]).squeeze(-1), data.end_label[idx], pos_weight)
        if args.classifier_only:
            loss = cls
            losses: Callable[[], Dict[str, float]] = lambda: {"cls": round(cls.item(), 4)}
        else:
            x1 = target[idx].repeat(args.flow_samples, 1, 1)
            noise = torch.randn_like(x1)
            tau = torch.rand(x1.shape[0], 1)
            xt = (1 - tau[:, :, None]) * noise + tau[:, :, None] * x1
            v = model.action_head(
                xt, tau, state_n[idx].repeat(args.flow_samples, 1), summary.repeat(args.flow_samples, 1, 1)
            )
            follows = data.text_agrees[idx].float().repeat(args.flow_samples)
            flow = (((v - (x1 - noise)) ** 2).mean((1, 2)) * follows).sum() / follows.sum().clamp(min=1.0)
            mat_logits, phase_logits = memory_aux(summary)
            mem = Fn.cross_entropy(mat_logits, answer[idx]) + Fn.cross_entropy(phase_logits, phase[idx])
            loss = flow + args.cls_weight * cls + args.memory_aux * mem
            losses = lambda: {
                "flow": round(flow.item(), 4),
                "cls": round(cls.item(), 4),
                "mat_acc": round((mat_logits.argmax(1) == answer[idx]).float().mean().item(), 3),
                "phase_acc": round((phase_logits.argmax(1) == phase[idx]).float().mean().item(), 3),
            }
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        step += 1
        if step % 100 == 0:
            log_line(losses())
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    save_checkpoint(
        args.out,
        {
            "dims": d.as_dict(),
            "stats": {k: v.tolist() for k, v in stats.items()},
            "vocabulary": {"max_length": vocab.max_length, "pad_id": vocab.pad_id, "vocabulary": vocab.vocabulary},
            "memory_aux_weight": args.memory_aux,
            "classifier_target": {"end_frames": args.end_frames, "retrained_alone": args.classifier_only},
            "ablation": {"anchor": use_anchor and strategy == "mem0", "window": use_window},
            "memory_strategy": strategy,
            **({"tokendrop": tokendrop} if strategy == "tokendrop" else {}),
            "cameras": data.metas[0]["cameras"],
            "layout": data.metas[0].get("layout", "bimanual_16d"),
            "control_hz": data.metas[0].get("control_hz", 10),
            "action_reference": "state",
            "action_norm": "mean_std",
            "recipe": "perception-first DAgger (train policy)",
            "perception": {"path": args.perception, "train": pckpt["train"]},
            "train": {
                "steps": prior["steps"] + step,
                "seconds": round(prior["seconds"] + time.time() - start, 1),
                "cpu_seconds": round(prior["cpu_seconds"] + time.process_time() - cpu0, 1),
                "episodes": len(data.metas),
                "frames": data.n,
                "tasks": sorted({m["task"] for m in data.metas}),
                "seeds": sorted({m["seed"] for m in data.metas}),
                "log": log,
            },
        },
        state_dict=model.state_dict(),
        memory_aux=memory_aux.state_dict(),
    )
    print(
        f"saved {args.out}: {step} steps, {time.time() - start:.0f} s wall, {time.process_time() - cpu0:.0f} s CPU",
        flush=True,
    )


def build_parser(prog: Optional[str] = None) -> argparse.ArgumentParser:
    """The `train` command's flags, one sub-command per stage."""
    ap = argparse.ArgumentParser(prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--threads", type=int, default=1, help="torch CPU threads (default 1)")
    common.add_argument("--seed", type=int, default=0, help="torch's random seed (default 0)")
    stages = ap.add_subparsers(dest="stage", required=True, metavar="STAGE")
    data = "comma-separated collect.ts folders"

    p = stages.add_parser(
        "perception",
        parents=[common],
        help="train the perception alone (stage 1)",
        description="Trains model.Perception on single frames to read the twin's privileged targets.",
    )
    p.add_argument("--data", required=True, help=data)
    p.add_argument("--out", required=True, help="the perception checkpoint to write (.pt)")
    p.add_argument("--minutes", type=float, default=10.0, help="wall-clock training budget (default 10)")
    p.add_argument("--batch", type=int, default=64, help="frames per step (default 64)")
    p.add_argument("--lr", type=float, default=1e-3, help="peak learning rate, cosine-decayed (default 1e-3)")
    p.add_argument("--keypoints", type=int, default=8, help="spatial-softmax keypoints per camera (default 8)")
    p.add_argument("--perception-dim", type=int, default=32, help="perception feature size (default 32)")
    p.add_argument("--jitter", type=float, default=0.05, help="std of the per-camera lighting jitter (default 0.05)")
    p.add_argument("--bin-weight", type=float, default=0.1, help="weight of the 0/1 targets' loss (default 0.1)")
    p.add_argument("--heldout", default="", help="collect.ts folders to report each target's error on, per task")

    p = stages.add_parser(
        "policy",
        parents=[common],
        help="train the execution module on a frozen perception (stage 2)",
        description="Trains encoder fusion, memory, classifier and flow action head; perception frozen.",
    )
    p.add_argument("--data", required=True, help=data + " (a DAgger iteration: all so far)")
    p.add_argument("--perception", required=True, help="the perception checkpoint (stage 1)")
    p.add_argument("--out", required=True, help="the policy checkpoint to write (.pt; `export` makes a bundle of it)")
    p.add_argument("--init", default="", help="warm start from a policy checkpoint (a DAgger iteration)")
    p.add_argument(
        "--vocabulary",
        default="",
        help="vocabulary.json (default: the one in the first --data folder; collect.ts writes it)",
    )
    p.add_argument("--minutes", type=float, default=10.0, help="wall-clock training budget (default 10)")
    p.add_argument("--steps", type=int, default=0, help="a step budget instead of --minutes (default 0: minutes)")
    p.add_argument("--batch", type=int, default=64, help="positions per step (default 64)")
    p.add_argument("--lr", type=float, default=1e-3, help="peak learning rate, cosine-decayed (default 1e-3)")
    p.add_argument("--window", type=int, default=8, help="sliding window size K (default 8)")
    p.add_argument("--hidden", type=int, default=256, help="width of the action head's MLP (default 256)")
    p.add_argument("--flow-samples", type=int, default=4, help="(tau, noise) draws per position (default 4)")
    p.add_argument("--cls-weight", type=float, default=0.5, help="weight of the classifier loss (default 0.5)")
    p.add_argument(
        "--classifier-state",
        action="store_true",
        help="the subtask-end classifier also reads the proprioceptive state, beside the memory summary",
    )
    p.add_argument(
        "--end-frames",
        type=int,
        default=END_FRAMES,
        help=f"classifier positives: the last N frames of each true subtask (Mem-0's L_mem; default {END_FRAMES})",
    )
    p.add_argument(
        "--classifier-only",
        action="store_true",
        help="retrain only the subtask-end classifier of the --init policy (the rest frozen, no action loss)",
    )
    p.add_argument(
        "--pos-weight",
        type=float,
        default=0.0,
        help="weight of the classifier's positive class (Mem-0: 10; default 0: negatives / positives)",
    )
    p.add_argument(
        "--memory-aux",
        type=float,
        default=0.3,
        help="weight of the summary's starting-mat and phase read-outs (default 0.3; 0: off)",
    )
    p.add_argument(
        "--memory",
        choices=MEMORY_STRATEGIES,
        default="mem0",
        help="the runtime memory strategy trained for (manifest memory.strategy; framesamp: --window frames of"
        " the whole history, demonstration included; tokendrop: RoboMME's --window highest-scored patch tokens;"
        " none: no history) (default mem0)",
    )
    p.add_argument("--token-stride", type=int, default=8, help="tokendrop: steps between scores (default 8)")
    p.add_argument("--token-kept", type=int, default=2048, help="tokendrop: tokens the heap keeps (default 2048)")
    p.add_argument("--token-grid", type=int, default=8, help="tokendrop: grid x grid patches per view (default 8)")
    p.add_argument(
        "--token-pool", type=int, default=4, help="tokendrop: pixels pooled per cell side of a token (default 4)"
    )
    p.add_argument(
        "--token-views",
        type=int,
        default=1,
        help="tokendrop: the first N cameras are scored (default 1: RoboMME's memory holds the front camera)",
    )
    p.add_argument("--no-anchor", action="store_true", help="ablation: mask the anchor out (manifest anchor: false)")
    p.add_argument(
        "--no-window",
        action="store_true",
        help="ablation: mask the sliding window out (run with policy.sliding: false)",
    )

    p = stages.add_parser(
        "probe",
        parents=[common],
        help="linear read-out of the block position from a perception",
        description=probe.__doc__,
    )
    p.add_argument("--perception", required=True, help="the perception checkpoint to probe")
    p.add_argument("--fit", required=True, help="comma-separated collect.ts folders to fit the read-out on")
    p.add_argument("--data", required=True, help="comma-separated held-out collect.ts folders to measure on")

    p = stages.add_parser(
        "end-to-end",
        parents=[common],
        help="the earlier recipe on hdf5ToNpy.ts data (not shipped)",
        description=end_to_end.__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    end_to_end.add_arguments(p)
    return ap


STAGES = {"perception": train_perception, "policy": train_policy, "probe": probe, "end-to-end": end_to_end.train}


def main(argv: Optional[Sequence[str]] = None, prog: Optional[str] = None) -> None:
    """`python -m engram_ml train STAGE ...`; `train planner` is the learned planner's (engram_ml/planner/train.py)."""
    rest = list(sys.argv[1:] if argv is None else argv)
    if rest[:1] == ["planner"]:
        from engram_ml.planner.train import main as train_planner

        return train_planner(rest[1:], prog=f"{prog or 'train'} planner")
    args = build_parser(prog).parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    STAGES[args.stage](args)


if __name__ == "__main__":
    main()
