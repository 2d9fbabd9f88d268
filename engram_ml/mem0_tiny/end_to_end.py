"""The earlier mem0-tiny recipe (not shipped; the canonical one is engram_ml.mem0_tiny.train): the whole
execution module end to end on expert demonstrations converted by training/mem0_tiny/hdf5ToNpy.ts
(training/mem0_tiny/pipeline.sh runs it). CPU.

  nice -n 10 python -m engram_ml train end-to-end --data data/npy --out runs/mem0-tiny/model.pt \
      [--minutes 20] [--steps N] [--batch 64] [--no-anchor] [--no-window] [--tasks put-back-block,press-button]

Loss per sample (one control step t with the memory the runtime would hold, data.py):
  flow matching: tau ~ U(0, 1), x_tau = (1 - tau) noise + tau a, || v(x_tau, tau) - (a - noise) ||^2
                 over the normalized H-step action chunk a (min_max to [-1, 1]);
  subtask end:   focal BCE on the classifier logit, positives = last 8 frames of each instruction
                 segment, pos_weight = negatives / positives, gamma 2.
Ablations (train and run with the same switch): --no-anchor masks the anchor out (manifest
memory.anchor: false); --no-window masks the sliding window out (run with policy.sliding: false).
"""

import argparse
import json
import os
import time
from typing import Dict, Optional, Tuple

import torch

from engram_ml.mem0_tiny.checkpoint import load_checkpoint, save_checkpoint
from engram_ml.mem0_tiny.data import Episodes
from engram_ml.mem0_tiny.losses import focal_bce
from engram_ml.mem0_tiny.model import Dims, Mem0Tiny


def normalize_images(u8: torch.Tensor) -> torch.Tensor:
    """uint8 [..., H, W, 3] -> float [..., 3, H, W] with the manifest's pixel normalization (mean 0.5, std 0.5)."""
    x = u8.float().div(255.0).sub(0.5).div(0.5)
    return x.movedim(-1, -3)


class Batch:
    """Normalizes and indexes the episode tensors once."""

    def __init__(
        self, ds: Episodes, stats: Dict[str, torch.Tensor], horizon: int, relative: bool, action_norm: str = "min_max"
    ) -> None:
        self.ds = ds
        self.horizon = horizon
        self.relative = relative
        self.images = normalize_images(ds.images)  # once: float32 [N, C, 3, H, W]
        self.state_mean, self.state_std = stats["state_mean"], stats["state_std"]
        self.state = (ds.state - self.state_mean) / self.state_std
        if action_norm == "mean_std":
            self.shift, self.scale = stats["action_mean"], stats["action_std"]
        else:  # min_max: [min, max] -> [-1, 1]
            self.shift, self.scale = (
                (stats["action_min"] + stats["action_max"]) / 2,
                (stats["action_max"] - stats["action_min"]) / 2,
            )

    def normalize_chunk(self, chunk: torch.Tensor) -> torch.Tensor:
        """Robot-unit chunk -> the flow's normalized target."""
        return (chunk - self.shift) / self.scale

    def denormalize_chunk(self, x: torch.Tensor) -> torch.Tensor:
        """Normalized chunk -> robot units."""
        return x * self.scale + self.shift

    def positions(self, runs: int, length: int) -> torch.Tensor:
        """`runs` random runs of `length` consecutive steps (clipped at episode ends): consecutive
        positions share most of their window frames, so each batch encodes few frames."""
        start = torch.randint(0, self.ds.n, (runs,))
        return torch.minimum(start[:, None] + torch.arange(length)[None, :], self.ds.ep_end[start][:, None]).flatten()

    def sample(self, idx: torch.Tensor) -> Dict[str, torch.Tensor]:
        """Memory indices, normalized chunk, raw chunk and end label of the frames `idx`."""
        ds = self.ds
        anchor, win, mask = ds.memory_indices(idx)
        chunk = ds.chunk(idx, self.horizon)
        if self.relative:
            chunk = chunk - ds.state[idx][:, None, :]  # offsets from the state the chunk is computed on
        return {
            "idx": idx,
            "anchor": anchor,
            "win": win,
            "mask": mask,
            "chunk_raw": chunk,
            "chunk": self.normalize_chunk(chunk),
            "label": ds.label[idx],
        }

    def noisy_state(self, frames: torch.Tensor, noise: torch.Tensor) -> torch.Tensor:
        """Normalized states of `frames` with `noise` (robot units) added."""
        return (self.ds.state[frames] + noise - self.state_mean) / self.state_std


