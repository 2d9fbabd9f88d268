#!/usr/bin/env bash
# mem0-tiny's perception-first recipe on a RoboMME video task of the Franka twin (policies/framesamp-tiny-unmask/
# README.md): every episode starts with the twin's demonstration on its own scene (launch/sim-franka-video.yaml),
# whose frames enter memory before the first act. Trains one policy per memory strategy on the same data and
# perception: framesamp (RoboMME's 32 frames of the whole history, demonstration included) and none (the same
# recipe, no history). Not run by CI; data, checkpoints and runs stay under $ROOT (git-ignored).
#   STAGE=data   bash training/mem0_tiny/video.sh   # expert episodes through the runtime (failures set aside)
#   STAGE=train  bash training/mem0_tiny/video.sh   # perception (unless trained), both policies side by side
#   TASK=move-cube ROOT=data/move BUNDLE=policies/framesamp-tiny-move STAGE=... bash training/mem0_tiny/video.sh
#   STAGE=export bash training/mem0_tiny/video.sh   # bundles into $BUNDLE and $BUNDLE/ablations/no-history
#   STAGE=dagger ITER=1 bash training/mem0_tiny/video.sh  # rollouts of the framesamp bundle, retrain both warm
#   STAGE=mem0 ITER=1 bash training/mem0_tiny/video.sh    # Mem-0's anchor + 32-frame window, for reference
#   STAGE=tokendrop ITER=1 bash training/mem0_tiny/video.sh  # RoboMME's TokenDrop: 512 patch tokens of the history
#   ONLY=vu- bash training/mem0_tiny/evaluate.sh    # 50 held-out episodes each (seeds 1000+)
# Environment: TASK (default video-unmask), EPISODES (120), BETA (DAgger: the expert's share of chunks, 0.5),
# PERCEPTION_MIN (15), POLICY_MIN (25; DAgger: 12), ROOT (data/video), BUNDLE (policies/framesamp-tiny-unmask).
set -euo pipefail
cd "$(dirname "$0")/../.."
TASK=${TASK:-video-unmask}
EPISODES=${EPISODES:-120}
ROOT=$(realpath -m "${ROOT:-data/video}")
BUNDLE=${BUNDLE:-policies/framesamp-tiny-unmask}
CONFIG=launch/sim-franka-video.yaml
source scripts/python.sh
PY=$(engram_python)
# One BLAS thread per training: two run side by side on these cores.
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1}
mkdir -p "$ROOT/runs"

source training/mem0_tiny/collected.sh  # set_failures_aside

