import { test } from "node:test";
import assert from "node:assert/strict";
import { loadRobotProfile } from "../../src/robot/index.js";
import { SimWorld } from "../../src/sim/world/SimWorld.js";
import type { ArmBodies } from "../../src/sim/world/armBodies.js";
import type { ObjectSpec, Vec3 } from "../../src/sim/world/types.js";

const { profile } = loadRobotProfile("robots/x-one.yaml");
const DOWN: [number, number, number, number] = [1, 0, 0, 0];

function block(position: Vec3, name = "block"): ObjectSpec {
  return { name, shape: { kind: "box", halfExtents: [0.02, 0.02, 0.02] }, color: [200, 30, 30], pose: { position, quaternion: [0, 0, 0, 1] }, body: "dynamic", massKg: 0.1 };
}

/** Sets the arm's joint targets to reach `p` top-down with gripper `widthM`, then steps `steps` times. */
function moveTo(w: SimWorld, arm: string, p: Vec3, widthM: number, steps: number): void {
  const r = w.solveIk(arm, { position: p, quaternion: DOWN });
  assert.ok(r.ok, `IK to ${p} failed: ${r.positionErrorM} m, ${r.rotationErrorRad} rad`);
  const t = w.jointTargets();
  const idx = w.armJointIndices(arm);
  idx.joints.forEach((j, k) => { t[j] = r.positions[k]!; });
  t[idx.gripper] = widthM;
  w.setJointTargets(t);
  for (let i = 0; i < steps; i++) w.step();
}

test("home pose: both hands above the table pointing down; joint names in profile order", async () => {
  const w = await SimWorld.create({ profile });
  assert.deepEqual(w.jointNames(), profile.joints.map((j) => j.name));
  for (const arm of ["left", "right"]) {
    const g = w.graspPose(arm);
    assert.ok(g.position[2] > 0.8, `${arm} grasp point z ${g.position[2]}`);
    assert.ok(Math.abs(Math.abs(g.quaternion[0]) - 1) < 1e-6, `${arm} grasp frame not pointing down: ${g.quaternion}`);
  }
  assert.ok(w.framePose("left_link7") && w.framePose("right_hand") && w.framePose("base_link"));
  assert.equal(w.framePose("no_such_frame"), null);
  w.dispose();
});

test("grasp holds a block lifted 10 cm and carried 14 cm, released when the gripper opens", async () => {
  const w = await SimWorld.create({ profile });
  const id = w.addObject(block([0.45, 0.3, 0.77]));
  moveTo(w, "left", [0.45, 0.3, 0.90], 0.08, 240);
  moveTo(w, "left", [0.45, 0.3, 0.772], 0.08, 120);
  assert.equal(w.heldObject("left"), null, "held before closing");
  moveTo(w, "left", [0.45, 0.3, 0.772], 0.0, 120);
  assert.equal(w.heldObject("left"), id, "not held after closing on it");
  const width = w.jointPositions()[w.armJointIndices("left").gripper]!;
  assert.ok(Math.abs(width - 0.04) < 0.004, `gripper stopped at ${width} m, block is 0.04 m wide`);
  moveTo(w, "left", [0.45, 0.3, 0.872], 0.0, 120);
  assert.ok(Math.abs(w.objectPose(id).position[2] - 0.87) < 0.01, `block z ${w.objectPose(id).position[2]} after a 10 cm lift`);
  moveTo(w, "left", [0.55, 0.2, 0.872], 0.0, 240);
  const carried = w.objectPose(id).position;
  assert.ok(Math.hypot(carried[0] - 0.55, carried[1] - 0.2) < 0.01, `block at ${carried} after carrying to (0.55, 0.2)`);
  moveTo(w, "left", [0.55, 0.2, 0.872], 0.08, 60);
  assert.equal(w.heldObject("left"), null, "still held after opening");
  for (let i = 0; i < 240; i++) w.step();
  const dropped = w.objectPose(id).position;
  assert.ok(Math.abs(dropped[2] - 0.77) < 0.005, `released block at z ${dropped[2]}, expected back on the table (0.77)`);
  w.dispose();
});

