"""mem0-tiny: model, data, training (the canonical recipe: train.py), ONNX export, offline evaluation,
and rebuilding a checkpoint from a shipped bundle. `python -m engram_ml --help` lists the commands."""
