"""Adapter for mem0-tiny checkpoints (training/mem0_tiny/train.py): the same torch modules as
training (model.py via export.py's load()) driven exactly as src/policy/mem0/Mem0Policy.ts drives
the exported ONNX files: closed-vocabulary tokens, state normalization, anchor + sliding window,
classifier debounce, flow matching from the runtime's seeded noise, denormalization.

The adapter contract (docs/remote-policy.md): metadata, reset, set_instruction, observe, act, infer.
"""
import math
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "training", "mem0_tiny"))
from export import chunk_seed, gaussian_noise, load, manifest  # noqa: E402  (training's own code)

BIMANUAL_16D = [f"{arm}_joint{i + 1}" for arm in ("left", "right") for i in range(7)] + ["left_gripper", "right_gripper"]


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
    def __init__(self, checkpoint, noise_scale=None, name="mem0-tiny", device="cpu"):
        ckpt, self.d, self.model = load(checkpoint)
        if noise_scale is None:  # the scale the checkpoint's bundle samples with (import_bundle.py records it), else 1
            noise_scale = float(ckpt.get("flow_noise_scale", 1.0))
        self.device = torch.device(device)
        self.model.to(self.device)
        self.m = manifest(name, self.d, ckpt, noise_scale)
        self.reset(0, 0, "M(n)")

    def metadata(self):
        m = self.m
        return {"name": m["name"], "cameras": m["cameras"], "image": m["image"], "state_layout": m["layout"]["state"],
                "action_layout": m["layout"]["action"], "state_dim": m["state_dim"], "action_dim": m["action_dim"],
                "action_names": BIMANUAL_16D[: m["action_dim"]], "horizon": m["horizon"], "control_hz": m["control_hz"]}

    def reset(self, seed, episode, complexity):
        self.seed, self.chunk_index, self.positives = int(seed), 0, 0
        self.anchor, self.window, self.tokens, self.last = None, [], None, None
        self.keep_memory_on_end = complexity == "M(1)"

    def set_instruction(self, text):
        tok = self.m["tokenizer"]
        ids = next((v for k, v in tok["vocabulary"].items() if _canonical(k) == _canonical(text)), None)
        if ids is None:
            raise ValueError(f"instruction {text!r} is not in the closed vocabulary; known: {list(tok['vocabulary'])}")
        t = torch.full((1, tok["max_length"]), tok["pad_id"], dtype=torch.int64)
        t[0, : len(ids)] = torch.tensor(ids)
        self.tokens = t.to(self.device)

    @torch.no_grad()
    def observe(self, images, state):
        m, d = self.m, self.d
        if self.tokens is None:
            raise ValueError("observe before an instruction was set (set_instruction)")
        stack = np.stack([np.asarray(images[c], dtype=np.float32).reshape(3, d.height, d.width) for c in m["cameras"]])
        state = np.asarray(state, dtype=np.float64)
        norm = torch.from_numpy(_normalize(state, m["normalization"]["state"])).unsqueeze(0).to(self.device)
        feat, text = self.model.encoder(torch.from_numpy(stack).unsqueeze(0).to(self.device), norm, self.tokens)
        use_anchor = m["memory"]["anchor"]
        if use_anchor and self.anchor is None:
            self.anchor = feat.clone()
        F, K = d.feature_dim, d.window
        window, wmask = torch.zeros(1, K, F, device=self.device), torch.zeros(1, K, device=self.device)
        for j, f in enumerate(self.window):
            window[0, j], wmask[0, j] = f[0], 1
        has_anchor = use_anchor and self.anchor is not None
        anchor = self.anchor.unsqueeze(1) if has_anchor else torch.zeros(1, 1, F, device=self.device)
        amask = torch.ones(1, 1, device=self.device) if has_anchor else torch.zeros(1, 1, device=self.device)
        summary = self.model.memory(feat, window, wmask, anchor, amask, text)
        self.window = (self.window + [feat.clone()])[-K:]
        logit = float(self.model.classifier(summary)[0, 0])
        self.last = (norm, state, summary)
        prob = 1 / (1 + math.exp(-logit)) if logit >= 0 else math.exp(logit) / (1 + math.exp(logit))
        self.positives += 1 if prob >= m["classifier"]["threshold"] else 0
        ended = self.positives >= m["classifier"]["switch_count"]
        if ended:
            self.positives = 0
            if not self.keep_memory_on_end:
                self.anchor, self.window = None, []
        return logit, ended

    @torch.no_grad()
    def act(self):
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

    def infer(self, obs):
        """openpi `infer`: one observation in, a chunk out (memory accumulates across calls until reset)."""
        if "prompt" in obs:
            if not isinstance(obs["prompt"], str):
                raise ValueError(f"infer: prompt is a {type(obs['prompt']).__name__}, expected a str")
            self.set_instruction(obs["prompt"])
        images = {c: obs[f"observation/{c}"] for c in self.m["cameras"]}
        self.observe(images, obs["observation/state"])
        return {"actions": self.act()}


def create(checkpoint, noise_scale=None, device="cpu"):
    return Mem0TinyAdapter(checkpoint, noise_scale=None if noise_scale is None else float(noise_scale), device=device)
