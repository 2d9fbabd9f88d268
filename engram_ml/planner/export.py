"""Exports a PlannerNet into a policy bundle: planner.onnx and the `planner` section of its policy.yaml
(schema: src/config/schemas/policyManifest.ts, checked by src/policy/planner/learnedManifest.ts).

  python -m engram_ml.planner.export runs/planner/planner.pt policies/<bundle> [--section-only]
  python -m engram_ml.planner.export training/planner/mn policies/<bundle>   (an exported planner folder)

Opset 17, batch 1, as the runtime feeds it. The bundle's other models and fields are left as they are;
every answer in `vocabulary` must be in the bundle's tokenizer vocabulary (the runtime checks it).
"""

import argparse
import hashlib
import os
from typing import Any, Dict, Optional, Sequence

import torch
import yaml

from engram_ml.planner.model import PlannerDims, PlannerNet

OPSET = 17
INPUTS = ["task", "initial_image", "key_images", "key_subtasks", "key_mask"]


def example_inputs(d: PlannerDims, seed: int = 0) -> Dict[str, torch.Tensor]:
    """Deterministic inputs of the interface's shapes (export tracing and the parity test)."""
    g = torch.Generator().manual_seed(seed)
    m = d.slots
    mask = torch.zeros(1, m)
    mask[0, : max(1, m // 2)] = 1
    return {
        "task": torch.tensor([[d.tasks - 1]], dtype=torch.int64),
        "initial_image": torch.rand(1, 3, d.height, d.width, generator=g) * 2 - 1,
        "key_images": torch.rand(1, m, 3, d.height, d.width, generator=g) * 2 - 1,
        "key_subtasks": torch.randint(0, d.vocabulary, (1, m), generator=g),
        "key_mask": mask,
    }


def export_onnx(model: PlannerNet, path: str) -> None:
    """Writes planner.onnx (input and output names as the manifest section declares them)."""
    model.eval()
    x = example_inputs(model.dims)
    torch.onnx.export(
        model, tuple(x[k] for k in INPUTS), path, opset_version=OPSET, input_names=INPUTS, output_names=["logits"]
    )


def planner_section(d: PlannerDims, tasks: Sequence[str], vocabulary: Sequence[str], onnx_bytes: bytes,
                    file: str = "planner.onnx") -> Dict[str, Any]:
    """The manifest's `planner` section for a model of sizes `d` whose file holds `onnx_bytes`."""
    if len(tasks) != d.tasks or len(vocabulary) != d.vocabulary:
        found = f"{len(tasks)} tasks / {len(vocabulary)} answers"
        raise ValueError(f"planner export: {found}, the model has {d.tasks} / {d.vocabulary}")
    m, h, w = d.slots, d.height, d.width

    def t(name: str, dtype: str, shape: Sequence[int]) -> Dict[str, Any]:
        return {"name": name, "type": dtype, "shape": list(shape)}

    return {
        "tasks": list(tasks), "vocabulary": list(vocabulary), "key_memory_slots": m,
        "image": {"width": w, "height": h},
        "model": {
            "file": file, "sha256": hashlib.sha256(onnx_bytes).hexdigest(),
            "inputs": {
                "task": t("task", "int64", [1, 1]), "initial_image": t("initial_image", "float32", [1, 3, h, w]),
                "key_images": t("key_images", "float32", [1, m, 3, h, w]),
                "key_subtasks": t("key_subtasks", "int64", [1, m]), "key_mask": t("key_mask", "float32", [1, m]),
            },
            "outputs": {"logits": t("logits", "float32", [1, d.vocabulary + 1])},
        },
    }


def export_planner(model: PlannerNet, tasks: Sequence[str], vocabulary: Sequence[str], folder: str) -> Dict[str, Any]:
    """Writes planner.onnx into `folder`; returns the `planner` section that goes with it."""
    os.makedirs(folder, exist_ok=True)
    onnx_path = os.path.join(folder, "planner.onnx")
    export_onnx(model, onnx_path)
    with open(onnx_path, "rb") as f:
        return planner_section(model.dims, tasks, vocabulary, f.read())


def bundle_manifest(bundle: str) -> Dict[str, Any]:
    """The bundle's policy.yaml, read before anything is written into the bundle."""
    path = os.path.join(bundle, "policy.yaml")
    if not os.path.isfile(path):
        raise SystemExit(f"planner export: {path}: no policy.yaml (the bundle to put the planner into)")
    with open(path) as f:
        return yaml.safe_load(f)


def set_planner_section(bundle: str, manifest: Dict[str, Any], section: Dict[str, Any]) -> None:
    """Writes `manifest` with its `planner` section set to `section` back to the bundle's policy.yaml."""
    manifest["planner"] = section
    with open(os.path.join(bundle, "policy.yaml"), "w") as f:
        yaml.safe_dump(manifest, f, sort_keys=False, width=160)


def export_to_bundle(model: PlannerNet, tasks: Sequence[str], vocabulary: Sequence[str], bundle: str) -> Dict[str, Any]:
    """Writes planner.onnx into `bundle` and sets the `planner` section of its policy.yaml; returns the section."""
    manifest = bundle_manifest(bundle)
    section = export_planner(model, tasks, vocabulary, bundle)
    set_planner_section(bundle, manifest, section)
    return section


def copy_to_bundle(folder: str, bundle: str) -> Dict[str, Any]:
    """Puts an exported planner folder (planner.yaml + its model file, as --section-only writes them) into
    `bundle`: the model file is copied after its SHA-256 is checked against the section."""
    section_path = os.path.join(folder, "planner.yaml")
    if not os.path.isfile(section_path):
        raise SystemExit(f"planner export: {folder}: no planner.yaml (expected a folder written by --section-only)")
    with open(section_path) as f:
        doc = yaml.safe_load(f)
    section = doc.get("planner") if isinstance(doc, dict) else None
    file = section.get("model", {}).get("file") if isinstance(section, dict) else None
    if not isinstance(file, str):
        raise SystemExit(f"planner export: {section_path}: expected a `planner` section with model.file")
    with open(os.path.join(folder, file), "rb") as f:
        data = f.read()
    digest = hashlib.sha256(data).hexdigest()
    if digest != section["model"].get("sha256"):
        raise SystemExit(f"planner export: {os.path.join(folder, file)}: SHA-256 {digest} is not planner.model.sha256 "
                         f"of {section_path} (a damaged or replaced model file)")
    manifest = bundle_manifest(bundle)
    with open(os.path.join(bundle, file), "wb") as f:
        f.write(data)
    set_planner_section(bundle, manifest, section)
    return section


def load_planner_checkpoint(path: str) -> Dict[str, Any]:
    """A checkpoint train.py wrote: {"dims", "state", "tasks", "vocabulary"}, with `model` rebuilt."""
    ck = torch.load(path, map_location="cpu")
    model = PlannerNet(PlannerDims(**ck["dims"]))
    model.load_state_dict(ck["state"])
    return {**ck, "model": model}


def main(argv: Optional[Sequence[str]] = None, prog: Optional[str] = None) -> None:
    """`python -m engram_ml.planner.export CHECKPOINT BUNDLE`."""
    ap = argparse.ArgumentParser(prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("checkpoint", help="planner.pt written by `python -m engram_ml train planner`, or a folder "
                    "--section-only wrote (planner.yaml + planner.onnx, e.g. training/planner/mn) to copy in")
    ap.add_argument("bundle", help="policy bundle folder holding policy.yaml (planner.onnx is written there)")
    ap.add_argument("--section-only", action="store_true",
                    help="no bundle yet: write planner.onnx and the section alone (planner.yaml) into the folder")
    args = ap.parse_args(argv)
    if os.path.isdir(args.checkpoint):
        if args.section_only:
            why = "is already an exported folder; --section-only needs a planner.pt"
            raise SystemExit(f"planner export: {args.checkpoint} {why}")
        copy_to_bundle(args.checkpoint, args.bundle)
        print(f"copied {args.checkpoint}'s planner into {args.bundle} (its model and policy.yaml's planner section)")
        return
    ck = load_planner_checkpoint(args.checkpoint)
    if args.section_only:
        section = export_planner(ck["model"], ck["tasks"], ck["vocabulary"], args.bundle)
        with open(os.path.join(args.bundle, "planner.yaml"), "w") as f:
            yaml.safe_dump({"planner": section}, f, sort_keys=False, width=160)
        print(f"wrote {args.bundle}/planner.onnx and {args.bundle}/planner.yaml (a bundle's planner section)")
        return
    export_to_bundle(ck["model"], ck["tasks"], ck["vocabulary"], args.bundle)
    print(f"wrote {args.bundle}/planner.onnx and the planner section of {args.bundle}/policy.yaml")


if __name__ == "__main__":
    main()
