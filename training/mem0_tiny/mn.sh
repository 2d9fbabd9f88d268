#!/usr/bin/env bash
# mem0-tiny on RMBench's four M(n) tasks (policies/mem0-tiny-mn/README.md): one bundle for Press Button, Cover
# Blocks, Blocks Ranking Try and Battery Try on the X-One twin, with Mem-0's dual system: the execution module
# (memory cleared at each subtask end, the classifier trained on the last END_FRAMES frames of each true subtask,
# positive-class weight 10) and the learned planner (training/planner/mn), retrained on the end images the
# runtime's episodes reach. Not run by CI; data, checkpoints and runs stay under $ROOT (git-ignored).
#   STAGE=data    bash training/mem0_tiny/mn.sh  # expert episodes through the runtime, both oracles (failures set aside)
#   STAGE=heldout bash training/mem0_tiny/mn.sh  # 10 expert episodes per task on unseen seeds, for classifier_eval
#   STAGE=planner bash training/mem0_tiny/mn.sh  # planner calls: scripted expert + every runtime episode; retrain it
#   STAGE=perception bash training/mem0_tiny/mn.sh  # the perception alone, on it0/ (retrained if there)
#   STAGE=train   bash training/mem0_tiny/mn.sh  # perception (unless trained), then the execution module
#   STAGE=export  bash training/mem0_tiny/mn.sh  # the bundle, planner, check, parity (CKPT=it6c4: that checkpoint)
#   STAGE=dagger ITER=1 bash training/mem0_tiny/mn.sh  # rollouts of the bundle (learned classifier + planner), retrain warm
#   STAGE=rollouts ITER=7 bash training/mem0_tiny/mn.sh  # the rollouts alone (it7/)
#   STAGE=retrain ITER=8 INIT=it6c4 bash training/mem0_tiny/mn.sh  # dagger's training alone, warm from runs/$INIT.pt
#     (default it$((ITER-1))) on every it*/ under ROOT -> it8.pt
#   STAGE=classifier ITER=7 bash training/mem0_tiny/mn.sh  # it7.pt's classifier alone on END_FRAMES -> it7c4.pt
#     (a repeated press lasts 8 steps: all positive under Mem-0's 8); INIT=it6c4 DATA=data/mn/it7: it6c4.pt's
#     classifier on those rollouts alone -> it6c4c4.pt (the shipped bundle; the checkpoints lost, import-bundle
#     rebuilds it6c4.pt and perception.pt from the bundle: policies/mem0-tiny-mn/README.md, Commands)
#   ONLY=mn- bash training/mem0_tiny/evaluate.sh  # the table's rows: full, w/o key memory, GT classifier, oracle planner
# Environment: TASKS (the four), EPISODES (per task; 50, DAgger 20), SEED (DAgger's first seed; ITER x 200),
# BETA (DAgger: the expert's share of chunks, 0.5), PERCEPTION_MIN (15), POLICY_MIN (25; DAgger 15), PLANNER_MIN
# (30), END_FRAMES (the classifier's positives: a subtask's last N frames, 4; Mem-0's 8 made iterations 0-6, whose
# classifier the classifier stage retrained on 4), CLASSIFIER_MIN (5), SWITCH_COUNT and THRESHOLD (the
# classifier's debounce, 3 and 0.7 for END_FRAMES 4; engram_ml.mem0_tiny.debounce_sweep scores them on
# GT-classifier runs, closed-loop rows decide), REARM (1: the manifest's classifier.rearm, one end per run of
# positive ticks; 0: off), INIT (the retrain and classifier stages' warm start), DATA (the classifier stage's folders),
# THREADS (torch threads of the perception's and the execution module's training, 1),
# ROOT (data/mn), BUNDLE (policies/mem0-tiny-mn).
set -euo pipefail
cd "$(dirname "$0")/../.."
TASKS=${TASKS:-"press-button cover-blocks blocks-ranking-try battery-try"}
ROOT=$(realpath -m "${ROOT:-data/mn}")
BUNDLE=${BUNDLE:-policies/mem0-tiny-mn}
PLANNER=training/planner/mn
END_FRAMES=${END_FRAMES:-4}
source scripts/python.sh
PY=$(engram_python)
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1}
mkdir -p "$ROOT/runs"

