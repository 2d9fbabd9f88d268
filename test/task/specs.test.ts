/**
 * Task specs (src/task/): the registry, the table of facts each spec carries, the seed's nominal
 * texts, and that the sim twin's task definitions take every one of those facts from the spec.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  TASK_IDS, getTaskSpec, isTaskId, listTaskSpecs, mulberry32, nominalTexts, stepLimit, taskRobotOf,
} from "../../src/task/index.js";
import { PRESS_BUTTON, PRESS_TEXTS } from "../../src/task/press-button.js";
import { BATTERY_TRY } from "../../src/task/battery-try.js";
import { BLOCKS_RANKING_TRY } from "../../src/task/blocks-ranking-try.js";
import { loadRobotProfile } from "../../src/robot/loadRobotProfile.js";
import { SimWorld } from "../../src/sim/world/SimWorld.js";
import { getTask } from "../../src/sim/tasks/index.js";
import { defineTask, type TaskScene } from "../../src/sim/tasks/types.js";

test("registry: the nine ids in order; an unknown id names the known ones", () => {
  assert.deepEqual(listTaskSpecs().map((s) => s.id), [...TASK_IDS]);
  assert.equal(getTaskSpec("swap-t").id, "swap-t");
  const known = new RegExp(`unknown task "stack-cups" \\(known: ${TASK_IDS.join(", ")}\\)`);
  assert.throws(() => getTaskSpec("stack-cups"), known);
  assert.equal(isTaskId("battery-try"), true);
  assert.equal(isTaskId("Battery-Try"), false);
});

// id, memory class, robots, time limit (s), step limit at 15 Hz, subtask count for the seed-free tasks
const TABLE: Array<[string, "M1" | "Mn", string[], number, number, number | null]> = [
  ["put-back-block", "M1", ["x-one", "franka-droid"], 40, 600, 3],
  ["rearrange-blocks", "M1", ["x-one"], 70, 1050, 5],
  ["swap-blocks", "M1", ["x-one"], 60, 900, 4],
  ["cover-blocks", "Mn", ["x-one"], 80, 1200, 6],
  ["press-button", "Mn", ["x-one", "franka-droid"], 45, 675, null],
  ["observe-and-pick-up", "M1", ["x-one", "franka-droid"], 25, 375, 1],
  ["swap-t", "M1", ["x-one"], 45, 675, 3],
  ["battery-try", "Mn", ["x-one"], 60, 900, null],
  ["blocks-ranking-try", "Mn", ["x-one", "franka-droid"], 150, 2250, null],
];

for (const [id, tmc, robots, timeLimitS, steps15, fixedCount] of TABLE) {
  test(`${id}: memory class, robots, limits, checkpoints and texts`, () => {
    const spec = getTaskSpec(id);
    assert.equal(spec.tmc, tmc);
    assert.deepEqual([...spec.robots], robots);
    assert.equal(spec.timeLimitS, timeLimitS);
    assert.equal(stepLimit(spec, 15), steps15);
    assert.deepEqual(spec.checkpoints.map((c) => c.label), ["storage", "update", "compression"]);
    assert.equal(new Set(spec.checkpoints.map((c) => c.id)).size, 3, "checkpoint ids are distinct");
    for (const c of spec.checkpoints) assert.ok(c.description.length > 10, `${c.id} is described`);
    assert.match(spec.instruction, /^[A-Z].*\.$/);
    const why = "a task draws from its seed only when its subtasks depend on it";
    assert.equal(spec.draw === undefined, fixedCount !== null, why);
    if (fixedCount !== null) {
      assert.equal(nominalTexts(spec, 0).subtasks.length, fixedCount);
      assert.deepEqual(nominalTexts(spec, 0), nominalTexts(spec, 12345), "fixed texts do not depend on the seed");
    }
    assert.equal(nominalTexts(spec, 3).instruction, spec.instruction);
  });
}

test("drawn subtasks: press counts, battery flips and ranking swaps follow the seed's draw", () => {
  for (let seed = 0; seed < 30; seed++) {
    const press = PRESS_BUTTON.draw(mulberry32(seed));
    const texts = nominalTexts(PRESS_BUTTON, seed).subtasks;
    assert.deepEqual(texts, [
      ...Array<string>(press.n1).fill(PRESS_TEXTS.left),
      ...Array<string>(press.n2).fill(PRESS_TEXTS.middle),
      PRESS_TEXTS.confirm,
    ]);
    assert.ok(press.n1 >= 1 && press.n1 <= 3 && press.n2 >= 1 && press.n2 <= 3, `seed ${seed}: digits in 1..3`);
    const battery = nominalTexts(BATTERY_TRY, seed).subtasks;
    assert.equal(battery[0], "put both batteries into the holder");
    assert.ok(battery.length >= 2 && battery.length <= 4, `seed ${seed}: 1..3 flips (never both positive)`);
    const ranking = BLOCKS_RANKING_TRY.draw(mulberry32(seed));
    assert.equal(nominalTexts(BLOCKS_RANKING_TRY, seed).subtasks.length, 1 + 2 * ranking.swapsNeeded);
    assert.ok(ranking.swapsNeeded >= 1, `seed ${seed}: the start is a wrong order`);
  }
  assert.deepEqual(BATTERY_TRY.subtasks({ correct: [0, 1] }), [
    "put both batteries into the holder", "flip the left battery", "flip the right battery", "flip the left battery",
  ]);
  assert.deepEqual(BLOCKS_RANKING_TRY.subtasks({ swapsNeeded: 1 }), [
    "press the button", "swap the middle block and the right block", "press the button",
  ]);
});

test("the twin's definitions read their facts from the specs, and its scenes give the nominal texts", async () => {
  const profile = loadRobotProfile("robots/x-one.yaml").profile;
  const world = await SimWorld.create({ profile });
  try {
    for (const spec of listTaskSpecs()) {
      const task = getTask(spec.id);
      assert.equal(task.spec, spec);
      assert.deepEqual([task.id, task.tmc, task.robots], [spec.id, spec.tmc, spec.robots]);
      assert.equal(task.timeLimitS, spec.timeLimitS);
      const labelled = task.checkpoints.map(({ id, label, description }) => ({ id, label, description }));
      assert.deepEqual(labelled, spec.checkpoints);
      for (let seed = 0; seed < 12; seed++) {
        world.reset();
        const scene = task.createScene(world, mulberry32(seed), taskRobotOf(profile));
        const nominal = nominalTexts(spec, seed);
        assert.equal(task.instruction(scene), nominal.instruction);
        assert.deepEqual(task.subtasks(scene), nominal.subtasks, `${spec.id} seed ${seed}`);
      }
    }
  } finally {
    world.dispose();
  }
});

test("defineTask: predicates must match the spec's checkpoints one to one", () => {
  const spec = getTaskSpec("swap-t");
  const parts = {
    createScene: (): TaskScene => ({ taskId: "swap-t", robot: "x-one", step: 0 }),
    subtaskDone: () => false, update: () => undefined, success: () => false,
    expert: () => { throw new Error("unused"); },
  };
  const ok = { "both-lifted": () => true, "red-at-blue-pose": () => true, swapped: () => true };
  const ids = (cs: ReadonlyArray<{ id: string }>) => cs.map((c) => c.id);
  assert.deepEqual(ids(defineTask(spec, { ...parts, predicates: ok }).checkpoints), ids(spec.checkpoints));
  const typo = { "both-lifted": () => true, swaped: () => true };
  const mismatch = new RegExp('task "swap-t": checkpoint predicates do not match its spec '
    + "\\(missing: red-at-blue-pose, swapped; not in the spec: swaped\\)");
  assert.throws(() => defineTask(spec, { ...parts, predicates: typo }), mismatch);
});
