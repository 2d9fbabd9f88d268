import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { fromPolicyVector, getLayout, layoutDim, loadRobotProfile, toPolicyVector } from "../../src/robot/index.js";

const REPO = join(import.meta.dirname, "..", "..");
const xOne = loadRobotProfile(join(REPO, "robots", "x-one.yaml")).profile;
const franka = loadRobotProfile(join(REPO, "robots", "franka-droid.yaml")).profile;

test("x-one bimanual_16d is [L j1..j7, R j1..j7, L grip, R grip], distinct from the robot order", () => {
  const layout = getLayout(xOne, "bimanual_16d");
  assert.equal(layoutDim(layout), 16);
  const robotOrder = xOne.joints.map((j) => j.name);
  assert.deepEqual(robotOrder, xOne.command.joint_order);
  // Robot order: L j1..7, L grip, R j1..7, R grip. Value = index so the mapping is visible.
  const positions = robotOrder.map((_, i) => i);
  const v = toPolicyVector(layout, robotOrder, positions);
  assert.deepEqual([...v], [0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14, 7, 15]);
  const back = fromPolicyVector(layout, v, robotOrder);
  assert.deepEqual(back.jointNames, robotOrder);
  assert.deepEqual([...back.positions], positions);
});

test("round trip robot -> policy -> robot from a shuffled JointState order", () => {
  const layout = getLayout(franka, "joint_8d");
  const names = [...franka.command.joint_order].reverse();
  const positions = names.map((n) => franka.home[n]!);
  const v = toPolicyVector(layout, names, positions);
  assert.deepEqual([...v], layout.kind === "joint" ? layout.names.map((n) => franka.home[n]) : []);
  const back = fromPolicyVector(layout, v, names);
  assert.deepEqual(back.jointNames, names);
  assert.deepEqual([...back.positions], positions);
  // Without robotOrder: layout order.
  const plain = fromPolicyVector(layout, v);
  assert.deepEqual(plain.jointNames, layout.kind === "joint" ? layout.names : []);
  // Extra joints in the input are ignored.
  const extra = toPolicyVector(layout, [...names, "head_pan"], [...positions, 9]);
  assert.deepEqual([...extra], [...v]);
});

test("layouts refuse mismatched names and lengths with precise errors", () => {
  const layout = getLayout(xOne, "bimanual_16d");
  const names = xOne.joints.map((j) => j.name);
  const pos = names.map(() => 0);
  assert.throws(() => toPolicyVector(layout, names, pos.slice(1)), /16 joint names but 15 positions/);
  assert.throws(() => toPolicyVector(layout, names.slice(1), pos.slice(1)), /missing from the input names/);
  assert.throws(() => toPolicyVector(layout, names.slice(1), pos.slice(1)), /"left_joint1"/);
  assert.throws(() => toPolicyVector(layout, [...names.slice(1), "left_gripper"], pos), /joint "left_gripper" appears twice/);
  assert.throws(() => fromPolicyVector(layout, new Float64Array(8)), /vector has 8 values, .* expects 16/);
  assert.throws(() => fromPolicyVector(layout, new Float64Array(16), [...names.slice(1), "head_pan"]), /not in layout: head_pan; missing from robotOrder: left_joint1/);
  assert.throws(() => getLayout(xOne, "joint_8d"), /robot "x-one" has no layout "joint_8d" \(known: bimanual_16d\)/);
  const ee = getLayout(franka, "ee_7d");
  assert.equal(layoutDim(ee), 7);
  assert.throws(() => toPolicyVector(ee, ["panda_joint1"], [0]), /end_effector .* needs kinematics/);
});
