/**
 * Task layer tests: seeded RNG and scene generation, button press hysteresis, checkpoint latching,
 * and each task's success predicate on hand-built states of the real SimWorld (no physics steps).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadRobotProfile } from "../../src/robot/loadRobotProfile.js";
import { SimWorld } from "../../src/sim/world/SimWorld.js";
import type { Pose3, Vec3 } from "../../src/sim/world/types.js";
import { CheckpointTracker, getTask, listTasks, mulberry32, stepLimit, type TaskScene } from "../../src/sim/tasks/index.js";
import { BUTTON, addButton, addDigit, pressTransition, updateButton } from "../../src/sim/tasks/props.js";
import { TABLE_Z } from "../../src/sim/tasks/geometry.js";
import type { PutBackBlockScene } from "../../src/sim/tasks/put-back-block.js";
import type { PressButtonScene } from "../../src/sim/tasks/press-button.js";
import type { SwapBlocksScene } from "../../src/sim/tasks/swap-blocks.js";
import type { RearrangeBlocksScene } from "../../src/sim/tasks/rearrange-blocks.js";
import type { CoverBlocksScene } from "../../src/sim/tasks/cover-blocks.js";

const xOne = loadRobotProfile("robots/x-one.yaml").profile;
const world = await SimWorld.create({ profile: xOne });

const at = (p: Vec3): Pose3 => ({ position: p, quaternion: [0, 0, 0, 1] });
const REST = TABLE_Z + 0.022;

/** Every object's name, body, shape and pose, for comparing scenes. */
function snapshot(w: SimWorld): string {
  return JSON.stringify(w.objectIds().map((id) => ({ spec: w.objectSpec(id), pose: w.objectPose(id) })));
}

test("mulberry32: same seed, same sequence; different seeds differ; int bounds inclusive", () => {
  const a = mulberry32(7), b = mulberry32(7), c = mulberry32(8);
  const sa = Array.from({ length: 50 }, () => a.next()), sb = Array.from({ length: 50 }, () => b.next());
  assert.deepEqual(sa, sb);
  assert.notDeepEqual(sa, Array.from({ length: 50 }, () => c.next()));
  const r = mulberry32(1), seen = new Set<number>();
  for (let i = 0; i < 500; i++) seen.add(r.int(1, 3));
  assert.deepEqual([...seen].sort(), [1, 2, 3]);
  assert.deepEqual(mulberry32(3).shuffle([1, 2, 3, 4]).sort(), [1, 2, 3, 4]);
});

test("registry: the RMBench tasks, then RoboMME's video tasks; an unknown id names the known ones; step limit", () => {
  const rmbench = [
    "put-back-block", "rearrange-blocks", "swap-blocks", "cover-blocks", "press-button", "observe-and-pick-up",
    "swap-t", "battery-try", "blocks-ranking-try",
  ];
  const ids = [...rmbench, "video-place-order", "video-unmask", "move-cube"];
  assert.deepEqual(listTasks().map((t) => t.id), ids);
  assert.throws(() => getTask("stack-cups"), new RegExp(`unknown task "stack-cups" \\(known: ${ids.join(", ")}\\)`));
  assert.equal(stepLimit(getTask("put-back-block"), 10), 400);
  for (const t of listTasks()) assert.equal(t.robots.includes("x-one"), rmbench.includes(t.id), `${t.id} on X-One`);
  const franka = listTasks().filter((t) => t.robots.includes("franka-droid")).map((t) => t.id);
  assert.deepEqual(franka, [
    "put-back-block", "press-button", "observe-and-pick-up", "blocks-ranking-try", "video-place-order", "video-unmask",
    "move-cube",
  ]);
});

test("scene generation is deterministic for a seed and varies across seeds", () => {
  for (const task of listTasks()) {
    const build = (seed: number) => { world.reset(); task.createScene(world, mulberry32(seed), "x-one"); return snapshot(world); };
    const first = build(100);
    assert.equal(build(100), first, `${task.id}: seed 100 twice`);
    const others = [101, 102, 103, 104].map(build);
    assert.ok(others.some((s) => s !== first), `${task.id}: seeds 101..104 all equal seed 100`);
  }
});

test("scenes keep task objects inside the task area on the table", () => {
  for (const task of listTasks()) {
    for (const seed of [100, 105, 110]) {
      world.reset();
      task.createScene(world, mulberry32(seed), "x-one");
      for (const id of world.objectIds()) {
        const [x, y, z] = world.objectPose(id).position, name = world.objectSpec(id).name;
        assert.ok(x >= 0.2 && x <= 0.8 && y >= -0.5 && y <= 0.5 && z >= TABLE_Z && z < TABLE_Z + 0.1, `${task.id} seed ${seed}: ${name} at ${x},${y},${z}`);
      }
    }
  }
});

