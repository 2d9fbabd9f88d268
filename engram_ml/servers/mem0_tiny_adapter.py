"""Adapter for mem0-tiny checkpoints (engram_ml.mem0_tiny.train): the same torch modules as training
(model.py via export.py's load()) driven exactly as src/policy/mem0/Mem0Policy.ts drives the
exported ONNX files: closed-vocabulary tokens, state normalization, anchor + sliding window
(engram_ml.memory.mem0, the rule the runtime and the training data share), classifier debounce,
flow matching from the runtime's seeded noise, denormalization.

The adapter contract (docs/remote-policy.md): metadata, reset, set_instruction, observe, act, infer.
"""

import math
from typing import Any, Dict, List, Mapping, Optional, Tuple

import numpy as np
import torch

from engram_ml.mem0_tiny.export import chunk_seed, gaussian_noise, load, manifest
from engram_ml.memory.framesamp import FrameSampMemory
from engram_ml.memory.mem0 import Mem0Memory

BIMANUAL_16D = [f"{arm}_joint{i + 1}" for arm in ("left", "right") for i in range(7)] + [
    "left_gripper",
    "right_gripper",
]


def _canonical(text):
    return " ".join(text.strip().rstrip(".").strip().split()).lower()


def _normalize(x, st):
    out = np.array(x, dtype=np.float32)
    if st["kind"] == "min_max":
        for i, d in enumerate(st["dims"]):
            out[d] = 2 * (x[d] - st["min"][i]) / (st["max"][i] - st["min"][i]) - 1
    elif st["kind"] == "mean_std":
        for i, d in enumerate(st["dims"]):
            out[d] = (x[d] - st["mean"][i]) / st["std"][i]
    return out


def _denormalize(x, st):
    out = np.array(x, dtype=np.float64)
    if st["kind"] == "min_max":
        for i, d in enumerate(st["dims"]):
            out[:, d] = (x[:, d] + 1) / 2 * (st["max"][i] - st["min"][i]) + st["min"][i]
    elif st["kind"] == "mean_std":
        for i, d in enumerate(st["dims"]):
            out[:, d] = x[:, d] * st["std"][i] + st["mean"][i]
    return out


