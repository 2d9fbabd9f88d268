/**
 * Ground-truth subtask progress without the expert: the SubtaskProgress latch, the hands-clear
 * rule, and each task's `subtaskDone` driven through a real TaskEpisode (expert off) on hand-built
 * states of the real SimWorld (objects teleported, buttons pressed by placing the cap under a
 * grasp point; no physics steps).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadRobotProfile } from "../../src/robot/loadRobotProfile.js";
import { SimWorld } from "../../src/sim/world/SimWorld.js";
import type { ObjectId, Pose3, Vec3 } from "../../src/sim/world/types.js";
import { SubtaskProgress, WITHDRAWN_Z, getTask, handsClear, type TaskScene } from "../../src/sim/tasks/index.js";
import { TaskEpisode } from "../../src/sim/node/TaskEpisode.js";
import { TABLE_Z } from "../../src/sim/tasks/geometry.js";
import type { Button } from "../../src/sim/tasks/props.js";
import type { PutBackBlockScene } from "../../src/sim/tasks/put-back-block.js";
import type { PressButtonScene } from "../../src/sim/tasks/press-button.js";
import type { SwapBlocksScene } from "../../src/sim/tasks/swap-blocks.js";
import type { RearrangeBlocksScene } from "../../src/sim/tasks/rearrange-blocks.js";
import type { CoverBlocksScene } from "../../src/sim/tasks/cover-blocks.js";

const profile = loadRobotProfile("robots/x-one.yaml").profile;
const world = await SimWorld.create({ profile });
const REST = TABLE_Z + 0.022;
const LID_ON_BLOCK = TABLE_Z + 0.054;
const at = (p: Vec3): Pose3 => ({ position: p, quaternion: [0, 0, 0, 1] });
const put = (id: ObjectId, p: Vec3, z = REST) => world.setObjectPose(id, at([p[0], p[1], z]));

/** A fresh episode of `taskId` on the reset world with the expert off. */
function episode<S extends TaskScene>(taskId: string, seed = 100): { ep: TaskEpisode; s: S } {
  world.reset();
  const ep = new TaskEpisode(getTask(taskId), seed, world, profile, profile.control_hz, false);
  return { ep, s: ep.scene as S };
}

/** Runs `n` control ticks (no physics: the state is what the test set); returns the texts that ended. */
function ticks(ep: TaskEpisode, n = 1): string[] {
  const ended: string[] = [];
  for (let i = 0; i < n; i++) { const t = ep.tick(world, null); if (t.subtaskEnded !== undefined) ended.push(t.subtaskEnded); }
  return ended;
}

/** One press of `button` by the left hand: cap under the grasp point for a tick, then far below it. */
function press(ep: TaskEpisode, button: Button): string[] {
  const gp = world.graspPoint("left"), home = button.capTop;
  button.capTop = [gp[0], gp[1], gp[2] - 0.005];
  const during = ticks(ep);
  assert.deepEqual(during, [], `${button.name}: a press still held down ends nothing`);
  button.capTop = [gp[0], gp[1], gp[2] - 0.1];
  const after = ticks(ep);
  button.capTop = home;
  return after;
}

test("SubtaskProgress: in order, latched, at most one end per step", () => {
  const done = [false, false, false];
  const source = { subtasks: () => ["a", "b", "c"], subtaskDone: (_w: unknown, _s: TaskScene, i: number) => done[i]! };
  const scene: TaskScene = { taskId: "t", robot: "x-one", step: 0 };
  const p = new SubtaskProgress(source, scene);
  assert.equal(p.current, "a");
  done[1] = true;
  assert.equal(p.evaluate(world, scene, 0), null, "b done before a does not end anything");
  done[0] = true;
  assert.deepEqual(p.evaluate(world, scene, 1), { text: "a", step: 1 });
  done[0] = false;
  assert.deepEqual(p.evaluate(world, scene, 2), { text: "b", step: 2 }, "a stays latched; b ends on the next step");
  assert.equal(p.evaluate(world, scene, 3), null);
  done[2] = true;
  assert.deepEqual(p.evaluate(world, scene, 4), { text: "c", step: 4 });
  assert.equal(p.evaluate(world, scene, 5), null);
  assert.equal(p.current, undefined);
  assert.equal(p.completed, 3);
  assert.deepEqual(p.ends().map((e) => e.step), [1, 2, 4]);
});

test("handsClear: a hand is clear of a point when raised to WITHDRAWN_Z or 6 cm away sideways", () => {
  world.reset();
  const gp = world.graspPoint("left");
  assert.ok(gp[2] < WITHDRAWN_Z, "X-One home grasp point is below the withdrawn height");
  assert.equal(handsClear(world, [[gp[0], gp[1], REST]]), false, "right under the left hand");
  assert.equal(handsClear(world, [[gp[0] + 0.03, gp[1] - 0.03, REST]]), false, "4 cm off");
  assert.equal(handsClear(world, [[gp[0] + 0.07, gp[1], REST]]), true, "7 cm off");
  assert.equal(handsClear(world, [[gp[0], gp[1], REST]], gp[2] - 0.01), true, "hand above a lower withdrawn height");
});