test("press hysteresis: a press counts once, jitter at the threshold does not recount, rising re-arms", () => {
  const top: Vec3 = [0.4, 0, 0.8];
  const z = (dz: number): Vec3[] => [[0.4, 0.005, top[2] + dz]];
  const press = BUTTON.pressAboveCapM, release = BUTTON.releaseAboveCapM;
  const seq = [0.1, press + 0.002, press - 0.001, press + 0.003, press - 0.002, release - 0.001, press - 0.004, release + 0.002, 0.1, press - 0.003];
  let pressed = false, count = 0;
  const counts = seq.map((dz) => { const r = pressTransition(pressed, top, z(dz)); pressed = r.pressed; if (r.began) count++; return count; });
  assert.deepEqual(counts, [0, 0, 1, 1, 1, 1, 1, 1, 1, 2]);
  // Off the cap (beyond the press radius) never presses, however low.
  assert.equal(pressTransition(false, top, [[0.4 + BUTTON.pressRadius + 0.01, 0, top[2]]]).began, false);
});

test("updateButton counts from the world's grasp points and dips the cap while pressed", () => {
  world.reset();
  const gp = world.graspPoint("left");
  const button = addButton(world, "b", gp[0], gp[1], [200, 0, 0]);
  // Button under the left grasp point: its cap top just below it, so the hand is "on" the button.
  button.capTop = [gp[0], gp[1], gp[2] - 0.005];
  assert.equal(updateButton(world, button, 0), true);
  assert.equal(updateButton(world, button, 1), false);
  assert.equal(button.count, 1);
  assert.deepEqual(button.pressSteps, [0]);
  assert.ok(world.objectPose(button.capId).position[2] < button.capTop[2], "cap moved down while pressed");
  button.capTop = [gp[0], gp[1], gp[2] - 0.2];       // hand far above: released
  assert.equal(updateButton(world, button, 2), false);
  assert.equal(button.pressed, false);
  assert.ok(Math.abs(world.objectPose(button.capId).position[2] - (button.capTop[2] - BUTTON.capHalfHeight)) < 1e-9, "cap back up");
});

test("seven-segment digits: bar counts per digit, bad digit rejected", () => {
  world.reset();
  const bars = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((d) => addDigit(world, `d${d}`, d, 0.6, 0).length);
  assert.deepEqual(bars, [6, 2, 5, 5, 4, 5, 6, 3, 7, 6]);
  assert.throws(() => addDigit(world, "bad", 12, 0.6, 0), /digit 12 for "bad" is not a single decimal digit/);
});

test("checkpoints latch once, at the first step their predicate holds", () => {
  let flag = false;
  const tracker = new CheckpointTracker<TaskScene>([
    { id: "a", label: "storage", description: "flag", predicate: () => flag },
    { id: "b", label: "update", description: "never", predicate: () => false },
  ]);
  const scene: TaskScene = { taskId: "t", robot: "x-one", step: 0 };
  assert.deepEqual(tracker.evaluate(world, scene, 0), []);
  flag = true;
  assert.deepEqual(tracker.evaluate(world, scene, 1), [{ id: "a", label: "storage", step: 1 }]);
  flag = false;
  assert.deepEqual(tracker.evaluate(world, scene, 2), []);
  flag = true;
  assert.deepEqual(tracker.evaluate(world, scene, 3), []);
  assert.deepEqual(tracker.reached(), [{ id: "a", label: "storage", step: 1 }]);
});

test("put-back-block success: needs the press after the centre and the block on its original mat", () => {
  world.reset();
  const task = getTask("put-back-block");
  const s = task.createScene(world, mulberry32(100), "x-one") as PutBackBlockScene;
  const other = s.mats[(s.originalMat + 1) % 4]!;
  assert.equal(task.success(world, s), false, "untouched start is not success");
  s.atCentreStep = 10; s.pressedAfterCentreStep = 20;
  world.setObjectPose(s.block, at([other[0], other[1], REST]));
  assert.equal(task.success(world, s), false, "on another mat");
  const orig = s.mats[s.originalMat]!;
  world.setObjectPose(s.block, at([orig[0] + 0.02, orig[1] - 0.015, REST]));
  assert.equal(task.success(world, s), true, "on the original mat within 3 cm");
  world.setObjectPose(s.block, at([orig[0] + 0.04, orig[1], REST]));
  assert.equal(task.success(world, s), false, "4 cm off");
  world.setObjectPose(s.block, at([orig[0], orig[1], REST + 0.05]));
  assert.equal(task.success(world, s), false, "lifted above the mat");
  world.setObjectPose(s.block, at(orig));
  s.pressedAfterCentreStep = null;
  assert.equal(task.success(world, s), false, "no press");
});

