"""Rebuilds a training checkpoint (`train policy`'s format) and its perception checkpoint from a shipped
perception-first mem0-tiny bundle, so DAgger can continue from the bundle when the checkpoints are gone
(they live outside git). The weights come from the ONNX initializers; torch.onnx folds the memory's
3-D linears into MatMul on transposed constants and its type embeddings into Add constants, so those
are mapped through the graph node that consumes them. export.py's parity inputs then check the result:
the rebuilt model must reproduce the bundle's parity.json.

  python -m engram_ml import-bundle policies/mem0-tiny runs/it3.pt runs/perception.pt
"""

import argparse
import json
import os
from typing import Any, Dict, Optional, Sequence

import numpy as np
import onnx
import torch
import yaml
from onnx import numpy_helper

from engram_ml.mem0_tiny.checkpoint import save_checkpoint
from engram_ml.mem0_tiny.export import parity
from engram_ml.mem0_tiny.model import Dims, Mem0Tiny, Perception

# Memory constants torch.onnx renamed: the consuming node -> (parameter, transform).
MEMORY_ADDS = {"/Add": "kinds.1", "/Add_2": "kinds.0", "/Add_3": "kinds.2", "/Add_4": "queries"}


def initializers(path: str, rename_matmuls: bool = False) -> Dict[str, torch.Tensor]:
    """name -> tensor of one ONNX file; with `rename_matmuls` the folded constants get their parameter names."""
    model = onnx.load(path)
    values = {i.name: torch.from_numpy(numpy_helper.to_array(i).copy()) for i in model.graph.initializer}
    if not rename_matmuls:
        return values
    out = {k: v for k, v in values.items() if not k.startswith("onnx::")}
    kinds = {}
    for node in model.graph.node:
        for name in node.input:
            if not name.startswith("onnx::") or name not in values:
                continue
            if (
                node.op_type == "MatMul"
            ):  # /blocks.0/q/MatMul -> blocks.0.q, /blocks.0/mlp/mlp.0/MatMul -> blocks.0.mlp.0
                parts = node.name.strip("/").split("/")
                out[f"{parts[0]}.{parts[-2]}.weight"] = values[name].T.contiguous()
            elif node.op_type == "Add" and node.name in MEMORY_ADDS:
                target = MEMORY_ADDS[node.name]
                if target.startswith("kinds."):
                    kinds[int(target[-1])] = values[name].reshape(-1)
                else:
                    out[target] = values[name].reshape(-1, values[name].shape[-1])
            else:
                raise SystemExit(
                    f"{path}: constant {name} consumed by {node.op_type} {node.name}: unknown to this importer"
                )
    out["kinds"] = torch.stack([kinds[i] for i in range(3)])
    return out


