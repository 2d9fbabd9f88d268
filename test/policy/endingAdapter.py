"""A scripted adapter for `python -m engram_ml serve --adapter endingAdapter:create` (PYTHONPATH=test/policy):
the metadata of test/policy/remoteBundle.ts, a subtask end declared at every `end_every`-th observation,
and chunks whose value is (observations so far) + (act calls so far) / 100, so a test can tell which
observation a chunk came from and how many chunks the server computed."""

import numpy as np


class EndingAdapter:
    def __init__(self, end_every):
        self.end_every = end_every
        self.reset(0, 0, "M(n)")

    def metadata(self):
        return {
            "name": "ending",
            "cameras": ["head", "left_wrist", "right_wrist"],
            "image": {"width": 32, "height": 24, "pixel_normalization": {"mean": [0.5] * 3, "std": [0.5] * 3}},
            "state_layout": "bimanual_16d",
            "action_layout": "bimanual_16d",
            "state_dim": 16,
            "action_dim": 16,
            "horizon": 8,
            "control_hz": 10,
        }

    def reset(self, seed, episode, complexity):
        self.observed, self.acts = 0, 0

    def set_instruction(self, text):
        pass

    def observe(self, images, state):
        self.observed += 1
        return 4.0, self.observed % self.end_every == 0

    def act(self):
        self.acts += 1
        return np.full((8, 16), self.observed + self.acts / 100, dtype=np.float32)


def create(end_every="3", device="cpu"):
    return EndingAdapter(int(end_every))
