import assert from "node:assert/strict";
import { test } from "node:test";
import { createOutput, pointTime, publishAll, quaternionFromRpy, rpyFromQuaternion, trajectoryOutput, type Outgoing } from "../../src/control/output/index.js";
import { SafetyFilter } from "../../src/control/safetyFilter.js";
import type { JointPositions } from "../../src/control/types.js";
import { decode, encode } from "../../src/msgs/codec.js";
import { timeFromNs, type JointTrajectory } from "../../src/msgs/types.js";
import type { ActionChunk } from "../../src/policy/types.js";
import { DhChain } from "../../src/robot/kinematics/DhChain.js";
import { fromPose, identity, quatOf, rotX, rotZ, compose, translationOf } from "../../src/robot/kinematics/transform.js";
import { PANDA_READY, pandaArm } from "../../src/sim/robots/panda.js";
import { X_ONE_16D, X_ONE_DRIVER_ORDER, frankaProfile, xOneProfile } from "./profiles.js";

const H = 30, D = 16;
const STAMP = 1_700_000_000_123_456_789n;

/** Row k, joint j → 0.01·k + 0.001·j (distinct everywhere, inside every limit). */
function distinctChunk(): ActionChunk {
  const actions = new Float64Array(H * D);
  for (let k = 0; k < H; k++) for (let j = 0; j < D; j++) actions[k * D + j] = 0.01 * k + 0.001 * j;
  return { jointNames: X_ONE_16D, actions, horizon: H, dim: D };
}

test("a 30-step 16-D chunk becomes the JointTrajectory a joint_trajectory_controller expects", () => {
  const profile = xOneProfile();
  const out = createOutput(profile, profile.layouts["bimanual_16d"]!);
  assert.equal(out.kind, "trajectory");
  assert.deepEqual(out.advertisements, [{ topic: "/arm_controller/joint_trajectory", type: "trajectory_msgs/msg/JointTrajectory" }]);
  assert.deepEqual(out.buildStep({ jointNames: X_ONE_16D, positions: new Float64Array(D) }, STAMP), []);
  const msgs = out.buildChunk(distinctChunk(), STAMP);
  assert.equal(msgs.length, 1);
  const m = msgs[0]!;
  assert.ok(m.type === "trajectory_msgs/msg/JointTrajectory");
  assert.equal(m.topic, "/arm_controller/joint_trajectory");
  const traj = m.message;
  // Stamp zero: the controller starts the chunk on receipt, whatever the runtime's clock says.
  assert.deepEqual(traj.header, { stamp: { sec: 0, nanosec: 0 }, frame_id: "" });
  assert.deepEqual(traj.joint_names, X_ONE_DRIVER_ORDER);
  assert.equal(traj.points.length, H);
  for (let k = 0; k < H; k++) {
    const p = traj.points[k]!;
    X_ONE_DRIVER_ORDER.forEach((name, jd) => {
      const j = X_ONE_16D.indexOf(name);
      assert.equal(p.positions[jd], 0.01 * k + 0.001 * j, `point ${k} ${name}`);
    });
    const ns = BigInt(p.time_from_start.sec) * 1_000_000_000n + BigInt(p.time_from_start.nanosec);
    assert.equal(ns, BigInt(k + 1) * 100_000_000n, `time_from_start of point ${k} = (k+1)/10 s`);
    assert.equal(p.velocities.length, 0);
  }
  assert.deepEqual(traj.points[9]!.time_from_start, { sec: 1, nanosec: 0 });

  // The CDR codec encodes it and decodes the same trajectory.
  const cdr = encode("trajectory_msgs/msg/JointTrajectory", traj);
  const back = decode("trajectory_msgs/msg/JointTrajectory", cdr) as JointTrajectory;
  assert.deepEqual(back.joint_names, X_ONE_DRIVER_ORDER);
  assert.equal(back.points.length, H);
  assert.deepEqual([...back.points[29]!.positions], [...traj.points[29]!.positions]);
  assert.deepEqual(back.points[29]!.time_from_start, { sec: 3, nanosec: 0 });
  assert.deepEqual(back.header.stamp, traj.header.stamp);
});

test("pointTime handles rates that do not divide a second", () => {
  assert.deepEqual(pointTime(0, 15), { sec: 0, nanosec: 66_666_667 });
  assert.deepEqual(pointTime(14, 15), { sec: 1, nanosec: 0 });
  assert.deepEqual(pointTime(2, 7), { sec: 0, nanosec: 428_571_429 });
});

