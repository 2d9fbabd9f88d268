#!/usr/bin/env bash
# One DAgger iteration of mem0-tiny's perception-first recipe (policies/mem0-tiny/README.md):
#   1. roll out the current bundle on the twin through the runtime (collect.ts), the expert acting on
#      each chunk with probability BETA, every visited state labelled by the reactive oracle expert;
#   2. retrain the policy stage on everything aggregated so far, warm-started from the last checkpoint
#      (the perception stays frozen);
#   3. export the bundle and evaluate it closed loop on held-out seeds (1000+) with `engram run`;
#   4. append the learning-curve line to $ROOT/curve.jsonl.
# Iteration 0 (ITER=0) has no policy to roll out: it records expert episodes (BETA=1) and trains the
# perception stage first (unless $ROOT/runs/perception.pt exists). Data, checkpoints and runs stay under
# $ROOT (out of git). Without the last iteration's checkpoint, continue from a shipped bundle:
#   python -m engram_ml import-bundle policies/mem0-tiny data/dagger/runs/it1.pt data/dagger/runs/perception.pt
#   cp -r policies/mem0-tiny data/dagger/bundles/it1     # then ITER=2 ...
#
#   ITER=0 EPISODES=100 bash training/mem0_tiny/dagger.sh          # expert data, perception, first policy
#   ITER=1 EPISODES=30 BETA=0.5 bash training/mem0_tiny/dagger.sh  # then ITER=2 BETA=0.25, ITER=3 BETA=0 ...
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(realpath -m "${ROOT:-data/dagger}")
ITER=${ITER:?set ITER (0 = expert data + perception)}
EPISODES=${EPISODES:-20}
BETA=${BETA:-$([ "$ITER" = 0 ] && echo 1 || echo 0.5)}
SEED=${SEED:-$((ITER * 100))}   # training seeds: 0-99 for iteration 0, 100-199 for iteration 1, ...
PERCEPTION_MIN=${PERCEPTION_MIN:-20}
POLICY_MIN=${POLICY_MIN:-10}
EVAL_EPISODES=${EVAL_EPISODES:-20}
source scripts/python.sh
PY=$(engram_python)
mkdir -p "$ROOT/runs" "$ROOT/bundles"
prev=$((ITER - 1))
if [ "$ITER" = 0 ]; then
  rollout="$ROOT/bundles/collector-128"
  # The expert acts on every chunk; the collector only needs a bundle with the policy's image size.
  [ -f "$rollout/policy.yaml" ] || npx tsx -e "import { writeTestBundle } from './src/policy/mem0/testBundle.ts';
    writeTestBundle('$rollout', { name: 'collector-128', imageSize: { width: 128, height: 96 } });"
else
  rollout="$ROOT/bundles/it$prev"
fi

t0=$(date +%s)
npx tsx training/mem0_tiny/collect.ts --policy "$rollout" --episodes "$EPISODES" --seed "$SEED" --beta "$BETA" \
  --out "$ROOT/it$ITER" --name "it$ITER" | tail -1 | tee "$ROOT/runs/collect-it$ITER.json"
t1=$(date +%s)
if [ "$ITER" = 0 ] && [ ! -f "$ROOT/runs/perception.pt" ]; then
  "$PY" -m engram_ml train perception --data "$ROOT/it0" --out "$ROOT/runs/perception.pt" --minutes "$PERCEPTION_MIN" \
    --batch 32 --lr 2e-3
fi
init=()
[ "$ITER" = 0 ] || init=(--init "$ROOT/runs/it$prev.pt")
"$PY" -m engram_ml train policy --data "$(ls -d "$ROOT"/it* | sort -V | paste -sd, -)" \
  --perception "$ROOT/runs/perception.pt" "${init[@]}" --out "$ROOT/runs/it$ITER.pt" --minutes "$POLICY_MIN"
"$PY" -m engram_ml export "$ROOT/runs/it$ITER.pt" "$ROOT/bundles/it$ITER" --name mem0-tiny --noise-scale 0
t2=$(date +%s)
npx tsx src/cli.ts run launch/sim-x-one.yaml --policy "$ROOT/bundles/it$ITER" --task put-back-block --episodes "$EVAL_EPISODES" --seed 1000 \
  --no-record --json --jobs "${JOBS:-2}" --out "$ROOT/runs/eval-it$ITER" | tail -1 > "$ROOT/runs/eval-it$ITER.json"
t3=$(date +%s)
node -e "
const fs = require('fs'), path = require('path');
const e = require('$ROOT/runs/eval-it$ITER.json'), c = require('$ROOT/runs/collect-it$ITER.json');
const metas = fs.readdirSync('$ROOT').filter((d) => /^it\d+$/.test(d))
  .flatMap((d) => fs.readdirSync(path.join('$ROOT', d)).filter((f) => f.endsWith('.json') && fs.existsSync(path.join('$ROOT', d, f.replace(/\.json$/, '.label.npy')))).map((f) => require(path.join('$ROOT', d, f))));
const ckpt = JSON.parse(require('child_process').execFileSync('$PY', ['-c', 'import json; from engram_ml.mem0_tiny.checkpoint import load_checkpoint; print(json.dumps(load_checkpoint(\"$ROOT/runs/it$ITER.pt\")[\"train\"]))']).toString());
const line = { iteration: $ITER, beta: $BETA, rollout_successes: c.successes + '/' + c.episodes, episodes_aggregated: metas.length,
  frames: metas.reduce((n, m) => n + m.frames, 0), heldout_success: e.successes + '/' + e.episodes, wilson95: e.wilson95,
  checkpoint_rates: e.checkpoint_rates, collect_s: $((t1 - t0)), train_export_s: $((t2 - t1)), eval_s: $((t3 - t2)),
  policy_cpu_s_total: ckpt.cpu_seconds, policy_steps_total: ckpt.steps };
fs.appendFileSync('$ROOT/curve.jsonl', JSON.stringify(line) + '\n'); console.log(JSON.stringify(line));"