def main(argv: Optional[Sequence[str]] = None, prog: Optional[str] = None) -> None:
    """`python -m engram_ml import-bundle BUNDLE OUT PERCEPTION_OUT`."""
    ap = argparse.ArgumentParser(prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("bundle", help="a perception-first mem0-tiny bundle folder (policy.yaml, four ONNX, parity.json)")
    ap.add_argument("out", help="the policy checkpoint to write")
    ap.add_argument("perception_out", help="the perception checkpoint to write")
    args = ap.parse_args(argv)
    for name in ["policy.yaml", "parity.json"]:
        if not os.path.isfile(os.path.join(args.bundle, name)):
            raise SystemExit(f"{args.bundle}: no {name} (expected a mem0-tiny bundle folder, e.g. policies/mem0-tiny)")
    for out in [args.out, args.perception_out]:
        os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(os.path.join(args.bundle, "policy.yaml")) as f:
        m = yaml.safe_load(f)
    if m.get("action_reference") != "state" or m["normalization"]["action"]["kind"] != "mean_std":
        raise SystemExit(
            f"{args.bundle}: not a perception-first bundle (action_reference {m.get('action_reference')}, "
            f"action normalization {m['normalization']['action']['kind']})"
        )
    parts = {
        k: initializers(os.path.join(args.bundle, m["models"][k]["file"]), rename_matmuls=(k == "memory"))
        for k in ["encoder", "memory", "classifier", "action_head"]
    }
    enc = parts["encoder"]
    d = Dims(
        cameras=len(m["cameras"]),
        height=m["image"]["height"],
        width=m["image"]["width"],
        state_dim=m["state_dim"],
        action_dim=m["action_dim"],
        max_tokens=m["tokenizer"]["max_length"],
        vocab_size=enc["embedding.weight"].shape[0],
        feature_dim=m["memory"]["feature_dim"],
        window=m["memory"]["window"],
        summary_tokens=m["memory"]["summary_tokens"],
        horizon=m["horizon"],
        hidden=parts["action_head"]["net.0.weight"].shape[0],
        keypoints=enc["perception.maps.weight"].shape[0],
        encoder="perception",
        perception_dim=enc["perception.mlp.2.weight"].shape[0],
        classifier_state="state" in m["models"]["classifier"]["inputs"],
    )
    model = Mem0Tiny(d)
    state = {f"{k}.{name}": v for k, vs in parts.items() for name, v in vs.items()}
    missing, unexpected = model.load_state_dict(state, strict=False)
    # The grids are rebuilt from the dims; the perception's aux read-out is training-only (not exported).
    missing = [k for k in missing if not k.endswith(".grid") and ".perception.aux." not in k]
    if missing or unexpected:
        raise SystemExit(f"{args.bundle}: weights do not match the model: missing {missing}, unexpected {unexpected}")
    model.eval()
    norm = m["normalization"]
    stats = {
        "state_mean": norm["state"]["mean"],
        "state_std": norm["state"]["std"],
        "action_mean": norm["action"]["mean"],
        "action_std": norm["action"]["std"],
    }
    with open(os.path.join(args.bundle, "parity.json")) as f:
        expected = json.load(f)
    worst = parity_difference(model, d, m, expected)
    if worst > 1e-4:
        raise SystemExit(f"{args.bundle}: the rebuilt model differs from parity.json by {worst:.2e}: not imported")
    with open(os.path.join(args.bundle, "policy.yaml")) as f:
        header = f.readline().strip("# \n")
    train = {
        "steps": 0,
        "seconds": 0.0,
        "cpu_seconds": 0.0,
        "log": [],
        "imported_from": os.path.abspath(args.bundle),
        "bundle_header": header,
        **bundle_history(args.bundle),
    }
    tok = m["tokenizer"]
    save_checkpoint(
        args.out,
        {
            "dims": d.as_dict(),
            "stats": stats,
            "vocabulary": {"max_length": tok["max_length"], "pad_id": tok["pad_id"], "vocabulary": tok["vocabulary"]},
            "ablation": {"anchor": bool(m["memory"]["anchor"]), "window": True},
            "action_reference": "state",
            "action_norm": "mean_std",
            "recipe": "perception-first DAgger (train policy)",
            "train": train,
            # the bundle samples its flow from this scale (0: the noise mean); a server of this checkpoint must too
            "flow_noise_scale": float(m.get("flow_noise_scale", 1.0)),
        },
        state_dict=model.state_dict(),
    )
    perception = Perception(d)
    perception.load_state_dict(
        {k[len("perception.") :]: v for k, v in enc.items() if k.startswith("perception.")}, strict=False
    )
    save_checkpoint(args.perception_out, {"dims": d.as_dict(), "train": train}, state_dict=perception.state_dict())
    print(
        json.dumps(
            {"imported": args.bundle, "out": args.out, "perception": args.perception_out, "parity_max_abs_diff": worst}
        )
    )


def bundle_history(bundle: str) -> Dict[str, Any]:
    """The steps, time and loss log of the bundle's train_log.json, so that training on from the import counts on
    from them (train.py adds to its --init's); nothing when the bundle has none."""
    path = os.path.join(bundle, "train_log.json")
    if not os.path.isfile(path):
        return {}
    with open(path) as f:
        try:
            history = json.load(f)
        except ValueError as e:
            raise SystemExit(f"{path}: not JSON ({e})")
    numbers = {"steps": int, "seconds": float, "cpu_seconds": float}
    for name in numbers:
        if not isinstance(history.get(name), (int, float)):
            raise SystemExit(f"{path}: field {name}: expected a number, got {history.get(name)!r}")
    if not isinstance(history.get("log"), list):
        raise SystemExit(f"{path}: field log: expected a list, got {type(history.get('log')).__name__}")
    return {**{name: kind(history[name]) for name, kind in numbers.items()}, "log": history["log"]}


def parity_difference(model: Mem0Tiny, d: Dims, m: Dict[str, Any], expected: Dict[str, Any]) -> float:
    """Largest absolute difference between the rebuilt model's parity outputs and the bundle's parity.json."""
    got = parity(model, d, m)
    pairs = [(got["chunk"], expected["chunk"])] + [
        (g[k], e[k])
        for g, e in zip(got["steps"], expected["steps"])
        for k in ["image_feature", "text_feature", "summary", "logit"]
    ]
    return max(float(np.max(np.abs(np.asarray(a, np.float64) - np.asarray(b, np.float64)))) for a, b in pairs)


if __name__ == "__main__":
    main()
