/**
 * The robot layer's forward kinematics (src/robot/kinematics): the profile-declared model gives the
 * same end-effector frame as the sim twin's arms, end-effector state vectors and RPY, and the
 * profile's `kinematics` block is checked at its line.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { quaternionFromRpy } from "../../src/control/output/rotation.js";
import { ConfigError } from "../../src/config/index.js";
import { robotKinematics, rpyOf } from "../../src/robot/kinematics/robotKinematics.js";
import { armChains, baseFrames } from "../../src/robot/kinematics/armChains.js";
import { KINEMATIC_MODELS, type ArmKinematicModel } from "../../src/robot/kinematics/models.js";
import { quatOf, translation, translationOf } from "../../src/robot/kinematics/transform.js";
import { loadRobotProfile } from "../../src/robot/loadRobotProfile.js";
import { stateVector } from "../../src/robot/stateVector.js";
import type { RobotProfile } from "../../src/robot/types.js";
import { fixedFrames } from "../../src/sim/robots/index.js";
import { taskRobotOf } from "../../src/sim/tasks/index.js";
import { SimWorld } from "../../src/sim/world/SimWorld.js";
import { copyConfigs, edit } from "../config/helpers.js";

const ROBOTS = ["x-one", "franka-droid"].map((n) => loadRobotProfile(`robots/${n}.yaml`).profile);

/** Joint targets `k` steps of a fixed pseudo-random walk from home, inside the limits. */
function moved(profile: RobotProfile, k: number): Float64Array {
  let s = 17 + k;
  const rnd = () => ((s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  return Float64Array.from(profile.joints, (j) => {
    const v = profile.home[j.name]! + (rnd() - 0.5) * 0.8;
    return Math.min(j.upper, Math.max(j.lower, v));
  });
}

test("robot FK = the sim twin's ee_frame pose (in the workspace frame), both robots, at home and moved", async () => {
  for (const profile of ROBOTS) {
    const k = robotKinematics(profile)!;
    assert.equal(k.frame, profile.safety.workspace.frame);
    const world = await SimWorld.create({ profile });
    try {
      for (let trial = 0; trial < 4; trial++) {
        if (trial > 0) {
          world.setJointTargets(moved(profile, trial));
          for (let i = 0; i < 120; i++) world.step();
        }
        const q = world.jointPositions();
        const measured = Object.fromEntries(world.jointNames().map((n, i) => [n, q[i]!]));
        const root = world.framePose(k.frame)!.position;
        for (const arm of profile.arms) {
          const ee = k.endEffector(arm.name, measured);
          const sim = world.framePose(arm.ee_frame)!;
          const where = `${profile.name} ${arm.ee_frame} trial ${trial}`;
          ee.xyz.forEach((v, i) => {
            assert.ok(Math.abs(v - (sim.position[i]! - root[i]!)) < 1e-12, `${where}: ${ee.xyz} vs ${sim.position}`);
          });
          const [a, b] = [quatOf(ee.transform), sim.quaternion];
          const dot = Math.abs(a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]);
          assert.ok(Math.abs(dot - 1) < 1e-12, `${where}: orientation ${a} vs ${b}`);
        }
      }
    } finally {
      world.dispose();
    }
  }
});

test("the ee_7d state vector is the hand's FK pose (RPY in the ROS convention) and the gripper opening", () => {
  const franka = ROBOTS[1]!;
  const measured = { ...franka.home, panda_gripper: 0.031 };
  const s = stateVector(franka, franka.layouts["ee_7d"]!, measured);
  const ee = robotKinematics(franka)!.endEffector("arm", measured);
  assert.deepEqual([...s.slice(0, 3)], ee.xyz);
  assert.equal(s[6], 0.031);
  // RPY → quaternion gives back the FK rotation (the pose output and the sim read it so).
  const q = quaternionFromRpy(s[3]!, s[4]!, s[5]!), want = quatOf(ee.transform);
  assert.ok(Math.abs(Math.abs(q.x * want[0] + q.y * want[1] + q.z * want[2] + q.w * want[3]) - 1) < 1e-12);
  // A joint layout is a plain selection, as before.
  const joints = stateVector(franka, franka.layouts["joint_8d"]!, measured);
  assert.deepEqual([...joints], [0, -0.785, 0, -2.356, 0, 1.571, 0.785, 0.031]);
  const bare = { ...franka, kinematics: undefined };
  const ee7 = franka.layouts["ee_7d"]!;
  assert.throws(() => stateVector(bare, ee7, measured), /needs the profile's kinematics; none declared/);
});

test("rpyOf inverts the ROS RPY convention away from pitch ±π/2", () => {
  for (const [r, p, y] of [[0.3, -0.4, 2.9], [Math.PI - 0.01, 0.2, -3.0], [-1.2, 1.4, 0.1]]) {
    const qq = quaternionFromRpy(r!, p!, y!);
    const [x, yy, z, w] = [qq.x, qq.y, qq.z, qq.w];
    const t = [
      1 - 2 * (yy * yy + z * z), 2 * (x * yy - z * w), 2 * (x * z + yy * w), 0,
      2 * (x * yy + z * w), 1 - 2 * (x * x + z * z), 2 * (yy * z - x * w), 0,
      2 * (x * z - yy * w), 2 * (yy * z + x * w), 1 - 2 * (x * x + yy * yy), 0,
    ];
    rpyOf(t).forEach((v, i) => assert.ok(Math.abs(v - [r, p, y][i]!) < 1e-9, `${[r, p, y]} → ${rpyOf(t)}`));
  }
});

test("no kinematics → no FK; an unknown model names the known ones", () => {
  const x = ROBOTS[0]!;
  assert.equal(robotKinematics({ ...x, kinematics: undefined }), null);
  assert.throws(() => robotKinematics({ ...x, kinematics: { ...x.kinematics!, model: "ur5" } }),
    /kinematics.model "ur5" is not a known kinematic model \(known: franka-panda, x-one-arm\) \[robot=x-one\]/);
});

test("profile kinematics errors come at their line: none, unknown model, a missing base, a frame not the box's", () => {
  const bases = "  bases: { left_base: [0.0, 0.3, 0.0], right_base: [0.0, -0.3, 0.0] }\n";
  const block = `kinematics:\n  model: x-one-arm\n  frame: base_link\n${bases}  world: [0.0, 0.0, 0.75]\n`;
  // [text to replace, replacement, expected message, the text on the line the error must name]
  const cases: Array<[string, string, RegExp, string]> = [
    ["model: x-one-arm", "model: x-two",
      /^kinematics\.model: expected a known kinematic model \(franka-panda, x-one-arm\), found "x-two"/,
      "model: x-two"],
    ["bases: { left_base: [0.0, 0.3, 0.0], right_base: [0.0, -0.3, 0.0] }", "bases: { left_base: [0.0, 0.3, 0.0] }",
      /^kinematics\.bases: expected an entry for arm "right" base_frame "right_base" \(has: left_base\)/, "bases:"],
    [block, "", /^safety\.workspace: expected a kinematics: block \(model, frame, bases\)/, "  workspace:"],
    ["  frame: base_link\n  bases", "  frame: world\n  bases",
      /^kinematics\.frame: expected the workspace frame "base_link"/, "  frame: world"],
  ];
  for (const [from, to, want, lineText] of cases) {
    const dir = copyConfigs();
    const file = join(dir, "robots", "x-one.yaml");
    edit(file, from, to);
    const lines = readFileSync(file, "utf8").split("\n");
    const line = lines.findIndex((l) => l.trimStart().startsWith(lineText.trimStart())) + 1;
    let err: unknown;
    try { loadRobotProfile(file); } catch (e) { err = e; }
    assert.ok(err instanceof ConfigError, `${to}: expected a ConfigError, got ${String(err)}`);
    const issue = err.issues.find((i) => want.test(`${i.path ?? ""}: ${i.message}`));
    assert.ok(issue, `${to}: ${String(err)}`);
    assert.equal(issue.line, line, `${to}: ${String(err)}`);
  }
});

test("armChains: the declared model per arm, based in the workspace frame or at kinematics.world; no fixed joint count", () => {
  const x = ROBOTS[0]!;
  const workspace = armChains(x, "workspace"), world = armChains(x, "world");
  assert.deepEqual(workspace.map((c) => c.arm), ["left", "right"]);
  assert.deepEqual(translationOf(workspace[1]!.chain.base), [0, -0.3, 0]);
  assert.deepEqual(translationOf(world[1]!.chain.base), [0, -0.3, 0.75]);
  assert.deepEqual(baseFrames(x, "world"), {
    base_link: translation(0, 0, 0.75), left_base: translation(0, 0.3, 0.75), right_base: translation(0, -0.3, 0.75),
  });
  const home = x.arms[0]!.joints.map((n) => x.home[n]!);
  const dz = translationOf(world[0]!.chain.fk(home).tcp)[2] - translationOf(workspace[0]!.chain.fk(home).tcp)[2];
  assert.ok(Math.abs(dz - 0.75) < 1e-12, `world - workspace tcp z = ${dz}`);
  // A model with six joints takes arms of six joints: the count comes from the model, not a constant.
  const six = { ...KINEMATIC_MODELS["x-one-arm"]!, joints: KINEMATIC_MODELS["x-one-arm"]!.joints.slice(0, 6) };
  const restore = { ...KINEMATIC_MODELS };
  (KINEMATIC_MODELS as Record<string, ArmKinematicModel>)["six-dof"] = six;
  try {
    const arms = x.arms.map((a) => ({ ...a, joints: a.joints.slice(0, 6) }));
    assert.equal(armChains({ ...x, arms, kinematics: { ...x.kinematics!, model: "six-dof" } }, "world")[0]!.chain.dof, 6);
    assert.throws(() => armChains({ ...x, kinematics: { ...x.kinematics!, model: "six-dof" } }, "world"),
      /arm "left" has 7 joints; kinematics.model "six-dof" has 6 \[robot=x-one\]/);
  } finally {
    delete (KINEMATIC_MODELS as Record<string, ArmKinematicModel>)["six-dof"];
    assert.deepEqual(Object.keys(KINEMATIC_MODELS), Object.keys(restore));
  }
  assert.throws(() => armChains({ ...x, kinematics: undefined }, "world"), /robot "x-one" declares no kinematics/);
});

test("the sim's fixed frames: world, the table-top base_link and the profile's placed frames", () => {
  const [x, franka] = ROBOTS as [RobotProfile, RobotProfile];
  assert.deepEqual(Object.keys(fixedFrames(x)).sort(), ["base_link", "left_base", "right_base", "world"]);
  assert.deepEqual(translationOf(fixedFrames(franka)["panda_link0"]!), [0, 0, 0.75]);
  assert.throws(() => fixedFrames({ ...x, kinematics: { ...x.kinematics!, world: undefined } }),
    /sim: robot "x-one" declares no kinematics.world/);
});

test("task robots: the profile declares its kind (task_robot); none declared names the known kinds", () => {
  assert.deepEqual(ROBOTS.map((p) => taskRobotOf(p)), ["x-one", "franka-droid"]);
  assert.throws(() => taskRobotOf({ ...ROBOTS[0]!, task_robot: undefined }),
    /robot profile "x-one" is not a task robot: it declares no task_robot \(kinds the tasks know: .*x-one.*franka-droid/);
  assert.equal(taskRobotOf({ ...ROBOTS[1]!, name: "franka-fr3" }), "franka-droid", "by the declared key, not the name");
});