def forward_losses(
    model: Mem0Tiny,
    batch: Batch,
    s: Dict[str, torch.Tensor],
    use_anchor: bool = True,
    use_window: bool = True,
    pos_weight: Optional[torch.Tensor] = None,
    flow_samples: int = 1,
    state_noise: Optional[torch.Tensor] = None,
) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Flow and classifier losses. `state_noise` [S] (robot units, per dim): each frame's measured
    state is perturbed by N(0, (u * state_noise)^2), u ~ U(0, 1), and with relative chunks the label
    becomes the offset from the perturbed state to the expert's targets. That is the label a
    perturbed expert gives (DART): PlanExpert commands absolute points of its plan whatever the
    measured state, so the policy learns to steer back when its own arm is off the demonstrated path."""
    ds = batch.ds
    idx, anchor, win = s["idx"], s["anchor"], s["win"]
    B, K = win.shape
    # Encode every frame this batch needs once (current, anchor, window).
    frames, inverse = torch.unique(torch.cat([idx, anchor, win.flatten()]), return_inverse=True)
    images = batch.images[frames]
    noise_s = torch.zeros(len(frames), ds.state.shape[1])
    if state_noise is not None:
        noise_s = torch.randn_like(noise_s) * torch.rand(len(frames), 1) * state_noise
    state = batch.noisy_state(frames, noise_s)
    feat, _ = model.encoder(images, state, ds.tokens[frames])
    text = model.encoder.text_feature(ds.tokens[idx])
    cur = feat[inverse[:B]]
    anc = feat[inverse[B : 2 * B]].unsqueeze(1)
    window = feat[inverse[2 * B :]].reshape(B, K, -1)
    wmask = s["mask"] if use_window else torch.zeros_like(s["mask"])
    amask = torch.ones(B, 1) if use_anchor else torch.zeros(B, 1)
    window = window * wmask.unsqueeze(-1)  # the runtime feeds zeros in empty slots
    anc = anc * amask.unsqueeze(-1)
    summary = model.memory(cur, window, wmask, anc, amask, text)
    logit = model.classifier(summary).squeeze(-1)
    # Several (tau, noise) draws per position: the action head is cheap next to the encoder.
    R = flow_samples
    chunk = s["chunk"]
    if state_noise is not None and batch.relative:
        chunk = batch.normalize_chunk(s["chunk_raw"] - noise_s[inverse[:B]][:, None, :])
    a = chunk.repeat(R, 1, 1)
    noise = torch.randn_like(a)
    tau = torch.rand(B * R, 1)
    x = (1 - tau[:, :, None]) * noise + tau[:, :, None] * a
    v = model.action_head(x, tau, state[inverse[:B]].repeat(R, 1), summary.repeat(R, 1, 1))
    flow = ((v - (a - noise)) ** 2).mean()
    cls = focal_bce(logit, s["label"], pos_weight)
    return flow, cls, logit


def add_arguments(ap: argparse.ArgumentParser) -> None:
    """This recipe's flags (`train end-to-end`; --threads and --seed come from the train command)."""
    ap.add_argument("--data", default="data/npy", help="hdf5ToNpy.ts output folder (default data/npy)")
    ap.add_argument(
        "--out", default="runs/mem0-tiny/model.pt", help="checkpoint to write (default runs/mem0-tiny/model.pt)"
    )
    ap.add_argument("--tasks", default="", help="comma-separated task ids (default: all converted)")
    ap.add_argument("--minutes", type=float, default=20.0, help="wall-clock training budget (default 20)")
    ap.add_argument("--steps", type=int, default=100000, help="step budget (default 100000)")
    ap.add_argument("--batch", type=int, default=64, help="positions per step (default 64)")
    ap.add_argument(
        "--run-length", type=int, default=16, help="positions come in runs of this many consecutive steps (default 16)"
    )
    ap.add_argument("--lr", type=float, default=1e-3, help="peak learning rate, cosine-decayed (default 1e-3)")
    ap.add_argument("--cls-weight", type=float, default=0.5, help="weight of the classifier loss (default 0.5)")
    ap.add_argument("--window", type=int, default=8, help="sliding window size K (default 8)")
    ap.add_argument("--horizon", type=int, default=8, help="action chunk length H (default 8)")
    ap.add_argument("--hidden", type=int, default=256, help="width of the action head's MLP (default 256)")
    ap.add_argument(
        "--keypoints",
        type=int,
        default=16,
        help="spatial-softmax keypoints per camera (default 16; 0: flattened conv grid only)",
    )
    ap.add_argument("--no-anchor", action="store_true", help="ablation: mask the anchor out (manifest anchor: false)")
    ap.add_argument(
        "--no-window",
        action="store_true",
        help="ablation: mask the sliding window out (run with policy.sliding: false)",
    )
    ap.add_argument(
        "--absolute",
        action="store_true",
        help="absolute joint targets (default: chunk offsets from the state, action_reference: state)",
    )
    ap.add_argument(
        "--action-norm",
        choices=["mean_std", "min_max"],
        default="mean_std",
        help="action chunk normalization (mean_std puts the flow's target on the noise's unit scale)",
    )
    ap.add_argument("--flow-samples", type=int, default=4, help="(tau, noise) draws per position (default 4)")
    ap.add_argument(
        "--state-noise",
        type=float,
        default=0.05,
        help="max std (rad) of the perturbation of arm joint states (DART-style labels; 0: off)",
    )
    ap.add_argument(
        "--gripper-noise",
        type=float,
        default=0.005,
        help="max std (m) of the perturbation of gripper states (default 0.005)",
    )
    ap.add_argument(
        "--init",
        default="",
        help="warm start from a checkpoint (continues training; its dims, stats and action normalization kept)",
    )
    ap.add_argument("--log-every", type=int, default=25, help="print a loss line every this many steps (default 25)")
    ap.add_argument(
        "--save-every-min",
        type=float,
        default=0,
        help="also save the checkpoint every this many minutes (default 0: only at the end)",
    )


