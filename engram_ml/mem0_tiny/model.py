"""mem0-tiny: Mem-0's execution module at small scale, split into the four ONNX files the runtime
runs (src/policy/mem0/Mem0Policy.ts, manifest contract src/config/schemas/policyManifest.ts).

  Encoder     images [B, C, 3, H, W] (normalized RGB), state [B, S] (normalized), tokens [B, L] int64
              -> image_feature [B, F], text_feature [B, F]
              conv stack shared over cameras, flattened (keeps where things are), plus spatial-softmax
              keypoints (expected image x, y of each learned feature map: sub-cell positions of the
              block and the fingers, which the coarse flattened grid blurs), fused with the state;
              text: masked mean of word embeddings over the closed vocabulary.
  Memory      current [B, F], window [B, K, F], window_mask [B, K], anchor [B, 1, F], anchor_mask [B, 1],
              text [B, F] -> summary [B, T, F]
              T learned queries (shifted by current + text) cross-attend over [anchor; window; current]
              with masked softmax; keys carry a type embedding (anchor / window / current) and the window
              entry's age. Two attention + MLP blocks.
  TokenMemory (a tokendrop bundle's memory.onnx) current [B, F], token_pixels [B, N, D] (TokenDrop's patch pixels),
              token_positions [B, N, 3] (history step, view, patch), token_mask [B, N], step [B, 1] (the
              current history step), text [B, F] -> summary [B, T, F]: Memory's queries and blocks over
              the projected patches (plus patch and age embeddings) and the current feature.
  Classifier  summary -> logit [B, 1] (subtask end)
  ActionHead  noisy_actions [B, H, A], tau [B, 1], state [B, S], summary [B, T, F] -> velocity [B, H, A]
              rectified flow: x_tau = (1 - tau) noise + tau action, velocity target action - noise; the
              runtime integrates from noise at tau=0 to the action at tau=1 (src/policy/mem0/flowSampler.ts).
"""

import math
from typing import Any, Dict, Optional, Tuple
from dataclasses import asdict, dataclass

import torch
from torch import nn
import torch.nn.functional as Fn


@dataclass
class Dims:
    """Sizes of one mem0-tiny model (written into the checkpoint and the manifest)."""

    cameras: int = 3
    height: int = 48
    width: int = 64
    state_dim: int = 16
    action_dim: int = 16
    max_tokens: int = 32
    vocab_size: int = 70
    feature_dim: int = 64
    window: int = 8
    summary_tokens: int = 3
    horizon: int = 8
    hidden: int = 256
    heads: int = 4
    keypoints: int = 0  # spatial-softmax keypoints per camera (0: none, as the first shipped models)
    encoder: str = "conv"  # "conv": Encoder (end_to_end.py); "perception": PerceptionEncoder (train.py)
    perception_dim: int = 32
    aux_dim: int = 4  # the perception's training-only read-out of privileged targets (Put Back Block: x, y, z, held)
    token_dim: int = 0  # values per TokenDrop patch token (0: memory.onnx reads frame features, not tokens)
    token_grid: int = 0  # TokenDrop's grid: grid x grid patches per view
    token_views: int = 0  # views TokenDrop scores (the policy's first cameras)
    token_pool: int = 4  # a token's pixels are mean-pooled in token_pool x token_pool cells before projection
    classifier_state: bool = False  # the classifier also reads the normalized state, beside the summary

    def as_dict(self) -> Dict[str, Any]:
        """The sizes as plain data (checkpoints and manifests keep them)."""
        return asdict(self)