test("trajectory hold: one point at the measured position, or an empty trajectory (stop_publishing)", () => {
  const measured: JointPositions = Object.fromEntries(X_ONE_16D.map((n, i) => [n, i / 200]));
  const hold = createOutput(xOneProfile(), xOneProfile().layouts["bimanual_16d"]!).buildHold(measured, STAMP);
  assert.equal(hold.length, 1);
  const m = hold[0]!;
  assert.ok(m.type === "trajectory_msgs/msg/JointTrajectory");
  assert.equal(m.message.points.length, 1);
  assert.deepEqual([...m.message.points[0]!.positions], X_ONE_DRIVER_ORDER.map((n) => measured[n]));
  assert.deepEqual(m.message.points[0]!.time_from_start, { sec: 0, nanosec: 100_000_000 });
  const stop = createOutput(xOneProfile({ hold: "stop_publishing" }), xOneProfile().layouts["bimanual_16d"]!).buildHold(measured, STAMP);
  assert.ok(stop[0]!.type === "trajectory_msgs/msg/JointTrajectory" && stop[0]!.message.points.length === 0);
  assert.throws(() => createOutput(xOneProfile(), xOneProfile().layouts["bimanual_16d"]!).buildHold({ left_joint1: 0 }, STAMP), /no position for "right_joint1"/);
  // A joint measured past its limit is held at the limit.
  const past = createOutput(xOneProfile(), xOneProfile().layouts["bimanual_16d"]!).buildHold({ ...measured, left_joint1: 2.51, left_gripper: -0.001 }, STAMP)[0]!;
  assert.ok(past.type === "trajectory_msgs/msg/JointTrajectory");
  const p0 = past.message.points[0]!.positions;
  assert.deepEqual([p0[X_ONE_DRIVER_ORDER.indexOf("left_joint1")], p0[X_ONE_DRIVER_ORDER.indexOf("left_gripper")]], [2.5, 0]);
});

test("driver joints outside the layout hold their measured position; a lone gripper goes to gripper_topic", () => {
  const profile = xOneProfile({ interface: "stream" });
  const left = X_ONE_16D.slice(0, 8);
  const measured: JointPositions = Object.fromEntries(X_ONE_16D.map((n) => [n, n.startsWith("right") ? 0.5 : 0]));
  const out = createOutput(profile, { kind: "joint", names: left });
  const [m] = out.buildStep({ jointNames: left, positions: Float64Array.from(left, (_, i) => 0.01 * i) }, STAMP, measured);
  assert.ok(m && m.type === "sensor_msgs/msg/JointState");
  assert.deepEqual(m.message.name, X_ONE_DRIVER_ORDER);
  assert.deepEqual([...m.message.position], X_ONE_DRIVER_ORDER.map((n) => (n.startsWith("right") ? 0.5 : 0.01 * left.indexOf(n))));
  assert.throws(() => out.buildStep({ jointNames: left, positions: new Float64Array(8) }, STAMP), /driver joint "right_joint1" is not in the command/);

  const fp = frankaProfile();
  const joint8 = createOutput({ ...fp, command: { ...fp.command, interface: "stream" } }, fp.layouts["joint_8d"]!, { streamAs: "trajectory_point" });
  assert.deepEqual(joint8.advertisements.map((a) => a.type), ["trajectory_msgs/msg/JointTrajectory", "std_msgs/msg/Float32"]);
  const names = fp.joints.map((j) => j.name);
  const sent: Outgoing[] = [];
  publishAll(joint8.buildStep({ jointNames: names, positions: Float64Array.of(0, 0.1, 0, -1, 0, 1, 0.5, 0.035) }, STAMP), (o) => sent.push(o));
  assert.equal(sent.length, 2);
  assert.ok(sent[0]!.type === "trajectory_msgs/msg/JointTrajectory" && sent[0]!.message.points.length === 1);
  assert.deepEqual(sent[0]!.message.joint_names, names.slice(0, 7));
  assert.deepEqual(sent[1], { topic: "/gripper/target_width", type: "std_msgs/msg/Float32", message: { data: 0.035 } });
  // two layout joints the driver lacks cannot be routed
  assert.throws(() => trajectoryOutput(xOneProfile({ joint_order: X_ONE_DRIVER_ORDER.slice(0, 14) }), X_ONE_16D), /"left_gripper", "right_gripper" are not in command.joint_order/);
});

test("RPY ↔ quaternion: ROS convention (Rz·Ry·Rx), round trip, and agreement with the sim's matrix → quaternion", () => {
  const rotY = (a: number) => Float64Array.of(Math.cos(a), 0, Math.sin(a), 0, 0, 1, 0, 0, -Math.sin(a), 0, Math.cos(a), 0);
  const cases: Array<[number, number, number]> = [[0, 0, 0], [0.3, -0.2, 1.1], [Math.PI - 0.01, 0.5, -2.9], [-1.2, 1.4, 0.7], [0.1, -1.5, 3.0]];
  for (const [r, p, y] of cases) {
    const q = quaternionFromRpy(r, p, y);
    assert.ok(Math.abs(Math.hypot(q.x, q.y, q.z, q.w) - 1) < 1e-12);
    const back = rpyFromQuaternion(q);
    [r, p, y].forEach((v, i) => assert.ok(Math.abs(back[i]! - v) < 1e-9, `rpy ${[r, p, y]} → ${back}`));
    const sq = quatOf(compose(compose(rotZ(y), rotY(p)), rotX(r)));
    const sign = Math.sign(q.w) || 1;
    [q.x, q.y, q.z, q.w].forEach((v, i) => assert.ok(Math.abs(v * sign - sq[i]!) < 1e-9, `quat ${[r, p, y]}`));
  }
});