source training/mem0_tiny/collected.sh  # set_failures_aside

# Collects $EPISODES per task with bundle $1, run config $2, beta $3, into $ROOT/$4 from seed $5.
collect() {
  for task in $TASKS; do
    npx tsx training/mem0_tiny/collect.ts --policy "$1" --config "$2" --beta "$3" --task "$task" --episodes "$EPISODES" \
      --seed "$5" --out "$ROOT/$4" --name "$task-$4" | tail -1
  done
}

data_dirs() {
  local dirs
  dirs=$(ls -d "$ROOT"/it[0-9]* 2>/dev/null | grep -v failed | sort -V | paste -sd, -)
  [ -n "$dirs" ] || { echo "mn.sh: no collected folders (it0/, it1/, ...) under $ROOT: run STAGE=data first" >&2; return 1; }
  echo "$dirs"
}

case "${STAGE:?set STAGE: data | heldout | planner | perception | train | export | rollouts | dagger | retrain | classifier}" in
  data)
    EPISODES=${EPISODES:-50}
    # The expert acts on every chunk: the collector only needs the cameras, image size, vocabulary and a planner.
    npx tsx training/mem0_tiny/collectorBundle.ts --task cover-blocks --out "$ROOT/collector" \
      --cameras head,left_wrist,right_wrist --layout bimanual_16d --state-dim 16 --planner "$PLANNER"
    collect "$ROOT/collector" training/mem0_tiny/sim-x-one-expert.yaml 1 it0 0
    set_failures_aside "$ROOT/it0"
    ;;
  heldout)
    # Unseen seeds (2000+) for the classifier's offline scores (engram_ml.mem0_tiny.classifier_eval).
    EPISODES=${EPISODES:-10}
    collect "$ROOT/collector" training/mem0_tiny/sim-x-one-expert.yaml 1 heldout 2000
    ;;
  planner)
    [ -d "$ROOT/planner-scripted" ] || npx tsx training/planner/collect.ts --tasks "$(echo $TASKS | tr ' ' ,)" \
      --seeds 0-199 --image 128x96 --out "$ROOT/planner-scripted"
    data=$(data_dirs)
    "$PY" -m engram_ml.planner.from_collect --data "$data" --texts "$PLANNER/planner.yaml" --out "$ROOT/planner-runtime"
    # Fine-tuned from the shipped planner (trained on the scripted expert's end images alone).
    "$PY" -m engram_ml train planner --data "$ROOT/planner-scripted,$ROOT/planner-runtime" --out "$ROOT/runs/planner" \
      --minutes "${PLANNER_MIN:-30}" --steps 100000 --threads 1 --init "$PLANNER" --lr 3e-4
    if [ -d "$ROOT/heldout" ]; then
      "$PY" -m engram_ml.planner.from_collect --data "$ROOT/heldout" --texts "$PLANNER/planner.yaml" --out "$ROOT/planner-heldout"
      "$PY" -m engram_ml.planner.evaluate --data "$ROOT/planner-heldout" --checkpoint "$ROOT/runs/planner/planner.pt"
    fi
    "$PY" -m engram_ml.planner.export --section-only "$ROOT/runs/planner/planner.pt" "$PLANNER"
    ;;
  perception | train)
    if [ "$STAGE" = perception ] || [ ! -f "$ROOT/runs/perception.pt" ]; then
      if [ ! -d "$ROOT/heldout" ]; then
        echo "mn.sh: no $ROOT/heldout/ for the perception's held-out errors: run STAGE=heldout first" >&2
        exit 2
      fi
      "$PY" -m engram_ml train perception --data "$ROOT/it0" --out "$ROOT/runs/perception.pt" \
        --minutes "${PERCEPTION_MIN:-15}" --batch 32 --lr 2e-3 --bin-weight 1 --keypoints 16 --perception-dim 64 \
        --threads "${THREADS:-1}" --heldout "$ROOT/heldout"  # six objects per frame (privileged.ts mnScene)
    fi
    [ "$STAGE" = perception ] && exit 0
    data=$(data_dirs)
    "$PY" -m engram_ml train policy --data "$data" --perception "$ROOT/runs/perception.pt" \
      --out "$ROOT/runs/it0.pt" --minutes "${POLICY_MIN:-25}" --window 8 --pos-weight 10 --memory-aux 0 \
      --classifier-state --end-frames "$END_FRAMES" --threads "${THREADS:-1}"
    ;;
  export)
    CKPT=${CKPT:-it${ITER:-0}}
    case "${REARM:-1}" in
      1) rearm=(--rearm) ;;
      0) rearm=() ;;
      *) echo "STAGE=export: REARM=$REARM: expected 1 (the manifest's classifier.rearm) or 0" >&2; exit 2 ;;
    esac
    "$PY" -m engram_ml export "$ROOT/runs/$CKPT.pt" "$BUNDLE" --name "$(basename "$BUNDLE")" --noise-scale 0 \
      --switch-count "${SWITCH_COUNT:-3}" --threshold "${THRESHOLD:-0.7}" "${rearm[@]}"
    "$PY" -m engram_ml.planner.export "$PLANNER" "$BUNDLE"
    npx tsx src/cli.ts check "$BUNDLE/policy.yaml"
    MEM0_TINY_BUNDLE="$BUNDLE" node --import tsx --test test/policy/mem0TinyParity.test.ts
    ;;
  rollouts | dagger | retrain)
    ITER=${ITER:?set ITER (1, 2, ...)}
    if [ "$STAGE" != retrain ]; then
      EPISODES=${EPISODES:-20}
      SEED=${SEED:-$((ITER * 200))}
      [[ $SEED =~ ^[0-9]+$ ]] || { echo "STAGE=$STAGE: SEED=$SEED is not a whole number" >&2; exit 2; }
      # Rollouts must not see the seeds the bundle is scored on: evaluate.sh's held-out 1000-1049, the heldout
      # stage's 2000+, the debounce's validation 3000+.
      for reserved in 1000:1050 2000:2010 3000:3020; do
        if (( SEED < ${reserved#*:} && SEED + EPISODES > ${reserved%:*} )); then
          echo "STAGE=$STAGE: seeds $SEED-$((SEED + EPISODES - 1)) overlap the evaluation seeds ${reserved%:*}-$((${reserved#*:} - 1)); set SEED" >&2
          exit 2
        fi
      done
      # The bundle's own classifier and planner decide the subtask ends and texts; the oracle labels every state.
      collect "$BUNDLE" launch/sim-x-one.yaml "${BETA:-0.5}" "it$ITER" "$SEED"
    fi
    [ "$STAGE" = rollouts ] && exit 0
    data=$(data_dirs)
    "$PY" -m engram_ml train policy --data "$data" --perception "$ROOT/runs/perception.pt" \
      --init "$ROOT/runs/${INIT:-it$((ITER - 1))}.pt" --out "$ROOT/runs/it$ITER.pt" --minutes "${POLICY_MIN:-15}" \
      --window 8 --pos-weight 10 --memory-aux 0 --end-frames "$END_FRAMES" --threads "${THREADS:-1}"
    ;;
  classifier)
    INIT=${INIT:-it${ITER:?set ITER (the policy checkpoint it\$ITER.pt) or INIT (runs/\$INIT.pt)}}
    data=${DATA:-$(data_dirs)}
    "$PY" -m engram_ml train policy --data "$data" --perception "$ROOT/runs/perception.pt" \
      --init "$ROOT/runs/$INIT.pt" --out "$ROOT/runs/${INIT}c$END_FRAMES.pt" --classifier-only \
      --end-frames "$END_FRAMES" --minutes "${CLASSIFIER_MIN:-5}" --window 8 --pos-weight 10 --memory-aux 0 \
      --threads "${THREADS:-1}"
    ;;
  *) echo "STAGE=$STAGE: expected data, heldout, planner, perception, train, export, rollouts, dagger, retrain or classifier" >&2; exit 2 ;;
esac