class Encoder(nn.Module):
    """The end-to-end encoder (conv + keypoints + state; text embedding): encoder.onnx."""

    def __init__(self, d: Dims) -> None:
        super().__init__()
        self.d = d
        self.conv = nn.Sequential(
            nn.Conv2d(3, 16, kernel_size=4, stride=4),
            nn.ReLU(),
            nn.Conv2d(16, 32, kernel_size=3, stride=2, padding=1),
            nn.ReLU(),
        )
        flat = 32 * (d.height // 8) * (d.width // 8)
        if d.keypoints:
            self.keypoint_maps = nn.Sequential(
                nn.Conv2d(16, 32, kernel_size=3, padding=1), nn.ReLU(), nn.Conv2d(32, d.keypoints, kernel_size=1)
            )
            h4, w4 = d.height // 4, d.width // 4
            ys, xs = torch.meshgrid(torch.linspace(-1, 1, h4), torch.linspace(-1, 1, w4), indexing="ij")
            self.register_buffer("grid", torch.stack([xs.flatten(), ys.flatten()], dim=-1))  # [h4*w4, 2]
            flat += 2 * d.keypoints
        self.img = nn.Linear(d.cameras * flat, 128)
        self.state = nn.Linear(d.state_dim, 128)
        self.out = nn.Linear(128, d.feature_dim)
        self.norm = nn.LayerNorm(d.feature_dim)
        self.embedding = nn.Embedding(d.vocab_size, d.feature_dim)
        self.text = nn.Linear(d.feature_dim, d.feature_dim)

    def forward(
        self, images: torch.Tensor, state: torch.Tensor, tokens: torch.Tensor
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        b = images.shape[0]
        early = self.conv[:2](images.flatten(0, 1))  # [B*C, 16, H/4, W/4]
        x = self.conv[2:](early).flatten(1)  # [B*C, 32 * H/8 * W/8]
        if self.d.keypoints:
            att = torch.softmax(self.keypoint_maps(early).flatten(2), dim=-1)  # [B*C, K, H/4 * W/4]
            x = torch.cat([x, (att @ self.grid).flatten(1)], dim=-1)  # + K (x, y) pairs
        x = x.reshape(b, -1)
        h = Fn.relu(self.img(x) + self.state(state))
        return self.norm(self.out(h)), self.text_feature(tokens)

    def text_feature(self, tokens: torch.Tensor) -> torch.Tensor:
        """Masked mean of the word embeddings (pad id 0 excluded), then a linear map."""
        valid = (tokens != 0).float().unsqueeze(-1)
        emb = self.embedding(tokens) * valid
        return self.text(emb.sum(1) / valid.sum(1).clamp(min=1.0))


class Perception(nn.Module):
    """Images [B, C, 3, H, W] -> perception feature [B, P], trained first on its own (train.py) to
    read privileged sim targets through `aux` (block position, held): per camera a conv stack at half
    resolution, spatial-softmax keypoints (expected x, y of each learned map: sub-pixel positions of
    the block and the fingers) and pooled features; an MLP over all cameras."""

    def __init__(self, d: Dims) -> None:
        super().__init__()
        k = d.keypoints or 8
        self.conv = nn.Sequential(
            nn.Conv2d(3, 16, kernel_size=5, stride=2, padding=2),
            nn.ReLU(),
            nn.Conv2d(16, 16, kernel_size=3, padding=1),
            nn.ReLU(),
        )
        self.maps = nn.Conv2d(16, k, kernel_size=1)
        self.pool = nn.Sequential(nn.Conv2d(16, 32, kernel_size=3, stride=2, padding=1), nn.ReLU())
        h2, w2 = (d.height + 1) // 2, (d.width + 1) // 2
        ys, xs = torch.meshgrid(torch.linspace(-1, 1, h2), torch.linspace(-1, 1, w2), indexing="ij")
        self.register_buffer("grid", torch.stack([xs.flatten(), ys.flatten()], dim=-1))  # [h2*w2, 2]
        self.log_temperature = nn.Parameter(torch.zeros(1))
        self.mlp = nn.Sequential(nn.Linear(d.cameras * (2 * k + 32), 256), nn.ReLU(), nn.Linear(256, d.perception_dim))
        self.aux = nn.Linear(d.perception_dim, d.aux_dim)

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        b = images.shape[0]
        x = self.conv(images.flatten(0, 1))  # [B*C, 16, H/2, W/2]
        att = torch.softmax(self.maps(x).flatten(2) * torch.exp(self.log_temperature), dim=-1)  # [B*C, k, h2*w2]
        keypoints = (att @ self.grid).flatten(1)  # [B*C, 2k]
        pooled = self.pool(x).mean(dim=(2, 3))  # [B*C, 32]
        return Fn.relu(self.mlp(torch.cat([keypoints, pooled], dim=-1).reshape(b, -1)))


class PerceptionEncoder(nn.Module):
    """The encoder contract (images, state, tokens -> image feature, text feature) over a Perception:
    the perception feature fused with the normalized state; text as Encoder's."""

    def __init__(self, d: Dims) -> None:
        super().__init__()
        self.d = d
        self.perception = Perception(d)
        self.fuse = nn.Sequential(
            nn.Linear(d.perception_dim + d.state_dim, 128), nn.ReLU(), nn.Linear(128, d.feature_dim)
        )
        self.norm = nn.LayerNorm(d.feature_dim)
        self.embedding = nn.Embedding(d.vocab_size, d.feature_dim)
        self.text = nn.Linear(d.feature_dim, d.feature_dim)

    def fused(self, perception: torch.Tensor, state: torch.Tensor) -> torch.Tensor:
        """Perception feature + normalized state -> image feature (what the memory stores)."""
        return self.norm(self.fuse(torch.cat([perception, state], dim=-1)))

    def forward(
        self, images: torch.Tensor, state: torch.Tensor, tokens: torch.Tensor
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        return self.fused(self.perception(images), state), self.text_feature(tokens)

    text_feature = Encoder.text_feature


class Block(nn.Module):
    """Cross-attention of the queries over the memory keys (masked), then an MLP; pre-norm residual."""

    def __init__(self, f: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.nq = nn.LayerNorm(f)
        self.nk = nn.LayerNorm(f)
        self.q = nn.Linear(f, f)
        self.k = nn.Linear(f, f)
        self.v = nn.Linear(f, f)
        self.o = nn.Linear(f, f)
        self.nm = nn.LayerNorm(f)
        self.mlp = nn.Sequential(nn.Linear(f, 2 * f), nn.GELU(), nn.Linear(2 * f, f))

    def forward(self, q: torch.Tensor, keys: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        b, t, f = q.shape
        n = keys.shape[1]
        h, dh = self.heads, f // self.heads
        kn = self.nk(keys)
        qh = self.q(self.nq(q)).reshape(b, t, h, dh).transpose(1, 2)  # [B, h, T, dh]
        kh = self.k(kn).reshape(b, n, h, dh).transpose(1, 2)
        vh = self.v(kn).reshape(b, n, h, dh).transpose(1, 2)
        scores = qh @ kh.transpose(2, 3) / math.sqrt(dh) + bias  # bias [B, 1, 1, N]
        att = torch.softmax(scores, dim=-1) @ vh  # [B, h, T, dh]
        q = q + self.o(att.transpose(1, 2).reshape(b, t, f))
        return q + self.mlp(self.nm(q))


class Memory(nn.Module):
    """Learned queries over [anchor; window; current] with masks: memory.onnx."""

    def __init__(self, d: Dims) -> None:
        super().__init__()
        f = d.feature_dim
        self.d = d
        self.queries = nn.Parameter(torch.randn(d.summary_tokens, f) * 0.1)
        self.shift = nn.Linear(2 * f, f)
        self.kinds = nn.Parameter(torch.randn(3, f) * 0.1)  # anchor, window, current
        self.age = nn.Parameter(torch.randn(f) * 0.1)
        self.blocks = nn.ModuleList([Block(f, d.heads), Block(f, d.heads)])
        self.norm = nn.LayerNorm(f)

    def forward(
        self,
        current: torch.Tensor,
        window: torch.Tensor,
        window_mask: torch.Tensor,
        anchor: torch.Tensor,
        anchor_mask: torch.Tensor,
        text: torch.Tensor,
    ) -> torch.Tensor:
        K = window.shape[1]
        n = window_mask.sum(1, keepdim=True)  # valid entries, oldest first
        slots = torch.arange(K, dtype=window.dtype, device=window.device).unsqueeze(0)
        age = (n - slots) * window_mask / K  # 1/K for the newest ... n/K for the oldest; 0 on padding
        win = window + self.kinds[1] + age.unsqueeze(-1) * self.age
        keys = torch.cat([anchor + self.kinds[0], win, current.unsqueeze(1) + self.kinds[2]], dim=1)
        mask = torch.cat([anchor_mask, window_mask, torch.ones_like(anchor_mask)], dim=1)
        bias = ((mask - 1.0) * 1e9).unsqueeze(1).unsqueeze(1)
        q = self.queries.unsqueeze(0) + self.shift(torch.cat([current, text], dim=-1)).unsqueeze(1)
        for block in self.blocks:
            q = block(q, keys, bias)
        return self.norm(q)


class TokenMemory(nn.Module):
    """Learned queries over TokenDrop's patch tokens and the current feature: a tokendrop bundle's memory.onnx.
    A token is its patch's pixels mean-pooled in token_pool x token_pool cells (the colours and where they sit
    in the patch) projected to F, plus its patch's embedding and its age (steps before the current one, as
    age / 100 and log(1 + age) / 5: the demonstration is hundreds of steps back)."""

    def __init__(self, d: Dims) -> None:
        super().__init__()
        f = d.feature_dim
        self.d = d
        self.patch_size = (d.height // d.token_grid, d.width // d.token_grid)
        pooled = 3 * (self.patch_size[0] // d.token_pool) * (self.patch_size[1] // d.token_pool)
        self.project = nn.Sequential(nn.Linear(pooled, f), nn.GELU(), nn.Linear(f, f))
        self.patch = nn.Embedding(d.token_views * d.token_grid**2, f)
        self.age = nn.Linear(2, f)
        self.queries = nn.Parameter(torch.randn(d.summary_tokens, f) * 0.1)
        self.shift = nn.Linear(2 * f, f)
        self.kinds = nn.Parameter(torch.randn(2, f) * 0.1)  # token, current
        self.blocks = nn.ModuleList([Block(f, d.heads), Block(f, d.heads)])
        self.norm = nn.LayerNorm(f)

    def pool(self, tokens: torch.Tensor) -> torch.Tensor:
        """Patch pixels [..., 3 * ph * pw] in (channel, row, column) order -> the pooled cells [..., 3 * cells]."""
        (ph, pw), k = self.patch_size, self.d.token_pool
        cells = tokens.reshape(*tokens.shape[:-1], 3, ph // k, k, pw // k, k).mean(dim=(-3, -1))
        return cells.flatten(-3)

    def forward(
        self,
        current: torch.Tensor,
        tokens: torch.Tensor,
        token_positions: torch.Tensor,
        token_mask: torch.Tensor,
        step: torch.Tensor,
        text: torch.Tensor,
    ) -> torch.Tensor:
        return self.read(current, self.pool(tokens), token_positions, token_mask, step, text)

    def read(
        self,
        current: torch.Tensor,
        pooled: torch.Tensor,
        token_positions: torch.Tensor,
        token_mask: torch.Tensor,
        step: torch.Tensor,
        text: torch.Tensor,
    ) -> torch.Tensor:
        """forward() on tokens already pooled (training pools every frame's patches once)."""
        age = (step - token_positions[..., 0]).clamp(min=0)  # [B, N]
        age_features = torch.stack([age / 100, torch.log1p(age) / 5], dim=-1)
        patch = (token_positions[..., 1] * self.d.token_grid**2 + token_positions[..., 2]).long()
        keys = self.project(pooled) + self.patch(patch) + self.age(age_features) + self.kinds[0]
        keys = torch.cat([keys, current.unsqueeze(1) + self.kinds[1]], dim=1)
        mask = torch.cat([token_mask, torch.ones_like(token_mask[:, :1])], dim=1)
        bias = ((mask - 1.0) * 1e9).unsqueeze(1).unsqueeze(1)
        q = self.queries.unsqueeze(0) + self.shift(torch.cat([current, text], dim=-1)).unsqueeze(1)
        for block in self.blocks:
            q = block(q, keys, bias)
        return self.norm(q)


class Classifier(nn.Module):
    """Summary (and, with d.classifier_state, the normalized proprioceptive state) -> subtask-end logit."""

    def __init__(self, d: Dims) -> None:
        super().__init__()
        self.with_state = d.classifier_state
        n_in = d.summary_tokens * d.feature_dim + (d.state_dim if d.classifier_state else 0)
        self.net = nn.Sequential(nn.Linear(n_in, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, summary: torch.Tensor, state: Optional[torch.Tensor] = None) -> torch.Tensor:
        x = summary.flatten(1)
        if self.with_state:
            if state is None:
                raise ValueError("this classifier reads the state beside the summary (Dims.classifier_state)")
            x = torch.cat([x, state], dim=-1)
        return self.net(x)


class ActionHead(nn.Module):
    """Flow-matching velocity of the action chunk: action_head.onnx."""

    def __init__(self, d: Dims) -> None:
        super().__init__()
        self.d = d
        n_in = d.horizon * d.action_dim + 32 + d.state_dim + d.summary_tokens * d.feature_dim
        self.freqs = nn.Parameter(torch.exp(torch.linspace(0, math.log(100.0), 16)), requires_grad=False)
        self.net = nn.Sequential(
            nn.Linear(n_in, d.hidden),
            nn.SiLU(),
            nn.Linear(d.hidden, d.hidden),
            nn.SiLU(),
            nn.Linear(d.hidden, d.hidden),
            nn.SiLU(),
            nn.Linear(d.hidden, d.horizon * d.action_dim),
        )

    def forward(
        self, noisy_actions: torch.Tensor, tau: torch.Tensor, state: torch.Tensor, summary: torch.Tensor
    ) -> torch.Tensor:
        ang = tau * self.freqs  # [B, 16]
        x = torch.cat([noisy_actions.flatten(1), torch.sin(ang), torch.cos(ang), state, summary.flatten(1)], dim=-1)
        return self.net(x).reshape(noisy_actions.shape)


class Mem0Tiny(nn.Module):
    """The four parts together (training); export.py exports each part to its own ONNX file."""

    def __init__(self, d: Dims) -> None:
        super().__init__()
        self.dims = d
        self.encoder = PerceptionEncoder(d) if d.encoder == "perception" else Encoder(d)
        self.memory = TokenMemory(d) if d.token_dim else Memory(d)
        self.classifier = Classifier(d)
        self.action_head = ActionHead(d)