test("Franka pose output round-trips through the sim's IK", () => {
  const fp = frankaProfile();
  const layout = fp.layouts["ee_7d"]!;
  const out = createOutput(fp, layout);
  assert.equal(out.kind, "pose");
  const lower = fp.joints.slice(0, 7).map((j) => j.lower), upper = fp.joints.slice(0, 7).map((j) => j.upper);
  const chain = new DhChain(pandaArm("arm", lower, upper, identity()).kinematics, identity());
  // A reachable target: the tool pose of a configuration near the ready pose.
  const q0 = PANDA_READY.map((v, i) => v + [0.2, 0.15, -0.1, 0.2, 0.1, -0.15, 0.3][i]!);
  const tcp0 = chain.fk(q0).tcp;
  const [x, y, z] = translationOf(tcp0);
  const [qx, qy, qz, qw] = quatOf(tcp0);
  const [roll, pitch, yaw] = rpyFromQuaternion({ x: qx, y: qy, z: qz, w: qw });
  const dims = ["x", "y", "z", "roll", "pitch", "yaw", "gripper"];
  const filter = new SafetyFilter({ profile: fp, layout });
  const v = filter.checkStep({ jointNames: dims, positions: Float64Array.of(x, y, z, roll, pitch, yaw, 0.04) }, { panda_finger_joint1: 0.04 });
  assert.equal(v.kind, "pass", JSON.stringify(v));
  assert.ok(v.kind === "pass");
  const msgs = out.buildStep(v.command, STAMP);
  assert.equal(msgs.length, 2);
  const [pose, grip] = msgs;
  assert.ok(pose!.type === "geometry_msgs/msg/PoseStamped");
  assert.deepEqual(pose!.message.header, { stamp: timeFromNs(STAMP), frame_id: "panda_link0" });
  assert.deepEqual(grip, { topic: "/gripper/target_width", type: "std_msgs/msg/Float32", message: { data: 0.04 } });
  const cdr = encode("geometry_msgs/msg/PoseStamped", pose!.message);
  const decoded = decode("geometry_msgs/msg/PoseStamped", cdr);
  const { position: P, orientation: O } = decoded.pose;
  const target = fromPose({ position: [P.x, P.y, P.z], quaternion: [O.x, O.y, O.z, O.w] });
  const ik = chain.solveIk(target, PANDA_READY, { positionTolM: 1e-4, rotationTolRad: 1e-3, maxIterations: 500 });
  assert.ok(ik.ok, `IK did not converge: pos ${ik.positionErrorM} m rot ${ik.rotationErrorRad} rad`);
  const tcp = chain.fk(ik.positions).tcp;
  translationOf(tcp).forEach((v2, i) => assert.ok(Math.abs(v2 - [x, y, z][i]!) < 2e-4));
  const rq = quatOf(tcp);
  const dot = Math.abs(rq[0] * qx + rq[1] * qy + rq[2] * qz + rq[3] * qw);
  assert.ok(dot > 1 - 1e-5, `orientation differs: |q·q0| = ${dot}`);
});

test("pose hold: measured pose from FK when given, else only the gripper; stop_publishing sends nothing", () => {
  const fp = frankaProfile();
  const layout = fp.layouts["ee_7d"]!;
  const measured: JointPositions = { ...fp.home, panda_finger_joint1: 0.02 };
  const withFk = createOutput(fp, layout, { measuredPose: () => [0.5, 0, 0.4, Math.PI, 0, 0] }).buildHold(measured, STAMP);
  assert.equal(withFk.length, 2);
  assert.ok(withFk[0]!.type === "geometry_msgs/msg/PoseStamped");
  assert.ok(Math.abs(withFk[0]!.message.pose.orientation.x - 1) < 1e-12);
  assert.deepEqual(createOutput(fp, layout).buildHold(measured, STAMP), [{ topic: "/gripper/target_width", type: "std_msgs/msg/Float32", message: { data: 0.02 } }]);
  assert.deepEqual(createOutput({ ...fp, command: { ...fp.command, hold: "stop_publishing" } }, layout).buildHold(measured, STAMP), []);
  assert.throws(() => createOutput(fp, fp.layouts["joint_8d"]!), /"pose" needs an end_effector layout/);
  assert.throws(() => createOutput({ ...fp, command: { ...fp.command, interface: "trajectory" } }, layout), /"trajectory" needs a joint layout/);
});