def train(args: argparse.Namespace) -> None:
    """Trains and saves one checkpoint (torch's threads and seed already set by the caller)."""
    t0 = time.time()
    ds = Episodes(args.data, args.window, tasks=[t for t in args.tasks.split(",") if t])
    init = load_checkpoint(args.init) if args.init else None
    # Grippers are the layout's last dims (bimanual_16d: 14, 15; joint_8d: 7), the rest are arm joints.
    S = ds.state.shape[1]
    state_noise = torch.full((S,), args.state_noise)
    state_noise[{16: [14, 15], 8: [7]}.get(S, [])] = args.gripper_noise
    state_noise = state_noise if args.state_noise > 0 or args.gripper_noise > 0 else None
    widen = 2 * state_noise if state_noise is not None and not args.absolute else None
    stats = (
        {k: torch.tensor(v) for k, v in init["stats"].items()}
        if init
        else ds.stats(args.horizon, not args.absolute, widen)
    )
    # A warm start keeps the checkpoint's sizes (its weights only load into the same model).
    d = (
        Dims(**init["dims"])
        if init
        else Dims(
            window=args.window,
            horizon=args.horizon,
            vocab_size=ds.vocab.size,
            max_tokens=ds.vocab.max_length,
            cameras=ds.images.shape[1],
            height=ds.images.shape[2],
            width=ds.images.shape[3],
            state_dim=ds.state.shape[1],
            action_dim=ds.action.shape[1],
            keypoints=args.keypoints,
            hidden=args.hidden,
        )
    )
    action_norm = init.get("action_norm", "min_max") if init else args.action_norm
    batch = Batch(ds, stats, d.horizon, not args.absolute, action_norm)
    model = Mem0Tiny(d)
    prior_steps, prior_s, prior_cpu, log = 0, 0.0, 0.0, []
    if init:
        model.load_state_dict(init["state_dict"])
        prior_steps, prior_s, prior_cpu = (
            init["train"]["steps"],
            init["train"]["seconds"],
            init["train"].get("cpu_seconds", 0.0),
        )
        log = list(init["train"]["log"])
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    pos = ds.label.sum().item()
    pos_weight = torch.tensor((ds.n - pos) / max(pos, 1.0))
    n_params = sum(p.numel() for p in model.parameters())
    print(
        f"data: {len(ds.metas)} episodes, {ds.n} frames, {int(pos)} end labels; model {n_params} parameters; "
        f"load {time.time() - t0:.1f} s",
        flush=True,
    )

    budget = args.minutes * 60
    start = time.time()
    step, cpu0 = 0, time.process_time()

    def save():
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        save_checkpoint(
            args.out,
            {
                "dims": d.as_dict(),
                "stats": {k: v.tolist() for k, v in stats.items()},
                "vocabulary": {
                    "max_length": ds.vocab.max_length,
                    "pad_id": ds.vocab.pad_id,
                    "vocabulary": ds.vocab.vocabulary,
                },
                "ablation": {"anchor": not args.no_anchor, "window": not args.no_window},
                "action_reference": "absolute" if args.absolute else "state",
                "action_norm": action_norm,
                "state_noise": {"arm": args.state_noise, "gripper": args.gripper_noise},
                "train": {
                    "steps": prior_steps + step,
                    "seconds": round(prior_s + time.time() - start, 1),
                    "cpu_seconds": round(prior_cpu + time.process_time() - cpu0, 1),
                    "episodes": len(ds.metas),
                    "frames": ds.n,
                    "tasks": sorted({m["task"] for m in ds.metas}),
                    "seeds": sorted({m["seed"] for m in ds.metas}),
                    "log": log,
                },
            },
            state_dict=model.state_dict(),
        )

    last_save = start
    while step < args.steps and time.time() - start < budget:
        frac = min(1.0, (time.time() - start) / budget, step / args.steps)
        for g in opt.param_groups:
            g["lr"] = args.lr * 0.5 * (1 + torch.cos(torch.tensor(frac * torch.pi)).item())
        idx = batch.positions(args.batch // args.run_length, args.run_length)
        flow, cls, _ = forward_losses(
            model,
            batch,
            batch.sample(idx),
            not args.no_anchor,
            not args.no_window,
            pos_weight,
            args.flow_samples,
            state_noise,
        )
        loss = flow + args.cls_weight * cls
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        step += 1
        if step % args.log_every == 0:
            line = {
                "step": prior_steps + step,
                "s": round(prior_s + time.time() - start, 1),
                "cpu_s": round(prior_cpu + time.process_time() - cpu0, 1),
                "flow": round(flow.item(), 4),
                "cls": round(cls.item(), 4),
            }
            log.append(line)
            print(json.dumps(line), flush=True)
        if args.save_every_min and time.time() - last_save > args.save_every_min * 60:
            save()  # a checkpoint to try in closed loop while training goes on
            last_save = time.time()

    save()
    print(
        f"saved {args.out}: {step} steps in {time.time() - start:.0f} s wall, {time.process_time() - cpu0:.0f} s CPU",
        flush=True,
    )
