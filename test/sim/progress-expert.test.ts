/**
 * On expert episodes the ground-truth progress (the task's subtaskDone, blind to the expert) ends
 * each subtask within 2 control steps of the expert's annotated end: the two ground truths a
 * learned classifier is scored against agree. The expert succeeds and reaches every checkpoint.
 * X-One, every task, lock-step on the real SimWorld through TaskEpisode (no bus, no cameras):
 * seeds 100 and 101 for the first five tasks, one short seed for each of the four added later.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadRobotProfile } from "../../src/robot/loadRobotProfile.js";
import { SimWorld } from "../../src/sim/world/SimWorld.js";
import { listTasks } from "../../src/sim/tasks/index.js";
import { TaskEpisode } from "../../src/sim/node/TaskEpisode.js";

/** Most control steps (10 Hz on X-One) the two ends may differ by. */
const MAX_OFFSET_STEPS = 2;
/** Seeds per task (the four later tasks: one seed each, chosen for short episodes, to keep CI short). */
const SEEDS: Record<string, number[]> = { "observe-and-pick-up": [100], "swap-t": [100], "battery-try": [101], "blocks-ranking-try": [109] };

const profile = loadRobotProfile("robots/x-one.yaml").profile;
const world = await SimWorld.create({ profile });
const substeps = world.physicsHz / profile.control_hz;

// The X-One tasks here; RoboMME's Franka-only video tasks in test/sim/videoTasks.test.ts.
for (const task of listTasks().filter((t) => t.robots.includes("x-one"))) {
  const seeds = SEEDS[task.id] ?? [100, 101];
  test(`${task.id}: progress-based subtask ends agree with the expert's annotations (x-one, seeds ${seeds.join(", ")})`, () => {
    for (const seed of seeds) {
      world.reset();
      const ep = new TaskEpisode(task, seed, world, profile, profile.control_hz, true);
      while (!ep.done) {
        const out = ep.expertTargets(world)!;
        world.setJointTargets(out.targets);
        for (let k = 0; k < substeps; k++) world.step();
        ep.tick(world, out);
      }
      const where = `[${task.id} seed=${seed}]`;
      const expert = ep.ends(), progress = ep.progressEnds();
      assert.equal(ep.success, true, `expert episode failed ${where}`);
      assert.deepEqual(ep.checkpoints().map((c) => c.id).sort(), task.checkpoints.map((c) => c.id).sort(), `all checkpoints reached ${where}`);
      assert.deepEqual(expert.map((e) => e.text), task.subtasks(ep.scene), `expert annotations ${where}`);
      assert.deepEqual(progress.map((e) => e.text), expert.map((e) => e.text), `progress ends every subtask, in order ${where}`);
      progress.forEach((p, i) => {
        const offset = p.step - expert[i]!.step;
        assert.ok(Math.abs(offset) <= MAX_OFFSET_STEPS, `"${p.text}" (#${i}): progress step ${p.step}, expert step ${expert[i]!.step} ${where}`);
      });
    }
  });
}