test("put-back-block without the expert: ends follow the scene in order, only once the hand is clear", () => {
  const { ep, s } = episode<PutBackBlockScene>("put-back-block");
  const texts = getTask("put-back-block").subtasks(s);
  assert.equal(ep.currentSubtask, texts[0]);
  assert.deepEqual(ticks(ep, 3), [], "untouched scene");
  // The block at a centre mark right under the left hand: placed, but the hand has not withdrawn.
  const centre = s.centre, gp = world.graspPoint("left");
  s.centre = [gp[0], gp[1], REST];
  put(s.block, s.centre);
  assert.deepEqual(ticks(ep, 2), [], "hand over the placed block");
  s.centre = centre;
  put(s.block, centre);
  const t = ep.tick(world, null);
  assert.equal(t.subtaskEnded, texts[0]);
  assert.equal(t.subtaskChanged, texts[1]);
  // Back on the original mat before the press: the press is still pending, nothing ends.
  const orig = s.mats[s.originalMat]!;
  put(s.block, orig);
  assert.deepEqual(ticks(ep, 2), []);
  put(s.block, centre);
  assert.deepEqual(press(ep, s.button), [texts[1]]);
  assert.equal(ep.success, false);
  put(s.block, orig);
  const last = ep.tick(world, null);
  assert.equal(last.subtaskEnded, texts[2]);
  assert.equal(last.subtaskChanged, undefined, "no subtask after the last");
  assert.equal(ep.currentSubtask, undefined);
  assert.ok(last.success && last.done, "success ends the episode without an expert");
  assert.deepEqual(ep.ends(), ep.progressEnds());
  assert.deepEqual(ep.ends().map((e) => e.step), [5, 9, 10]);
});

test("press-button without the expert: each counted, released press ends one subtask; confirm last", () => {
  const { ep, s } = episode<PressButtonScene>("press-button", 101);
  const texts = getTask("press-button").subtasks(s);
  const ended: string[] = [];
  for (let i = 0; i < s.n1; i++) ended.push(...press(ep, s.left));
  assert.equal(ep.subtasksDone, s.n1);
  for (let i = 0; i < s.n2; i++) ended.push(...press(ep, s.middle));
  ended.push(...press(ep, s.confirm));
  assert.deepEqual(ended, texts);
  assert.equal(ep.success, true);
  assert.deepEqual(ep.ends().map((e) => e.step), texts.map((_, i) => 2 * i + 1), "each ends on its release tick");
});

test("swap-blocks without the expert: three transfers then the press", () => {
  const { ep, s } = episode<SwapBlocksScene>("swap-blocks");
  const texts = getTask("swap-blocks").subtasks(s);
  put(s.blue, s.trays[s.redStart]!);        // blue first onto red's tray: out of order, nothing ends
  put(s.red, [0.3, 0.35, 0]);
  assert.deepEqual(ticks(ep, 2), []);
  put(s.red, s.trays[s.emptyStart]!);
  assert.deepEqual(ticks(ep, 3), [texts[0], texts[1]], "red on the empty tray, then blue already on red's tray (next step)");
  put(s.red, s.trays[s.blueStart]!);
  assert.deepEqual(ticks(ep), [texts[2]]);
  assert.deepEqual(press(ep, s.button), [texts[3]]);
  assert.equal(ep.success, true);
});

test("rearrange-blocks without the expert: squares, press, then each block home", () => {
  const { ep, s } = episode<RearrangeBlocksScene>("rearrange-blocks");
  const texts = getTask("rearrange-blocks").subtasks(s);
  put(s.red, s.squares.red);
  put(s.green, s.squares.green);
  assert.deepEqual(ticks(ep, 3), texts.slice(0, 2));
  assert.deepEqual(press(ep, s.button), [texts[2]]);
  put(s.green, s.mats[s.greenStart]!);
  assert.deepEqual(ticks(ep, 2), [], "green home before red: the red subtask is next");
  put(s.red, s.mats[s.redStart]!);
  assert.deepEqual(ticks(ep, 2), texts.slice(3, 5));
  assert.equal(ep.success, true);
});

test("cover-blocks without the expert: cover left to right, uncover red, green, blue", () => {
  const { ep, s } = episode<CoverBlocksScene>("cover-blocks");
  const texts = getTask("cover-blocks").subtasks(s);
  const blockAt = (i: number) => world.objectPose(s.blocks[i]!.id).position;
  put(s.lids[2]!, blockAt(2), LID_ON_BLOCK);
  assert.deepEqual(ticks(ep, 2), [], "right block covered first: the left one is next");
  put(s.lids[0]!, blockAt(0), LID_ON_BLOCK);
  put(s.lids[1]!, blockAt(1), LID_ON_BLOCK);
  assert.deepEqual(ticks(ep, 4), texts.slice(0, 3));
  const uncover = (colour: string) => {
    const i = s.blocks.findIndex((b) => b.colour === colour);
    put(s.lids[i]!, s.lidSpots[i]!, s.lidSpots[i]![2]);
  };
  uncover("red");
  assert.deepEqual(ticks(ep, 2), [texts[3]]);
  uncover("blue");
  assert.deepEqual(ticks(ep, 2), [], "blue before green: green is next");
  uncover("green");
  assert.deepEqual(ticks(ep, 3), texts.slice(4, 6));
  assert.equal(ep.success, false, "uncovered out of order is not success");
});