test("a gripper closed by a ramped target (as a trajectory follower commands it) grasps and lifts the block", async () => {
  // The twin's JointTrajectory follower moves the gripper target a little each step, so the measured
  // width keeps up with it: the grasp must not depend on the target being ahead of the measured width.
  const w = await SimWorld.create({ profile });
  const id = w.addObject(block([0.45, 0.3, 0.77]));
  moveTo(w, "left", [0.45, 0.3, 0.90], 0.08, 240);
  moveTo(w, "left", [0.45, 0.3, 0.772], 0.08, 120);
  const g = w.armJointIndices("left").gripper;
  for (let i = 0; i < 200; i++) {
    const t = w.jointTargets();
    t[g] = Math.max(0, w.jointPositions()[g]! - 0.0004);
    w.setJointTargets(t);
    w.step();
  }
  assert.equal(w.heldObject("left"), id, "not held after a ramped close on it");
  const width = w.jointPositions()[g]!;
  assert.ok(Math.abs(width - 0.04) < 0.004, `gripper stopped at ${width} m, block is 0.04 m wide`);
  moveTo(w, "left", [0.45, 0.3, 0.872], 0.0, 120);
  assert.ok(Math.abs(w.objectPose(id).position[2] - 0.87) < 0.01, `block z ${w.objectPose(id).position[2]} after a 10 cm lift`);
  w.dispose();
});

test("closing on nothing grasps nothing; a block touched by one finger only is not grasped", async () => {
  const w = await SimWorld.create({ profile });
  const id = w.addObject(block([0.45, 0.3 + 0.05, 0.77]));
  moveTo(w, "left", [0.45, 0.3, 0.772], 0.08, 360);
  moveTo(w, "left", [0.45, 0.3, 0.772], 0.0, 120);
  assert.equal(w.heldObject("left"), null);
  assert.equal(w.jointPositions()[w.armJointIndices("left").gripper], 0, "gripper closes fully on nothing");
  assert.ok(w.objectPose(id).position[2] < 0.78);
  w.dispose();
});

test("joint controller respects velocity limits", async () => {
  const w = await SimWorld.create({ profile });
  const before = w.jointPositions();
  const t = w.jointTargets();
  t[0] = 2.0; t[7] = 0.0;
  w.setJointTargets(t);
  w.step();
  const after = w.jointPositions();
  assert.ok(Math.abs(after[0]! - before[0]! - 3.14 / 240) < 1e-9, `joint1 moved ${after[0]! - before[0]!}`);
  assert.ok(Math.abs(before[7]! - after[7]! - 0.2 / 240) < 1e-9, `gripper moved ${after[7]! - before[7]!}`);
  assert.throws(() => w.setJointTargets(new Float64Array(3)), /got 3 values, expected 16/);
  w.dispose();
});

test("visual objects have no collider; fixed ones do not move", async () => {
  const w = await SimWorld.create({ profile });
  const v = w.addObject({ ...block([0.5, 0, 1.0], "ghost"), body: "visual" });
  const f = w.addObject({ ...block([0.6, 0, 0.77], "wall"), body: "fixed" });
  const d = w.addObject(block([0.6, 0, 0.85], "on-wall"));
  for (let i = 0; i < 240; i++) w.step();
  assert.deepEqual(w.objectPose(v).position, [0.5, 0, 1.0]);
  w.objectPose(f).position.forEach((v, i) => assert.ok(Math.abs(v - [0.6, 0, 0.77][i]!) < 1e-6, `fixed block moved: ${w.objectPose(f).position}`));
  assert.ok(Math.abs(w.objectPose(d).position[2] - 0.81) < 0.003, `block resting on the fixed block at z ${w.objectPose(d).position[2]}`);
  assert.equal(w.meshes().length, 1 + 2 * 8 + 3, "table + 2 arms x (5 link cylinders + palm + 2 fingers) + 3 objects");
  w.dispose();
});

test("determinism: the same commands twice give identical joint trajectories and object poses", async () => {
  async function run(): Promise<number[]> {
    const w = await SimWorld.create({ profile });
    w.addObject(block([0.45, 0.3, 0.77]));
    w.addObject(block([0.47, 0.31, 0.85], "falling"));
    const trace: number[] = [];
    const record = () => { trace.push(...w.jointPositions()); for (const id of w.objectIds()) { const p = w.objectPose(id); trace.push(...p.position, ...p.quaternion); } };
    moveTo(w, "left", [0.45, 0.3, 0.9], 0.08, 100); record();
    moveTo(w, "left", [0.45, 0.3, 0.772], 0.0, 200); record();
    moveTo(w, "left", [0.5, 0.1, 0.9], 0.0, 100); record();
    w.dispose();
    return trace;
  }
  const a = await run(), b = await run();
  assert.equal(a.length, b.length);
  a.forEach((v, i) => assert.ok(Object.is(v, b[i]), `value ${i}: ${v} vs ${b[i]}`));
});

