/**
 * RoboMME's video tasks on the Franka twin (src/sim/tasks/video-place-order.ts, video-unmask.ts,
 * move-cube.ts): the demonstration leaves each scene in its execution-start state, the plan expert
 * and the reactive expert then solve it, the instruction is the goal string with the scene's draws,
 * and a TaskEpisode runs the demonstration phase before execution. Two seeds per task (both variants).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { SimWorld } from "../../src/sim/world/SimWorld.js";
import { getTask, mulberry32, type TaskDefinition, type TaskScene } from "../../src/sim/tasks/index.js";
import { distXy } from "../../src/sim/tasks/geometry.js";
import { runExpertEpisode } from "../../src/sim/expert/runExpertEpisode.js";
import { TaskEpisode } from "../../src/sim/node/TaskEpisode.js";
import { getTaskSpec, nominalTexts } from "../../src/task/index.js";
import type { VideoUnmaskScene } from "../../src/sim/tasks/video-unmask.js";
import type { MoveCubeScene } from "../../src/sim/tasks/move-cube.js";
import type { VideoPlaceOrderScene } from "../../src/sim/tasks/video-place-order.js";
import { checkEpisode, expertEpisode, profiles } from "./expertEpisode.js";

const profile = profiles["franka-droid"];
/** Seeds that cover each task's variants: one and two cubes to unmask; pushed and carried cubes. */
const SEEDS: Record<string, number[]> = {
  "video-place-order": [100, 101], "video-unmask": [100, 101], "move-cube": [100, 103],
};

test("the instruction is RoboMME's goal string with the scene's draws, the same in the spec and the twin", async () => {
  const world = await SimWorld.create({ profile });
  for (const [id, seeds] of Object.entries(SEEDS)) {
    for (const seed of seeds) {
      world.reset();
      const task = getTask(id);
      const scene = task.createScene(world, mulberry32(seed), "franka-droid");
      const texts = nominalTexts(getTaskSpec(id), seed);
      const where = `${id} seed ${seed}: ${texts.instruction}`;
      assert.ok(texts.instruction.startsWith("watch the video carefully, then "), where);
      assert.equal(task.instruction(scene), texts.instruction, `${id} seed ${seed}`);
      assert.deepEqual(task.subtasks(scene), texts.subtasks, `${id} seed ${seed}`);
    }
  }
  world.reset();
  const s = getTask("video-unmask").createScene(world, mulberry32(101), "franka-droid") as VideoUnmaskScene;
  assert.equal(getTask("video-unmask").instruction(s),
    `watch the video carefully, then pick up the container hiding the ${s.c0} cube, `
    + `finally pick up the container hiding the ${s.c1} cube`);
  world.dispose();
});

test("the plan expert solves each video task after its demonstration", async () => {
  for (const [id, seeds] of Object.entries(SEEDS)) {
    for (const seed of seeds) {
      const run = await expertEpisode("franka-droid", id, seed);
      const n = run.result.demonstrationSteps;
      assert.ok(n > 50, `${id} seed ${seed}: demonstration of ${n} steps`);
      checkEpisode("franka-droid", id, run);
    }
  }
});

test("the reactive expert solves each video task from the demonstration's end", async () => {
  const world = await SimWorld.create({ profile });
  for (const [id, seeds] of Object.entries(SEEDS)) {
    for (const seed of seeds) {
      world.reset();
      const r = runExpertEpisode(world, getTask(id), seed, { profile, expert: "reactive" });
      assert.equal(r.success, true, `${id} seed ${seed}: checkpoints ${JSON.stringify(r.checkpoints)}`);
    }
  }
  world.dispose();
});

