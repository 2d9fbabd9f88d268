/**
 * The four tasks added with issue 16 on hand-built states of the real SimWorld (no arm motion):
 * Observe and Pick Up's screen, Swap T's pose tolerances, Battery Try's lamp, attempts and subtask
 * lists, Blocks Ranking Try's swap sequence, checks and lamp.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadRobotProfile } from "../../src/robot/loadRobotProfile.js";
import { SimWorld } from "../../src/sim/world/SimWorld.js";
import type { Vec3 } from "../../src/sim/world/types.js";
import { getTask, mulberry32 } from "../../src/sim/tasks/index.js";
import { yawQuat } from "../../src/sim/tasks/geometry.js";
import { SHOW_S, type ObserveAndPickUpScene } from "../../src/sim/tasks/observe-and-pick-up.js";
import type { SwapTScene } from "../../src/sim/tasks/swap-t.js";
import type { BatteryTryScene } from "../../src/sim/tasks/battery-try.js";
import type { BlocksRankingTryScene } from "../../src/sim/tasks/blocks-ranking-try.js";
import { TRIAL_ORDER } from "../../src/task/battery-try.js";
import { arrangements } from "../../src/task/blocks-ranking-try.js";

const world = await SimWorld.create({ profile: loadRobotProfile("robots/x-one.yaml").profile });
const pose = (position: Vec3, yawRad = 0) => ({ position, quaternion: yawQuat(yawRad) });

test("observe-and-pick-up: the screen drops over the shelf at SHOW_S, not before; nothing lifted is no success", () => {
  world.reset();
  const task = getTask("observe-and-pick-up");
  const s = task.createScene(world, mulberry32(5), "x-one") as ObserveAndPickUpScene;
  assert.equal(new Set(s.objects.map((o) => o.colour)).size, 5, "five different colours");
  const stepsPerTick = world.physicsHz / 10;
  for (let tick = 0; tick < SHOW_S * 10; tick++) {
    assert.equal(s.screen, null, `screen down early, tick ${tick}`);
    for (let k = 0; k < stepsPerTick; k++) world.step();
    task.update(world, s);
  }
  assert.notEqual(s.screen, null, "screen down at 2 s");
  const screen = world.objectPose(s.screen!).position;
  assert.ok(Math.hypot(screen[0] - s.shelfTop[0], screen[1] - s.shelfTop[1]) < 1e-9, "screen over the shelf");
  assert.equal(task.success(world, s), false);
});

test("swap-t success: each T at the other's start pose, within 2.5 cm and 15 degrees", () => {
  world.reset();
  const task = getTask("swap-t");
  const s = task.createScene(world, mulberry32(7), "x-one") as SwapTScene;
  assert.equal(task.success(world, s), false, "start is not swapped");
  const place = (dx: number, dyaw: number) => {
    world.setObjectPose(s.red, pose([s.blueStart.position[0] + dx, s.blueStart.position[1], s.blueStart.position[2]], s.blueStart.yawRad + dyaw));
    world.setObjectPose(s.blue, pose(s.redStart.position, s.redStart.yawRad));
  };
  place(0.02, 0.2);
  assert.equal(task.success(world, s), true, "2 cm and 11 degrees off");
  place(0.03, 0);
  assert.equal(task.success(world, s), false, "3 cm off");
  place(0, 0.3);
  assert.equal(task.success(world, s), false, "17 degrees off");
  place(0, Math.PI);
  assert.equal(task.success(world, s), false, "turned half round: a T is not symmetric");
});

test("battery-try: subtasks follow RMBench's trial order; the lamp lights only for the right seated combination", () => {
  const task = getTask("battery-try");
  const seen = new Map<string, string[]>();
  for (let seed = 0; seed < 30; seed++) {
    world.reset();
    const s = task.createScene(world, mulberry32(seed), "x-one") as BatteryTryScene;
    seen.set(s.correct.join(""), task.subtasks(s));
  }
  assert.deepEqual(Object.fromEntries([...seen].sort()), {
    "01": ["put both batteries into the holder", "flip the left battery", "flip the right battery", "flip the left battery"],
    "10": ["put both batteries into the holder", "flip the left battery"],
    "11": ["put both batteries into the holder", "flip the left battery", "flip the right battery"],
  }, "every combination but 00 is drawn");

  world.reset();
  const s = task.createScene(world, mulberry32(1), "x-one") as BatteryTryScene;
  const seat = ([l, r]: number[]) => {
    s.batteries.forEach((b, i) => world.setObjectPose(b, pose(s.slots[i]!, [l, r][i]! ? Math.PI : 0)));
    task.update(world, s);
  };
  for (const c of TRIAL_ORDER) {
    seat(c);
    assert.equal(s.lampOn, c.join("") === s.correct.join(""), `lamp at ${c.join("")} (right: ${s.correct.join("")})`);
    assert.equal(task.success(world, s), s.lampOn);
  }
  assert.deepEqual(s.attempts, TRIAL_ORDER, "each seated combination is one attempt");
  world.setObjectPose(s.batteries[0], pose([s.slots[0][0], s.slots[0][1] + 0.03, s.slots[0][2]], Math.PI));
  task.update(world, s);
  assert.equal(s.lampOn, false, "a battery 3 cm out of its slot");
});

test("blocks-ranking-try: the swap sequence reaches the right order from every wrong start, visiting no arrangement twice", () => {
  for (const start of [[0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]]) {
    const seq = arrangements(start).map((a) => a.join(""));
    assert.equal(seq.at(-1), "012", `from ${start.join("")}`);
    assert.equal(new Set(seq).size, seq.length, `no repeats from ${start.join("")}: ${seq.join(" ")}`);
  }
  const task = getTask("blocks-ranking-try");
  world.reset();
  const s = task.createScene(world, mulberry32(3), "x-one") as BlocksRankingTryScene;
  assert.equal(task.subtasks(s).length, 1 + 2 * s.swapsNeeded);
  const press = () => {
    const g = world.graspPoint("left");
    const top = s.button.capTop;
    s.button.capTop = [g[0], g[1], g[2] - 0.005];   // the cap under the resting hand: a press
    task.update(world, s);
    s.button.capTop = [g[0], g[1], g[2] - 0.2];     // released
    task.update(world, s);
    s.button.capTop = top;
  };
  press();
  assert.deepEqual(s.checks, [s.start.join("")]);
  assert.equal(task.success(world, s), false, "a wrong order checked");
  s.blocks.forEach((b, rank) => world.setObjectPose(b, pose(s.spots[rank]!)));
  assert.equal(task.success(world, s), false, "right order but not checked");
  press();
  assert.deepEqual(s.checks, [s.start.join(""), "012"]);
  assert.equal(task.success(world, s), true);
  assert.deepEqual(world.objectSpec(s.lamp).color, [40, 220, 70], "lamp green");
});
