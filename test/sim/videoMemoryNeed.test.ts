/**
 * Only the video tells: for each RoboMME video task, two scenes that differ only in what the
 * demonstration shows (Video Place Order: the visit order; Video Unmask: which colour stands where;
 * Move Cube: the manner) reach the execution's start with the same front and wrist images (at most
 * 20 of 640x480 pixels differ) and the same joints, yet the expert's next targets part by > 0.05 rad.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadRobotProfile } from "../../src/robot/loadRobotProfile.js";
import { SimWorld } from "../../src/sim/world/SimWorld.js";
import { getTask, mulberry32, type TaskScene } from "../../src/sim/tasks/index.js";
import { cameraFromCalibration } from "../../src/sim/render/camera.js";
import { renderCamera } from "../../src/sim/render/rasterize.js";
import { COLORS } from "../../src/sim/tasks/props.js";
import type { MoveCubeScene } from "../../src/sim/tasks/move-cube.js";
import type { VideoPlaceOrderScene } from "../../src/sim/tasks/video-place-order.js";
import type { VideoUnmaskScene } from "../../src/sim/tasks/video-unmask.js";
import { differingPixels, maxAbsDiff } from "./memoryMoments.js";

const robot = loadRobotProfile("robots/franka-droid.yaml");
const profile = robot.profile;
const world = await SimWorld.create({ profile });
const substeps = Math.round(world.physicsHz / profile.control_hz);

interface ExecStart { images: Uint8Array[]; joints: Float64Array; next: Float64Array[] }

/** Builds `taskId`'s scene for `seed`, applies `vary`, runs the demonstration, then 80 expert ticks. */
function execStart(taskId: string, seed: number, vary: (s: TaskScene, w: SimWorld) => void): ExecStart {
  world.reset();
  const task = getTask(taskId);
  const scene = task.createScene(world, mulberry32(seed), "franka-droid");
  vary(scene, world);
  const drive = (next: (step: number) => Float64Array, ticks: number, until?: () => boolean): Float64Array[] => {
    const out: Float64Array[] = [];
    for (let k = 0; k < ticks && !(until?.() ?? false); k++) {
      const t = next(k);
      world.setJointTargets(t);
      for (let i = 0; i < substeps; i++) world.step();
      out.push(t);
    }
    return out;
  };
  const demo = task.demonstration!(world, scene, profile);
  let done = false;
  drive((k) => { const o = demo.next(world, k); done = o.done; return o.targets; }, 2000, () => done);
  const cams = [robot.calibrations.exterior_left!, robot.calibrations.wrist!];
  const images = cams.map((cal) => {
    const camera = cameraFromCalibration(cal, world.framePose(cal.extrinsics.parent_frame)!);
    return renderCamera(world.meshes(), camera).rgb.slice();
  });
  const joints = world.jointPositions();
  const expert = task.expert(world, scene, profile);
  return { images, joints, next: drive((k) => expert.next(world, k).targets, 80) };
}

function checkPair(what: string, a: ExecStart, b: ExecStart): void {
  a.images.forEach((img, i) => {
    const px = differingPixels(img, b.images[i]!) * 640 * 480;
    assert.ok(px <= 20, `${what}: camera ${i} differs in ${px.toFixed(0)} pixels at the execution start`);
  });
  assert.ok(maxAbsDiff(a.joints, b.joints) < 0.005, `${what}: joints at the execution start`);
  const parted = Math.max(...a.next.map((t, k) => maxAbsDiff(t, b.next[k]!)));
  assert.ok(parted > 0.05, `${what}: the expert's next targets part by only ${parted.toFixed(3)} rad`);
}

test("video-place-order: another visit order, the same execution start, another target", () => {
  const visits = (v: number[]) => (s: TaskScene) => {
    const p = s as VideoPlaceOrderScene;
    p.visits = v;
    p.ordinal = 0;
  };
  const id = "video-place-order";
  checkPair(id, execStart(id, 100, visits([0, 1, 2])), execStart(id, 100, visits([3, 1, 2])));
});

test("video-unmask: two colours swapped, the same execution start, another container", () => {
  const swap = (s: TaskScene, w: SimWorld) => {
    const u = s as VideoUnmaskScene;
    const [a, b] = [u.cubes[0]!, u.cubes[1]!];
    [a.colour, b.colour] = [b.colour, a.colour];
    w.setObjectColor(a.id, COLORS[a.colour]);
    w.setObjectColor(b.id, COLORS[b.colour]);
  };
  const named = (s: TaskScene) => { const u = s as VideoUnmaskScene; u.c0 = u.cubes[0]!.colour; u.c1 = null; };
  const id = "video-unmask";
  checkPair(id, execStart(id, 100, named), execStart(id, 100, (s, w) => { named(s); swap(s, w); }));
});

test("move-cube: pushed or carried in the video, the same execution start, another approach", () => {
  const manner = (m: MoveCubeScene["manner"]) => (s: TaskScene) => { (s as MoveCubeScene).manner = m; };
  const id = "move-cube";
  checkPair(id, execStart(id, 100, manner("push")), execStart(id, 100, manner("pick-and-place")));
});