test("compound objects: parts collide, share the body's pose, and render with their own colour", async () => {
  const w = await SimWorld.create({ profile });
  // An L lying on the table, turned 90 degrees: the part sits 6 cm along the body's x, i.e. world +y.
  const id = w.addObject({
    name: "ell", body: "dynamic", color: [200, 30, 30], massKg: 0.1,
    shape: { kind: "box", halfExtents: [0.02, 0.02, 0.02] },
    pose: { position: [0.5, 0, 0.78], quaternion: [0, 0, Math.SQRT1_2, Math.SQRT1_2] },
    parts: [{ shape: { kind: "box", halfExtents: [0.02, 0.02, 0.02] }, offset: [0.06, 0, 0], color: [30, 30, 200] }],
  });
  for (let i = 0; i < 240; i++) w.step();
  const p = w.objectPose(id).position;
  assert.ok(Math.abs(p[2] - 0.77) < 0.003 && Math.abs(p[0] - 0.5) < 0.005, `rests on the table with both pieces: ${p}`);
  const meshes = w.meshes().filter((m) => m.color[2] === 200 && m.color[0] === 30);
  assert.equal(meshes.length, 1, "the part has its own mesh");
  const pos = meshes[0]!.positions;
  let cx = 0, cy = 0;
  for (let i = 0; i < pos.length; i += 3) { cx += pos[i]!; cy += pos[i + 1]!; }
  const n = pos.length / 3;
  assert.ok(Math.abs(cx / n - p[0]) < 0.005 && Math.abs(cy / n - (p[1] + 0.06)) < 0.005, `part mesh centred 6 cm along world y: ${cx / n}, ${cy / n}`);
  w.dispose();
});

test("an arm left where it was posed is not re-posed, and the world steps exactly as if it were", async () => {
  // Two worlds: one re-posing both arms every step (as before the idle-arm skip), one skipping the
  // idle right arm. The left arm grasps, carries and releases a block; another block lies under the right hand.
  const worlds = [await SimWorld.create({ profile }), await SimWorld.create({ profile })];
  const [skipping, reposing] = worlds as [SimWorld, SimWorld];
  const armsOf = (w: SimWorld) => (w as unknown as { arms: ArmBodies[] }).arms;
  const step = reposing.step.bind(reposing);
  reposing.step = () => { for (const a of armsOf(reposing)) a.posedAt.fill(NaN); step(); };
  const under = skipping.graspPose("right").position;
  const ids = worlds.map((w) => [w.addObject(block([0.45, 0.3, 0.77])), w.addObject(block([under[0], under[1], 0.77], "other"))]);
  // Held still with the block gripped, then lifted: the arm's joints stay equal for many steps.
  const phases: [Vec3, number, number][] = [[[0.45, 0.3, 0.90], 0.08, 240], [[0.45, 0.3, 0.772], 0.08, 120], [[0.45, 0.3, 0.772], 0, 240],
    [[0.45, 0.3, 0.872], 0, 240], [[0.55, 0.2, 0.872], 0, 240], [[0.55, 0.2, 0.872], 0.08, 120]];
  let idleFk: unknown = null; // as posed on the first step
  for (const [p, width, steps] of phases) {
    for (const w of worlds) moveTo(w, "left", p, width, steps);
    idleFk ??= armsOf(skipping)[1]!.fk;
    assert.deepEqual(skipping.jointPositions(), reposing.jointPositions());
    ids[0]!.forEach((id, k) => assert.deepEqual(skipping.objectPose(id), reposing.objectPose(ids[1]![k]!)));
  }
  assert.equal(skipping.heldObject("left"), null);
  assert.equal(armsOf(skipping)[1]!.fk, idleFk, "the idle right arm was posed again");
  for (const w of worlds) w.dispose();
});
