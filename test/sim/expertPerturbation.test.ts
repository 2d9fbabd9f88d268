/**
 * DART-style expert perturbation (src/sim/expert/perturbation.ts) on the real SimWorld: the sim
 * executes the perturbed targets, the expert's clean targets stay the label, grippers and contact
 * moves are never perturbed, and the expert still solves the task.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { SimWorld } from "../../src/sim/world/SimWorld.js";
import { getTask, type TaskDefinition, type TaskScene } from "../../src/sim/tasks/index.js";
import { ExpertPerturbation, runExpertEpisode, type ExpertStep } from "../../src/sim/expert/index.js";
import { profiles } from "./expertEpisode.js";

interface Tick { clean: Float64Array; executed: Float64Array; moveProgress?: number }

async function perturbedEpisode(taskId: string, seed: number, stdRad: number) {
  const profile = profiles["x-one"];
  const world = await SimWorld.create({ profile });
  const base = getTask(taskId);
  const perturbation = new ExpertPerturbation(stdRad, seed);
  const ticks: Tick[] = [];
  const measured: Float64Array[] = [];
  // The task with its expert wrapped the way `engram record --perturb` wraps it (expertSource.ts).
  const task: TaskDefinition<TaskScene> = {
    ...base,
    expert(w, scene, p) {
      const expert = base.expert.call(this, w, scene, p);
      const inner = expert.next.bind(expert);
      expert.next = (wd, step): ExpertStep => {
        const out = inner(wd, step);
        const executed = perturbation.apply(wd, out);
        ticks.push({ clean: Float64Array.from(out.targets), executed, moveProgress: out.moveProgress });
        return { ...out, targets: executed };
      };
      return expert;
    },
  };
  const result = runExpertEpisode(world, task, seed, { profile, onStep: (_t, w) => { measured.push(Float64Array.from(w.jointPositions())); } });
  const grippers = world.armNames.map((a) => world.armJointIndices(a).gripper);
  world.dispose();
  return { result, ticks, measured, grippers };
}

test("perturbed expert still solves put-back-block; clean targets kept, grippers and contact moves untouched", async () => {
  const { result, ticks, measured, grippers } = await perturbedEpisode("put-back-block", 7, 0.08);
  assert.equal(result.success, true, `perturbed expert failed: ${JSON.stringify(result.checkpoints)}`);
  let maxOffset = 0;
  ticks.forEach((t, i) => {
    const offset = Math.max(...t.executed.map((v, j) => Math.abs(v - t.clean[j]!)));
    for (const g of grippers) assert.equal(t.executed[g], t.clean[g], `tick ${i}: gripper ${g} perturbed`);
    if (t.moveProgress === undefined || t.moveProgress === 1) assert.equal(offset, 0, `tick ${i}: perturbed outside a free-space move`);
    maxOffset = Math.max(maxOffset, offset);
  });
  assert.ok(maxOffset > 0.03 && maxOffset < 0.5, `largest joint offset ${maxOffset} rad (std 0.08)`);
  // The arm goes where the perturbed command sends it (position-controlled joints), so the recorded
  // state is off the expert's path while the action stays on it.
  const arm = ticks[0]!.clean.map((_, j) => j).filter((j) => !grippers.includes(j));
  const gap = (a: Float64Array, b: Float64Array) => Math.max(...arm.map((j) => Math.abs(a[j]! - b[j]!)));
  const followsExecuted = Math.max(...ticks.map((t, i) => gap(measured[i]!, t.executed)));
  const offClean = Math.max(...ticks.map((t, i) => gap(measured[i]!, t.clean)));
  assert.ok(followsExecuted < 0.01, `measured state ${followsExecuted} rad from the executed command`);
  assert.ok(offClean > 0.03, `measured state at most ${offClean} rad from the clean label`);
});

test("perturbation is seeded: same seed, same offsets; std outside [0, 0.3] rad is refused", async () => {
  const a = await perturbedEpisode("press-button", 3, 0.05);
  const b = await perturbedEpisode("press-button", 3, 0.05);
  assert.deepEqual(b.ticks.map((t) => Array.from(t.executed)), a.ticks.map((t) => Array.from(t.executed)));
  assert.throws(() => new ExpertPerturbation(0.5, 1), /0\.5 rad is outside \[0, 0\.3\]/);
  assert.throws(() => new ExpertPerturbation(Number.NaN, 1), /outside/);
});