case "${STAGE:?set STAGE: data | train | export | dagger | mem0}" in
  data)
    # The collector only needs the policy's cameras, image size, layout and the task's instructions.
    npx tsx training/mem0_tiny/collectorBundle.ts --task "$TASK" --out "$ROOT/collector-$TASK" \
      --cameras exterior_left,wrist --layout joint_8d --state-dim 8
    npx tsx training/mem0_tiny/collect.ts --policy "$ROOT/collector-$TASK" --episodes "$EPISODES" --seed 0 --beta 1 \
      --task "$TASK" --config "$CONFIG" --out "$ROOT/it0" --name it0 | tail -1
    set_failures_aside "$ROOT/it0"
    ;;
  train)
    # Perception reads only the images and the privileged targets: one already trained on this task's data is kept.
    [ -f "$ROOT/runs/perception.pt" ] || "$PY" -m engram_ml train perception --data "$ROOT/it0" \
      --out "$ROOT/runs/perception.pt" --minutes "${PERCEPTION_MIN:-15}" --batch 32 --lr 2e-3 --bin-weight 1
    for memory in framesamp none; do
      "$PY" -m engram_ml train policy --data "$ROOT/it0" --perception "$ROOT/runs/perception.pt" --out "$ROOT/runs/$memory-it0.pt" \
        --minutes "${POLICY_MIN:-25}" --memory "$memory" --window 32 > "$ROOT/runs/$memory-it0.log" 2>&1 &
    done
    wait
    ;;
  export)
    ITER=${ITER:-0}
    "$PY" -m engram_ml export "$ROOT/runs/framesamp-it$ITER.pt" "$BUNDLE" --name "$(basename "$BUNDLE")" --noise-scale 0
    "$PY" -m engram_ml export "$ROOT/runs/none-it$ITER.pt" "$BUNDLE/ablations/no-history" \
      --name "$(basename "$BUNDLE")-no-history" --noise-scale 0
    for b in "$BUNDLE" "$BUNDLE/ablations/no-history"; do
      npx tsx src/cli.ts check "$b/policy.yaml"
      MEM0_TINY_BUNDLE="$b" node --import tsx --test test/policy/mem0TinyParity.test.ts
    done
    ;;
  dagger)
    ITER=${ITER:?set ITER (1, 2, ...)}
    prev=$((ITER - 1))
    # Rollouts of the last framesamp bundle, the expert on BETA of the chunks, every state labelled by the oracle.
    npx tsx training/mem0_tiny/collect.ts --policy "$BUNDLE" --episodes "${EPISODES:-40}" --seed $((ITER * 200)) \
      --beta "${BETA:-0.5}" --task "$TASK" --config "$CONFIG" --out "$ROOT/it$ITER" --name "it$ITER" | tail -1
    data=$(ls -d "$ROOT"/it[0-9]* | grep -v failed | sort -V | paste -sd, -)
    for memory in framesamp none; do
      "$PY" -m engram_ml train policy --data "$data" --perception "$ROOT/runs/perception.pt" --init "$ROOT/runs/$memory-it$prev.pt" \
        --out "$ROOT/runs/$memory-it$ITER.pt" --minutes "${POLICY_MIN:-12}" --memory "$memory" --window 32 \
        > "$ROOT/runs/$memory-it$ITER.log" 2>&1 &
    done
    wait
    ;;
  mem0)
    # The reference row: the same data, warm from the FrameSamp policy, reading Mem-0's anchor (the
    # demonstration's first frame) and the 32 frames before the current one.
    ITER=${ITER:?set ITER (the last DAgger iteration)}
    data=$(ls -d "$ROOT"/it[0-9]* | grep -v failed | sort -V | paste -sd, -)
    "$PY" -m engram_ml train policy --data "$data" --perception "$ROOT/runs/perception.pt" \
      --init "$ROOT/runs/framesamp-it$ITER.pt" --out "$ROOT/runs/mem0-it$ITER.pt" --minutes "${POLICY_MIN:-15}" --memory mem0 --window 32
    "$PY" -m engram_ml export "$ROOT/runs/mem0-it$ITER.pt" "$BUNDLE/ablations/mem0" --name "$(basename "$BUNDLE")-mem0" --noise-scale 0
    npx tsx src/cli.ts check "$BUNDLE/ablations/mem0/policy.yaml"
    MEM0_TINY_BUNDLE="$BUNDLE/ablations/mem0" node --import tsx --test test/policy/mem0TinyParity.test.ts
    ;;
  tokendrop)
    # The same data, warm from the FrameSamp policy (its fusion, classifier and action head; the token memory
    # module is new): RoboMME's TokenDrop, 512 patch tokens of the front camera over the whole history.
    ITER=${ITER:?set ITER (the last DAgger iteration)}
    data=$(ls -d "$ROOT"/it[0-9]* | grep -v failed | sort -V | paste -sd, -)
    "$PY" -m engram_ml train policy --data "$data" --perception "$ROOT/runs/perception.pt" \
      --init "$ROOT/runs/framesamp-it$ITER.pt" --out "$ROOT/runs/tokendrop-it$ITER.pt" --minutes "${POLICY_MIN:-25}" \
      --memory tokendrop --window 512
    "$PY" -m engram_ml export "$ROOT/runs/tokendrop-it$ITER.pt" "$BUNDLE/ablations/tokendrop" \
      --name "$(basename "$BUNDLE")-tokendrop" --noise-scale 0
    npx tsx src/cli.ts check "$BUNDLE/ablations/tokendrop/policy.yaml"
    MEM0_TINY_BUNDLE="$BUNDLE/ablations/tokendrop" node --import tsx --test test/policy/mem0TinyParity.test.ts
    ;;
  *) echo "STAGE=$STAGE: expected data, train, export, dagger, mem0 or tokendrop" >&2; exit 2 ;;
esac