test("a TaskEpisode runs the demonstration first: the scene it leaves is the execution's start", async () => {
  const world = await SimWorld.create({ profile });
  const home = Float64Array.from(world.jointPositions());
  const substeps = Math.round(world.physicsHz / profile.control_hz);
  for (const id of Object.keys(SEEDS)) {
    world.reset();
    const e = new TaskEpisode(getTask(id), SEEDS[id]![0]!, world, profile, profile.control_hz, false);
    assert.equal(e.inDemonstration && e.expertDrives && e.expert === null, true, id);
    let ticks = 0;
    while (e.inDemonstration && ticks < 1000) {
      world.setJointTargets(e.expertTargets(world)!.targets);
      for (let k = 0; k < substeps; k++) world.step();
      const tick = e.tick(world, null);
      assert.equal(tick.demonstration && tick.checkpoints.length === 0 && !tick.success, true, `${id} tick ${ticks}`);
      ticks++;
    }
    assert.equal(e.inDemonstration, false, `${id}: the demonstration ended`);
    assert.equal(e.demonstrationSteps, ticks, id);
    assert.equal(e.stepCount, 0, `${id}: execution starts at step 0`);
    const worst = Math.max(...world.jointPositions().map((q, j) => (j === 7 ? 0 : Math.abs(q - home[j]!))));
    assert.ok(worst < 0.01, `${id}: the arm is home at the execution start (a joint off by ${worst.toFixed(4)} rad)`);
    const s = e.scene;
    if (id === "video-unmask") {
      const u = s as VideoUnmaskScene;
      for (const cube of u.cubes) {
        const p = world.objectPose(cube.id).position;
        const hidden = u.containers.some((c) => distXy(world.objectPose(c).position, p) < 0.02);
        assert.ok(hidden, `the ${cube.colour} cube is hidden`);
      }
    } else {
      const m = s as MoveCubeScene | VideoPlaceOrderScene;
      assert.ok(distXy(world.objectPose(m.cube).position, m.start) < 0.02, `${id}: the cube is back at its start`);
    }
  }
  world.dispose();
});

test("progress-based subtask ends (what a policy run reports) agree with the plan expert's annotations", async () => {
  const world = await SimWorld.create({ profile });
  const substeps = Math.round(world.physicsHz / profile.control_hz);
  for (const [id, seeds] of Object.entries(SEEDS)) {
    for (const seed of seeds) {
      world.reset();
      const ep = new TaskEpisode(getTask(id), seed, world, profile, profile.control_hz, true);
      while (!ep.done) {
        const out = ep.expertTargets(world)!;
        world.setJointTargets(out.targets);
        for (let k = 0; k < substeps; k++) world.step();
        ep.tick(world, out);
      }
      const where = `[${id} seed=${seed}]`, expert = ep.ends(), progress = ep.progressEnds();
      assert.equal(ep.success, true, `expert episode failed ${where}`);
      assert.deepEqual(progress.map((e) => e.text), expert.map((e) => e.text), `progress ends every subtask ${where}`);
      progress.forEach((p, i) => {
        const e = expert[i]!.step;
        assert.ok(Math.abs(p.step - e) <= 2, `"${p.text}": progress ${p.step}, expert ${e} ${where}`);
      });
    }
  }
  world.dispose();
});

test("a definition whose expert is its demonstration runs it once, as the episode, to the same end state", async () => {
  const world = await SimWorld.create({ profile });
  const substeps = Math.round(world.physicsHz / profile.control_hz);
  const endState = (task: TaskDefinition<TaskScene>, withExpert: boolean): number[] => {
    world.reset();
    const e = new TaskEpisode(task, 101, world, profile, profile.control_hz, withExpert);
    let guard = 0;
    while ((withExpert ? !e.done : e.inDemonstration) && guard++ < 2000) {
      const out = e.expertTargets(world)!;
      world.setJointTargets(out.targets);
      for (let k = 0; k < substeps; k++) world.step();
      e.tick(world, out);
    }
    return world.objectIds().flatMap((id) => world.objectPose(id).position);
  };
  const task = getTask("video-unmask");
  const scratch: TaskDefinition<TaskScene> = { ...task, expert: task.demonstration! };
  world.reset();
  assert.equal(new TaskEpisode(scratch, 101, world, profile, profile.control_hz, true).inDemonstration, false);
  const recorded = endState(scratch, true), phased = endState(task, false);
  assert.equal(recorded.length, phased.length);
  const worst = Math.max(...recorded.map((v, i) => Math.abs(v - phased[i]!)));
  assert.ok(worst < 1e-3, `objects end ${worst} m apart`);
});
