"""The learned planner (`planner.kind: learned`): model, dataset format, training and ONNX export (README.md)."""
