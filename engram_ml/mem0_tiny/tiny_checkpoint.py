"""Writes a tiny, randomly initialised mem0-tiny checkpoint (model.py, in checkpoint.py's format) for the
tests of the policy server and its adapter: the tokenizer and state stats come from a bundle's manifest,
the action range is shrunk to 5 % so random chunks stay gentle on the twin. Deterministic (seed 13).

  python -m engram_ml.mem0_tiny.tiny_checkpoint policies/mem0-tiny/policy.yaml OUT.pt
"""

import argparse
from typing import Optional, Sequence

import torch
import yaml

from engram_ml.mem0_tiny.checkpoint import save_checkpoint
from engram_ml.mem0_tiny.model import Dims, Mem0Tiny


def write_tiny_checkpoint(manifest_path: str, out: str) -> None:
    """A 24x32, K=4 model with the manifest's cameras, layouts, tokenizer and state stats, saved to `out`."""
    with open(manifest_path) as f:
        m = yaml.safe_load(f)
    st, ac, tok = m["normalization"]["state"], m["normalization"]["action"], m["tokenizer"]
    torch.manual_seed(13)
    d = Dims(
        cameras=len(m["cameras"]),
        height=24,
        width=32,
        state_dim=m["state_dim"],
        action_dim=m["action_dim"],
        max_tokens=tok["max_length"],
        vocab_size=1 + max(i for ids in tok["vocabulary"].values() for i in ids),
        feature_dim=16,
        window=4,
        horizon=8,
        hidden=32,
        heads=2,
    )
    model = Mem0Tiny(d)
    lo = [0.05 * v for v in ac["min"]] if ac["kind"] == "min_max" else [-0.05] * d.action_dim
    hi = [0.05 * v for v in ac["max"]] if ac["kind"] == "min_max" else [0.05] * d.action_dim
    save_checkpoint(
        out,
        {
            "dims": d.as_dict(),
            "stats": {"state_mean": st["mean"], "state_std": st["std"], "action_min": lo, "action_max": hi},
            "vocabulary": {"max_length": tok["max_length"], "pad_id": tok["pad_id"], "vocabulary": tok["vocabulary"]},
            "ablation": {"anchor": True, "window": True},
            "action_reference": m.get("action_reference", "absolute"),
            "action_norm": "min_max",
            "train": {"steps": 0, "seconds": 0.0, "episodes": 0, "tasks": ["none (random init)"], "seeds": [0]},
        },
        state_dict=model.state_dict(),
    )


def main(argv: Optional[Sequence[str]] = None) -> None:
    """`python -m engram_ml.mem0_tiny.tiny_checkpoint MANIFEST OUT`."""
    ap = argparse.ArgumentParser(
        prog="python -m engram_ml.mem0_tiny.tiny_checkpoint",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("manifest", help="a bundle's policy.yaml (cameras, tokenizer, normalization)")
    ap.add_argument("out", help="the checkpoint to write (.pt)")
    args = ap.parse_args(argv)
    write_tiny_checkpoint(args.manifest, args.out)


if __name__ == "__main__":
    main()
