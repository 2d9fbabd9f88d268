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

/** Runs `episodes` of `task` through the runtime with the reactive oracle deciding every chunk; "seed N: outcome in S steps". */
async function oracleEpisodes(
  config: string, policyPath: string, task: string, seed: number, episodeIndices: number[],
): Promise<string[]> {
  const out = mkdtempSync(join(tmpdir(), "engram-reactive-runtime-"));
  try {
    const run = loadRunConfig(config);
    const outcomes: string[] = [];
    await runTrial({
      run, robot: loadRobotProfile(run.robotPath), policyPath, task,
      episodes: episodeIndices.length, episodeIndices, seed, outDir: out, noRecord: true,
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
    return outcomes;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

test("the Move Cube oracle carries and pushes the cube with its chunks run through the runtime", {
  timeout: 300_000,
}, async () => {
  const outcomes = await oracleEpisodes("launch/sim-franka-video.yaml", "policies/framesamp-tiny-unmask", "move-cube", 6, [0, 2, 3]);
  const expected = ["seed 6: success", "seed 8: success", "seed 9: success"];
  assert.deepEqual(outcomes.map((o) => o.split(" in ")[0]), expected, outcomes.join("; "));
});

/*
 * Cover Blocks seed 30: the safety filter ramps a close 0.02 m per tick, so the command on a grasped lid
 * (6.4 cm wide) was 0.06 m when the next chunk was decided. Read as "open", that chunk let go, and the arm
 * re-grasped the first lid until the time limit.
 */
test("the Cover Blocks oracle keeps a lid it grasped while the safety filter ramps the close", { timeout: 300_000 }, async () => {
  const outcomes = await oracleEpisodes("training/mem0_tiny/sim-x-one-expert.yaml", "policies/test-tiny", "cover-blocks", 30, [0]);
  assert.deepEqual(outcomes.map((o) => o.split(" in ")[0]), ["seed 30: success"], outcomes.join("; "));
});
