#!/usr/bin/env bash
# mem0-tiny end to end: record expert demonstrations on the sim twin, export HDF5, convert to .npy
# (runtime resize), train (PyTorch, CPU; `python -m engram_ml train end-to-end`: the earlier recipe, not the
# shipped bundle's, which dagger.sh runs), export the bundle (four ONNX + policy.yaml + parity.json).
# Not run by CI. Usage (from the repo root):
#   npm run train:mem0-tiny                                   # defaults below
#   EPISODES=50 MINUTES=60 TASKS="put-back-block press-button" npm run train:mem0-tiny
#   VARIANT=no-anchor SKIP_DATA=1 npm run train:mem0-tiny     # ablation on data already collected
# Environment: TASKS (task ids), EPISODES (per task), SEED (first training seed; evaluate on others),
# PERTURBED (extra DART-style episodes per task, seeds SEED+100..., recorded with --perturb PERTURB rad),
# MINUTES (training wall-clock budget), VARIANT (full | no-anchor | no-window), DATA (data folder),
# STATE_NOISE (max std, rad, of the training state perturbation), NOISE_SCALE (manifest flow_noise_scale),
# OUT (bundle folder), SKIP_DATA=1 (reuse $DATA/npy).
set -euo pipefail
cd "$(dirname "$0")/../.."
TASKS=${TASKS:-"put-back-block press-button"}
EPISODES=${EPISODES:-50}
SEED=${SEED:-0}
PERTURBED=${PERTURBED:-0}
PERTURB=${PERTURB:-0.08}
MINUTES=${MINUTES:-50}
STATE_NOISE=${STATE_NOISE:-0.06}
NOISE_SCALE=${NOISE_SCALE:-0}
VARIANT=${VARIANT:-full}
DATA=${DATA:-data/mem0-tiny}
source scripts/python.sh
PY=$(engram_python)   # the project's Python (torch, onnx): scripts/python.sh

case "$VARIANT" in
  full) FLAG=""; OUT=${OUT:-policies/mem0-tiny}; NAME=mem0-tiny ;;
  no-anchor) FLAG="--no-anchor"; OUT=${OUT:-policies/mem0-tiny/ablations/no-anchor}; NAME=mem0-tiny-no-anchor ;;
  no-window) FLAG="--no-window"; OUT=${OUT:-policies/mem0-tiny/ablations/no-window}; NAME=mem0-tiny-no-window ;;
  *) echo "VARIANT=$VARIANT: expected full, no-anchor or no-window" >&2; exit 2 ;;
esac

if [ -z "${SKIP_DATA:-}" ]; then
  for task in $TASKS; do
    npx tsx src/cli.ts record launch/sim-x-one.yaml --source expert --task "$task" --episodes "$EPISODES" --seed "$SEED" --out "$DATA/$task"
    npx tsx src/cli.ts export "$DATA/$task" --format hdf5
    if [ "$PERTURBED" -gt 0 ]; then
      npx tsx src/cli.ts record launch/sim-x-one.yaml --source expert --task "$task" --episodes "$PERTURBED" --seed "$((SEED + 100))" \
        --perturb "$PERTURB" --out "$DATA/$task-perturbed"
      npx tsx src/cli.ts export "$DATA/$task-perturbed" --format hdf5
    fi
  done
  dirs=""
  for task in $TASKS; do
    dirs="$dirs $DATA/$task/hdf5"
    if [ "$PERTURBED" -gt 0 ]; then dirs="$dirs $DATA/$task-perturbed/hdf5"; fi
  done
  npx tsx training/mem0_tiny/hdf5ToNpy.ts --out "$DATA/npy" $dirs
fi

tasks_csv=$(echo $TASKS | tr ' ' ',')
nice -n 10 "$PY" -m engram_ml train end-to-end --data "$DATA/npy" --tasks "$tasks_csv" --minutes "$MINUTES" \
  --state-noise "$STATE_NOISE" --out "runs/mem0-tiny/$VARIANT.pt" $FLAG
"$PY" -m engram_ml export "runs/mem0-tiny/$VARIANT.pt" "$OUT" --name "$NAME" --noise-scale "$NOISE_SCALE"
npx tsx src/cli.ts check "$OUT/policy.yaml"
MEM0_TINY_BUNDLE="$OUT" node --import tsx --test test/policy/mem0TinyParity.test.ts