test("put-back-block update: moving to the centre then pressing latches the events in order", () => {
  world.reset();
  const task = getTask("put-back-block");
  const s = task.createScene(world, mulberry32(101), "x-one") as PutBackBlockScene;
  task.update(world, s);
  assert.equal(s.leftOriginalStep, null);
  world.setObjectPose(s.block, at([s.centre[0], s.centre[1], REST]));
  task.update(world, s);
  assert.equal(s.leftOriginalStep, 1);
  assert.equal(s.atCentreStep, 1);
  // A press: put the cap right under the left grasp point (the world's arms stay at home).
  const gp = world.graspPoint("left");
  s.button.capTop = [gp[0], gp[1], gp[2] - 0.005];
  task.update(world, s);
  assert.equal(s.pressedAfterCentreStep, 2);
});

test("press-button success: exact counts at the first confirm", () => {
  world.reset();
  const task = getTask("press-button");
  const s = task.createScene(world, mulberry32(100), "x-one") as PressButtonScene;
  assert.ok(s.n1 >= 1 && s.n1 <= 3 && s.n2 >= 1 && s.n2 <= 3);
  assert.equal(task.subtasks(s).length, s.n1 + s.n2 + 1);
  assert.equal(task.success(world, s), false);
  s.countsAtConfirm = { left: s.n1, middle: s.n2 };
  assert.equal(task.success(world, s), true);
  s.countsAtConfirm = { left: s.n1 + 1, middle: s.n2 };
  assert.equal(task.success(world, s), false, "one press too many");
  s.countsAtConfirm = { left: s.n1, middle: s.n2 - 1 };
  assert.equal(task.success(world, s), false, "one press short");
});

test("swap-blocks success: swapped and pressed", () => {
  world.reset();
  const task = getTask("swap-blocks");
  const s = task.createScene(world, mulberry32(100), "x-one") as SwapBlocksScene;
  const r = s.trays[s.redStart]!, b = s.trays[s.blueStart]!;
  world.setObjectPose(s.red, at([b[0], b[1], REST]));
  world.setObjectPose(s.blue, at([r[0], r[1], REST]));
  assert.equal(task.success(world, s), false, "swapped but not pressed");
  s.swappedStep = 5; s.pressedAfterSwapStep = 9;
  assert.equal(task.success(world, s), true);
  world.setObjectPose(s.blue, at([b[0], b[1] + 0.06, REST]));
  assert.equal(task.success(world, s), false, "blue moved off the red tray");
});

test("rearrange-blocks success: both back on their mats after the press", () => {
  world.reset();
  const task = getTask("rearrange-blocks");
  const s = task.createScene(world, mulberry32(100), "x-one") as RearrangeBlocksScene;
  s.inSquaresStep = 5; s.pressedAfterSquaresStep = 9;
  assert.equal(task.success(world, s), true, "both blocks on their starting mats");
  const g = s.mats[s.greenStart]!, r = s.mats[s.redStart]!;
  world.setObjectPose(s.red, at([g[0], g[1], REST]));
  world.setObjectPose(s.green, at([r[0], r[1], REST]));
  assert.equal(task.success(world, s), false, "blocks on each other's mats");
});

test("cover-blocks: cover state from lid poses, uncover order red, green, blue", () => {
  world.reset();
  const task = getTask("cover-blocks");
  const s = task.createScene(world, mulberry32(100), "x-one") as CoverBlocksScene;
  const coverAll = () => s.blocks.forEach((b, i) => {
    const p = world.objectPose(b.id).position;
    world.setObjectPose(s.lids[i]!, at([p[0], p[1], TABLE_Z + 0.044 + 0.01]));
  });
  const uncover = (colour: string) => {
    const i = s.blocks.findIndex((b) => b.colour === colour);
    world.setObjectPose(s.lids[i]!, at(s.lidSpots[i]!));
    task.update(world, s);
  };
  coverAll();
  task.update(world, s);
  assert.deepEqual(s.covered, [true, true, true]);
  assert.equal(s.allCoveredStep, 0);
  for (const c of ["red", "green", "blue"]) uncover(c);
  assert.deepEqual(s.uncoverOrder, ["red", "green", "blue"]);
  assert.equal(task.success(world, s), true);

  world.reset();
  const s2 = task.createScene(world, mulberry32(100), "x-one") as CoverBlocksScene;
  Object.assign(s, s2);
  coverAll();
  task.update(world, s);
  for (const c of ["green", "red", "blue"]) uncover(c);
  assert.deepEqual(s.uncoverOrder, ["green", "red", "blue"]);
  assert.equal(task.success(world, s), false, "wrong order");
});
