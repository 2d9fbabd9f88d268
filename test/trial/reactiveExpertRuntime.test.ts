/**
 * A reactive oracle driven through the runtime, as training/mem0_tiny/collect.ts labels with it: each
 * chunk is computed from the twin's ground truth at the tick's observation and executed whole, open
 * loop, through the bus, the scheduler and the safety filter (which holds the Franka's gripper to
 * 0.1 m/s). Move Cube seeds 8 and 9 are carried cubes that a roll-forward assuming a faster gripper
 * dropped (it lifted before the fingers had closed); seed 6 is a push that stalled short of the target
 * while the roll-forward's pushed cube swung from side to side, and the hand's yaw with it.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runTrial } from "../../src/app/runTrial.js";
import { loadRunConfig } from "../../src/config/loaders.js";
import type { ActionChunk, Policy } from "../../src/policy/types.js";
import { loadRobotProfile } from "../../src/robot/loadRobotProfile.js";
import { reactiveExpertOf } from "../../src/sim/expert/runExpertEpisode.js";
import type { ReactiveExpert } from "../../src/sim/expert/types.js";

test("the Move Cube oracle carries and pushes the cube with its chunks run through the runtime", {
  timeout: 300_000,
}, async () => {
  const out = mkdtempSync(join(tmpdir(), "engram-reactive-runtime-"));
  try {
    const run = loadRunConfig("launch/sim-franka-video.yaml");
    const outcomes: string[] = [];
    await runTrial({
      run, robot: loadRobotProfile(run.robotPath), policyPath: "policies/framesamp-tiny-unmask", task: "move-cube",
      episodes: 3, episodeIndices: [0, 2, 3], seed: 6, outDir: out, noRecord: true,
      onEpisode: (e) => { outcomes.push(`seed ${e.seed}: ${e.outcome} in ${e.steps} steps`); },
      // Only the bundle's cameras, image size and layout are used: the oracle decides every chunk.
      wrapPolicy: (policy, sim) => {
        let expert: ReactiveExpert | null = null;
        const oracle: Policy = {
          get spec() { return policy.spec; },
          async reset() {
            expert = reactiveExpertOf(sim.episode!.task, sim.world, sim.episode!.scene, sim.world.profile);
          },
          resetSession: async () => {},
          setInstruction: () => {},
          observeDemonstration: async () => {},
          observe: async () => ({ logit: -10, subtaskEnded: false }),
          async act(): Promise<ActionChunk> {
            const chunk = expert!.chunk(sim.world);
            const dim = chunk[0]!.length;
            const actions = new Float64Array(chunk.length * dim);
            chunk.forEach((t, k) => actions.set(t, k * dim));
            return { jointNames: sim.world.jointNames(), actions, horizon: chunk.length, dim };
          },
        };
        return oracle;
      },
    });
    const expected = ["seed 6: success", "seed 8: success", "seed 9: success"];
    assert.deepEqual(outcomes.map((o) => o.split(" in ")[0]), expected, outcomes.join("; "));
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
