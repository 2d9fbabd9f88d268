#!/usr/bin/env bash
# Closed-loop evaluation of mem0-tiny and its ablations on the sim twin, on seeds never used for
# training (the shipped bundles trained on seeds 0-349; these start at 1000), then one markdown table from the runs'
# summary.json files (success rate, Wilson 95 % interval, storage/update/compression rates,
# classifier precision/recall against the sim's ground truth, tick latency). Not run by CI.
# Usage (from the repo root):
#   bash training/mem0_tiny/evaluate.sh                 # 50 episodes per row, 2 runs at a time
#   EPISODES=50 EXTRA_EPISODES=20 JOBS=2 OUT=runs/eval bash training/mem0_tiny/evaluate.sh
# EPISODES: the rows with and without anchor; EXTRA_EPISODES (default EPISODES): the no-window row.
# Each row runs its episodes in JOBS worker processes (engram run --jobs), one row after another.
#   bash training/mem0_tiny/evaluate.sh table           # the table only, from runs already made
#   ONLY=vu- bash training/mem0_tiny/evaluate.sh        # only the rows whose name starts with vu- (Video Unmask)
# The vu- rows: the FrameSamp bundle of Video Unmask, the same recipe without history, with RoboMME's TokenDrop
# (ablations/tokendrop) and with Mem-0's anchor + window (ablations/mem0, for reference); the mc- rows: the same
# four for Move Cube and for Video Place Order (vpo-). On
# the Franka twin, each episode prompted by the twin's demonstration on its own scene (launch/sim-franka-video.yaml).
# The mn- rows: the four M(n) tasks (ONLY=mn-full- for one row kind); their table with planner accuracy:
#   npx tsx training/mem0_tiny/mnTable.ts runs/eval
set -euo pipefail
cd "$(dirname "$0")/../.."
EPISODES=${EPISODES:-50}
EXTRA_EPISODES=${EXTRA_EPISODES:-$EPISODES}
SEED=${SEED:-1000}
JOBS=${JOBS:-2}
OUT=${OUT:-runs/eval}
source scripts/python.sh
PY=$(engram_python)

# name | run config | bundle | task | episodes
ROWS="pbb-full|launch/sim-x-one.yaml|policies/mem0-tiny|put-back-block|$EPISODES
pbb-no-anchor|launch/sim-x-one-no-anchor.yaml|policies/mem0-tiny/ablations/no-anchor|put-back-block|$EPISODES
pbb-no-window|launch/sim-x-one-no-window.yaml|policies/mem0-tiny/ablations/no-window|put-back-block|$EXTRA_EPISODES
vu-framesamp|launch/sim-franka-video.yaml|policies/framesamp-tiny-unmask|video-unmask|$EPISODES
vu-no-history|launch/sim-franka-video.yaml|policies/framesamp-tiny-unmask/ablations/no-history|video-unmask|$EPISODES
vu-mem0|launch/sim-franka-video.yaml|policies/framesamp-tiny-unmask/ablations/mem0|video-unmask|$EPISODES
vu-tokendrop|launch/sim-franka-video.yaml|policies/framesamp-tiny-unmask/ablations/tokendrop|video-unmask|$EPISODES
mc-framesamp|launch/sim-franka-video.yaml|policies/framesamp-tiny-move|move-cube|$EPISODES
mc-no-history|launch/sim-franka-video.yaml|policies/framesamp-tiny-move/ablations/no-history|move-cube|$EPISODES
mc-mem0|launch/sim-franka-video.yaml|policies/framesamp-tiny-move/ablations/mem0|move-cube|$EPISODES
mc-tokendrop|launch/sim-franka-video.yaml|policies/framesamp-tiny-move/ablations/tokendrop|move-cube|$EPISODES
vpo-framesamp|launch/sim-franka-video.yaml|policies/framesamp-tiny-order|video-place-order|$EPISODES
vpo-no-history|launch/sim-franka-video.yaml|policies/framesamp-tiny-order/ablations/no-history|video-place-order|$EPISODES
vpo-tokendrop|launch/sim-franka-video.yaml|policies/framesamp-tiny-order/ablations/tokendrop|video-place-order|$EPISODES
vpo-mem0|launch/sim-franka-video.yaml|policies/framesamp-tiny-order/ablations/mem0|video-place-order|$EPISODES"
# The M(n) rows (policies/mem0-tiny-mn): per task, the full dual system, without key memory, with the twin's
# subtask ends (GT classifier), with the twin's next subtask (oracle planner: what the twin shows when the
# classifier declares an end) and with the twin's plan walked one entry per declared end (oracle list: the right
# next subtask whenever the declared ends are right); the table: mnTable.ts. A task with a bundle of its own
# (policies/mem0-tiny-mn-<task>, each README says how it was made) runs it.
for task in press-button cover-blocks blocks-ranking-try battery-try; do
  mn=policies/mem0-tiny-mn
  [ -f "$mn-$task/policy.yaml" ] && mn=$mn-$task
  ROWS="$ROWS
mn-full-$task|launch/sim-x-one.yaml|$mn|$task|$EPISODES
mn-no-key-$task|launch/sim-x-one-no-key.yaml|$mn|$task|$EPISODES
mn-gt-classifier-$task|launch/sim-x-one-oracle.yaml|$mn|$task|$EPISODES
mn-oracle-planner-$task|launch/sim-x-one-oracle-planner.yaml|$mn|$task|$EPISODES
mn-oracle-list-$task|launch/sim-x-one-oracle-list.yaml|$mn|$task|$EPISODES"
done
ONLY=${ONLY:-}

if [ "${1:-}" != "table" ]; then
  mkdir -p "$OUT"
  echo "$ROWS" | while IFS="|" read -r name config bundle task episodes; do
    case "$name" in "$ONLY"*) ;; *) continue ;; esac
    npx tsx src/cli.ts run "$config" --policy "$bundle" --task "$task" --episodes "$episodes" --seed "$SEED" --jobs "$JOBS" \
      --no-record --out "$OUT/$name" < /dev/null > "$OUT/$name.log" 2>&1 && echo "$name: done" || echo "$name: failed (see $OUT/$name.log)"
  done
fi

$PY - "$OUT" <<'EOF'
import json, os, sys
out = sys.argv[1]
f = lambda x: "-" if x is None else f"{x:.2f}"
print("| run | policy | task | successes | rate | Wilson 95 % | storage | update | compression | classifier P / R | tick p50 / p99 ms |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for name in ["pbb-full", "pbb-no-anchor", "pbb-no-window", "vu-framesamp", "vu-no-history", "vu-tokendrop", "vu-mem0",
             "mc-framesamp", "mc-no-history", "mc-tokendrop", "mc-mem0", "vpo-framesamp", "vpo-no-history",
             "vpo-tokendrop", "vpo-mem0"]:
    path = os.path.join(out, name, "summary.json")
    if not os.path.exists(path):
        continue
    s = json.load(open(path))
    c, k, w = s["checkpoint_rates"], s["classifier"], s["wilson95"] or [None, None]
    print(f"| {name} | {s['policy']} | {s['task']} | {s['successes']}/{s['episodes']} | {f(s['success_rate'])} | [{f(w[0])}, {f(w[1])}] | "
          f"{f(c['storage'])} | {f(c['update'])} | {f(c['compression'])} | {f(k['precision'])} / {f(k['recall'])} | {s['tick_ms']['p50']} / {s['tick_ms']['p99']} |")
EOF