class Mem0TinyAdapter:
    """One mem0-tiny checkpoint behind the adapter contract; holds one episode's memory."""

    def __init__(
        self,
        checkpoint: str,
        noise_scale: Optional[float] = None,
        name: str = "mem0-tiny",
        device: str = "cpu",
        memory_strategy: str = "mem0",
    ) -> None:
        ckpt, self.d, self.model = load(checkpoint)
        if noise_scale is None:  # the scale the checkpoint's bundle samples with (import_bundle records it), else 1
            noise_scale = float(ckpt.get("flow_noise_scale", 1.0))
        self.device = torch.device(device)
        self.model.to(self.device)
        self.m = manifest(name, self.d, ckpt, noise_scale)
        # The manifest has no sliding switch: a bundle's window is always on (the runtime's `sliding: false`
        # is a run config, not part of the checkpoint).
        # The memory strategy, as the runtime's run config `memory.strategy` picks it (test/vectors/memory.json):
        # mem0 (the checkpoint's anchor + window), framesamp (RoboMME's sampling into the K window slots), none.
        if memory_strategy not in ("mem0", "framesamp", "none"):
            raise ValueError(f"memory strategy {memory_strategy!r}: expected mem0, framesamp or none")
        self.strategy = memory_strategy
        self.memory: Mem0Memory[torch.Tensor] = Mem0Memory(self.d.window, anchor=bool(self.m["memory"]["anchor"]))
        self.frames: FrameSampMemory[torch.Tensor] = FrameSampMemory(self.d.window)
        self.reset(0, 0, "M(n)")

    def metadata(self) -> Dict[str, Any]:
        """The metadata frame: the manifest's cameras, image, layouts, sizes and rates."""
        m = self.m
        return {
            "name": m["name"],
            "cameras": m["cameras"],
            "image": m["image"],
            "state_layout": m["layout"]["state"],
            "action_layout": m["layout"]["action"],
            "state_dim": m["state_dim"],
            "action_dim": m["action_dim"],
            "action_names": BIMANUAL_16D[: m["action_dim"]],
            "horizon": m["horizon"],
            "control_hz": m["control_hz"],
        }

    def reset(self, seed: int, episode: int, complexity: str) -> None:
        """A new episode: memory cleared, `seed` drives the chunk noise, M(1) keeps memory across ends."""
        self.seed, self.chunk_index, self.positives = int(seed), 0, 0
        self.memory.clear()
        self.frames.clear()
        self.tokens, self.last = None, None
        self.keep_memory_on_end = complexity == "M(1)"

    def set_instruction(self, text: str) -> None:
        """Tokens of `text` (ValueError for text outside the closed vocabulary)."""
        tok = self.m["tokenizer"]
        ids = next((v for k, v in tok["vocabulary"].items() if _canonical(k) == _canonical(text)), None)
        if ids is None:
            raise ValueError(f"instruction {text!r} is not in the closed vocabulary; known: {list(tok['vocabulary'])}")
        t = torch.full((1, tok["max_length"]), tok["pad_id"], dtype=torch.int64)
        t[0, : len(ids)] = torch.tensor(ids)
        self.tokens = t.to(self.device)

    def _encode(self, images: Mapping[str, np.ndarray], state: np.ndarray, tokens: torch.Tensor):
        """The encoder over the cameras' images and the normalized state: (normalized state, image, text features)."""
        m, d = self.m, self.d
        stack = np.stack([np.asarray(images[c], dtype=np.float32).reshape(3, d.height, d.width) for c in m["cameras"]])
        norm = torch.from_numpy(_normalize(state, m["normalization"]["state"])).unsqueeze(0).to(self.device)
        feat, text = self.model.encoder(torch.from_numpy(stack).unsqueeze(0).to(self.device), norm, tokens)
        return norm, feat, text

    @torch.no_grad()
    def observe_demonstration(self, images: Mapping[str, np.ndarray], state: np.ndarray) -> None:
        """One demonstration frame (before the first observe): a memory write, no classifier, no debounce.

        As Mem0Policy.observeDemonstration: without an instruction yet (M(n) before the planner) the
        frame is encoded with the all-pad tokens.
        """
        tok = self.m["tokenizer"]
        tokens = self.tokens
        if tokens is None:
            tokens = torch.full((1, tok["max_length"]), tok["pad_id"], dtype=torch.int64, device=self.device)
        _, feat, _ = self._encode(images, np.asarray(state, dtype=np.float64), tokens)
        self._memory_inputs(feat)

    def _memory_inputs(self, feat: torch.Tensor) -> Tuple[List[torch.Tensor], Optional[torch.Tensor]]:
        """Writes this tick's feature to the strategy; returns the window features and the anchor it reads."""
        if self.strategy == "framesamp":
            return self.frames.write(feat.clone()), None
        inputs = self.memory.write(feat.clone())
        if self.strategy == "none":
            return [], None
        return inputs.window, inputs.anchor

    @torch.no_grad()
    def observe(self, images: Mapping[str, np.ndarray], state: np.ndarray) -> Tuple[float, bool]:
        """One tick: memory write, classifier logit and whether the debounce declares a subtask end."""
        m, d = self.m, self.d
        if self.tokens is None:
            raise ValueError("observe before an instruction was set (set_instruction)")
        state = np.asarray(state, dtype=np.float64)
        norm, feat, text = self._encode(images, state, self.tokens)
        read, read_anchor = self._memory_inputs(feat)
        F, K = d.feature_dim, d.window
        window, wmask = torch.zeros(1, K, F, device=self.device), torch.zeros(1, K, device=self.device)
        for j, f in enumerate(read):
            window[0, j], wmask[0, j] = f[0], 1
        if read_anchor is not None:
            anchor, amask = read_anchor.unsqueeze(1), torch.ones(1, 1, device=self.device)
        else:
            anchor, amask = torch.zeros(1, 1, F, device=self.device), torch.zeros(1, 1, device=self.device)
        summary = self.model.memory(feat, window, wmask, anchor, amask, text)
        logit = float(self.model.classifier(summary, norm)[0, 0])
        self.last = (norm, state, summary)
        prob = 1 / (1 + math.exp(-logit)) if logit >= 0 else math.exp(logit) / (1 + math.exp(logit))
        self.positives += 1 if prob >= m["classifier"]["threshold"] else 0
        ended = self.positives >= m["classifier"]["switch_count"]
        if ended:
            self.positives = 0
            if not self.keep_memory_on_end:
                self.memory.clear()  # Mem-0's clear; FrameSamp keeps its history across subtask ends
        return logit, ended

    @torch.no_grad()
    def act(self) -> np.ndarray:
        """A chunk [H, A] float32 in robot units from the last observe's summary (seeded flow noise)."""
        m, d = self.m, self.d
        if self.last is None:
            raise ValueError("act before observe (no memory summary yet)")
        norm, state, summary = self.last
        H, A, n = d.horizon, d.action_dim, m["flow_steps"]
        noise = gaussian_noise(H * A, chunk_seed(self.seed, self.chunk_index)) * np.float32(m["flow_noise_scale"])
        self.chunk_index += 1
        x = torch.from_numpy(noise).reshape(1, H, A).to(self.device)
        for k in range(n):
            x = x + (1.0 / n) * self.model.action_head(x, torch.full((1, 1), k / n, device=self.device), norm, summary)
        chunk = _denormalize(x[0].cpu().numpy(), m["normalization"]["action"])
        if m["action_reference"] == "state":
            chunk = chunk + state[None, :]
        return chunk.astype(np.float32)

    def infer(self, obs: Mapping[str, Any]) -> Dict[str, np.ndarray]:
        """openpi `infer`: one observation in, a chunk out (memory accumulates across calls until reset)."""
        if "prompt" in obs:
            if not isinstance(obs["prompt"], str):
                raise ValueError(f"infer: prompt is a {type(obs['prompt']).__name__}, expected a str")
            self.set_instruction(obs["prompt"])
        images = {c: obs[f"observation/{c}"] for c in self.m["cameras"]}
        self.observe(images, obs["observation/state"])
        return {"actions": self.act()}


def create(
    checkpoint: str, noise_scale: Optional[float] = None, device: str = "cpu", memory_strategy: str = "mem0"
) -> Mem0TinyAdapter:
    """The server's factory for the built-in adapter (`serve --checkpoint`, `--memory-strategy`)."""
    scale = None if noise_scale is None else float(noise_scale)
    return Mem0TinyAdapter(checkpoint, noise_scale=scale, device=device, memory_strategy=memory_strategy)
