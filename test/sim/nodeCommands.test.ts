import { test } from "node:test";
import assert from "node:assert/strict";
import { SimClock } from "../../src/bus/clock.js";
import { LocalBus } from "../../src/bus/local.js";
import { RELIABLE_QOS } from "../../src/bus/types.js";
import { decode, encode } from "../../src/msgs/codec.js";
import type { JointTrajectory } from "../../src/msgs/types.js";
import { SIM_LOG } from "../../src/msgs/simTopics.js";
import { loadRobotProfile } from "../../src/robot/index.js";
import { TrajectoryFollower, validateJointTargets, validateTrajectory } from "../../src/sim/node/commands.js";
import { SimNode } from "../../src/sim/node/SimNode.js";

const xOne = loadRobotProfile("robots/x-one.yaml");
const JOINTS = xOne.profile.joints;
const S = 1_000_000_000n;

function traj(names: string[], points: { pos: number[]; tS: number }[], stampNs = 0n): JointTrajectory {
  return {
    header: { stamp: { sec: Number(stampNs / S), nanosec: Number(stampNs % S) }, frame_id: "" },
    joint_names: names,
    points: points.map((p) => ({
      positions: p.pos, velocities: [], accelerations: [], effort: [],
      time_from_start: { sec: Math.floor(p.tS), nanosec: Math.round((p.tS % 1) * 1e9) },
    })),
  };
}

test("validateTrajectory rejects unknown names, wrong lengths, NaN, out-of-limit values and non-increasing times, naming them", () => {
  const cases: [JointTrajectory, RegExp][] = [
    [traj(["left_joint1", "bogus"], [{ pos: [0, 0], tS: 0.1 }]), /unknown joint "bogus"/],
    [traj(["left_joint1", "left_joint2"], [{ pos: [0], tS: 0.1 }]), /point 0: 1 positions for 2 joint names/],
    [traj(["left_joint1"], [{ pos: [NaN], tS: 0.1 }]), /"left_joint1" position NaN is not finite/],
    [traj(["left_joint4"], [{ pos: [2.5], tS: 0.1 }]), /"left_joint4" position 2.5000 rad outside its limits \[-2.35, 2.35\]/],
    [traj(["left_gripper"], [{ pos: [0.2], tS: 0.1 }]), /"left_gripper" position 0.2000 m outside/],
    [traj(["left_joint1"], [{ pos: [0], tS: 0.2 }, { pos: [0.1], tS: 0.2 }]), /point 1 time_from_start 0.2 s does not increase/],
    [traj(["left_joint1", "left_joint1"], [{ pos: [0, 0], tS: 0.1 }]), /named twice/],
    [traj(["left_joint1"], []), /no points/],
    [traj(["left_joint1"], [{ pos: [0], tS: 0.1 }], 1n * S), /nonzero header.stamp 1000000000 ns .* ends in the past \(now 5000000000 ns\)/],
  ];
  for (const [msg, reason] of cases) {
    const v = validateTrajectory(msg, JOINTS, 5n * S, "/cmd");
    assert.equal(v.kind, "reject", `accepted ${JSON.stringify(msg.joint_names)} ${JSON.stringify(msg.points.map((p) => p.positions))}`);
    if (v.kind === "reject") assert.match(v.reason, reason);
  }
  const ok = validateTrajectory(traj(["left_joint2", "left_joint1"], [{ pos: [0.1, 0.2], tS: 0.5 }]), JOINTS, 5n * S);
  assert.equal(ok.kind, "accept");
  if (ok.kind === "accept") {
    assert.deepEqual(ok.value.indices, [1, 0]);
    assert.equal(ok.value.points[0]!.atNs, 5n * S + 500_000_000n);
  }
  assert.equal(validateJointTargets({ name: ["right_joint9"], position: [0] }, JOINTS).kind, "reject");
});

test("follower interpolates from the measured position by time_from_start; a new chunk replaces the remainder", () => {
  const f = new TrajectoryFollower([0, 0, 0]);
  const joints = [
    { name: "a", kind: "revolute" as const, lower: -3, upper: 3, velocity_limit: 1 },
    { name: "b", kind: "revolute" as const, lower: -3, upper: 3, velocity_limit: 1 },
    { name: "c", kind: "revolute" as const, lower: -3, upper: 3, velocity_limit: 1 },
  ];
  const v1 = validateTrajectory(traj(["a", "b"], [{ pos: [1, 2], tS: 1 }, { pos: [2, 2], tS: 2 }]), joints, 0n);
  assert.equal(v1.kind, "accept");
  if (v1.kind !== "accept") return;
  f.start(v1.value, 0n, [0.5, 0, 0]); // measured a = 0.5 at receipt
  assert.deepEqual(Array.from(f.targetsAt(500_000_000n)), [0.75, 1, 0]);
  assert.deepEqual(Array.from(f.targetsAt(1_500_000_000n)), [1.5, 2, 0]);
  // New chunk at t = 1.5 s naming only "a": starts from the measured 1.4, b keeps its old trajectory.
  const v2 = validateTrajectory(traj(["a"], [{ pos: [-1], tS: 1 }]), joints, 1_500_000_000n);
  if (v2.kind !== "accept") throw new Error("rejected");
  f.start(v2.value, 1_500_000_000n, [1.4, 1.9, 0]);
  const t = f.targetsAt(2_000_000_000n);
  assert.ok(Math.abs(t[0]! - 0.2) < 1e-12, `a = ${t[0]}`);
  assert.equal(t[1], 2);
  assert.deepEqual(Array.from(f.targetsAt(9n * S)), [-1, 2, 0], "holds the last point after the end");
  assert.equal(f.active(9n * S), false);
});

async function xOneNode() {
  const bus = new LocalBus({ clock: new SimClock(0n) });
  const logs: string[] = [];
  const node = await SimNode.create({ bus, robot: xOne, cameras: false, log: (l) => logs.push(l) });
  node.reset();
  const simLog: string[] = [];
  bus.subscribe(SIM_LOG.topic, SIM_LOG.type, SIM_LOG.qos, (cdr) => simLog.push(SIM_LOG.decode(cdr)));
  return { bus, node, logs, simLog, cmd: bus.advertise(xOne.profile.command.joint_topic, "trajectory_msgs/msg/JointTrajectory", RELIABLE_QOS) };
}

test("a JointTrajectory chunk on the controller topic moves the arm; a bad one is rejected with its reason and the arm holds", async () => {
  const { bus, node, logs, simLog, cmd } = await xOneNode();
  const names = ["left_joint1", "left_joint2"];
  cmd(encode("trajectory_msgs/msg/JointTrajectory", traj(names, [{ pos: [0.3, 0.7], tS: 0.5 }, { pos: [0.4, 0.8], tS: 1.0 }])));
  await new Promise((r) => setImmediate(r));
  await node.advanceBy(600_000_000n);
  const mid = node.world.jointPositions();
  assert.ok(mid[0]! > 0.3 && mid[0]! < 0.4, `left_joint1 at ${mid[0]} after 0.6 s`);
  // Bad chunk mid-motion: rejected, logged with the reason, the arm holds where it is.
  cmd(encode("trajectory_msgs/msg/JointTrajectory", traj(["left_joint1", "left_joint4"], [{ pos: [0.5, 9], tS: 0.5 }])));
  await new Promise((r) => setImmediate(r));
  const held = node.world.jointPositions();
  await node.advanceBy(500_000_000n);
  await new Promise((r) => setImmediate(r));
  const after = node.world.jointPositions();
  after.forEach((v, i) => assert.ok(Math.abs(v - held[i]!) < 1e-9, `joint ${i} moved from ${held[i]} to ${v} after a rejected command`));
  assert.equal(logs.length, 1);
  assert.match(logs[0]!, /rejected command on \/x_one_arm_controller\/joint_trajectory: .*"left_joint4" position 9\.0000 rad outside its limits \[-2\.35, 2\.35\]; holding/);
  assert.deepEqual(simLog, logs, "the reason also goes on /sim/log");
  node.close();
  await bus.close();
});

test("leader-arm JointState targets are followed; a wrong-length one is rejected", async () => {
  const { bus, node, logs } = await xOneNode();
  const leader = bus.advertise(xOne.profile.teleop.leader_topic, "sensor_msgs/msg/JointState", RELIABLE_QOS);
  const js = (name: string[], position: number[]) => encode("sensor_msgs/msg/JointState", { header: { stamp: { sec: 0, nanosec: 0 }, frame_id: "" }, name, position, velocity: [], effort: [] });
  leader(js(["right_joint1", "right_gripper"], [0.2, 0.03]));
  await new Promise((r) => setImmediate(r));
  await node.advanceBy(1_000_000_000n);
  const q = node.world.jointPositions();
  assert.ok(Math.abs(q[8]! - 0.2) < 1e-9 && Math.abs(q[15]! - 0.03) < 1e-9, `right arm at ${q[8]}, gripper ${q[15]}`);
  leader(js(["right_joint1", "right_joint2"], [0.2]));
  await new Promise((r) => setImmediate(r));
  assert.match(logs[0]!, /1 positions for 2 joint names/);
  node.close();
  await bus.close();
});

test("Franka PoseStamped of panda_hand (through IK) and the gripper width command move the hand; unreachable poses are rejected", async () => {
  const franka = loadRobotProfile("robots/franka-droid.yaml");
  const bus = new LocalBus({ clock: new SimClock(0n) });
  const logs: string[] = [];
  const node = await SimNode.create({ bus, robot: franka, cameras: false, log: (l) => logs.push(l) });
  node.reset();
  const cmd = franka.profile.command;
  const pose = bus.advertise(cmd.pose_topic!, "geometry_msgs/msg/PoseStamped", RELIABLE_QOS);
  const grip = bus.advertise(cmd.gripper_topic!, "std_msgs/msg/Float32", RELIABLE_QOS);
  const hand0 = node.world.framePose("panda_hand")!;
  const target = { x: 0.45, y: 0.1, z: 0.3 }; // in panda_link0
  const q = hand0.quaternion;
  pose(encode("geometry_msgs/msg/PoseStamped", { header: { stamp: { sec: 0, nanosec: 0 }, frame_id: "panda_link0" }, pose: { position: target, orientation: { x: q[0], y: q[1], z: q[2], w: q[3] } } }));
  grip(encode("std_msgs/msg/Float32", { data: 0.02 }));
  await new Promise((r) => setImmediate(r));
  await node.advanceBy(2_000_000_000n);
  const hand = node.world.framePose("panda_hand")!;
  const err = Math.hypot(hand.position[0] - target.x, hand.position[1] - target.y, hand.position[2] - 0.75 - target.z);
  assert.ok(err < 0.002, `panda_hand ${hand.position} vs target ${JSON.stringify(target)} (+0.75 table): ${err} m`);
  assert.ok(Math.abs(node.world.jointPositions()[7]! - 0.02) < 1e-6);
  pose(encode("geometry_msgs/msg/PoseStamped", { header: { stamp: { sec: 0, nanosec: 0 }, frame_id: "panda_link0" }, pose: { position: { x: 2, y: 0, z: 0.3 }, orientation: { x: q[0], y: q[1], z: q[2], w: q[3] } } }));
  pose(encode("geometry_msgs/msg/PoseStamped", { header: { stamp: { sec: 0, nanosec: 0 }, frame_id: "camera_nowhere" }, pose: { position: target, orientation: { x: 0, y: 0, z: 0, w: 1 } } }));
  grip(encode("std_msgs/msg/Float32", { data: 0.5 }));
  await new Promise((r) => setImmediate(r));
  assert.equal(logs.length, 3, logs.join("\n"));
  assert.match(logs[0]!, /out of reach/);
  assert.match(logs[1]!, /unknown frame_id "camera_nowhere"/);
  assert.match(logs[2]!, /width 0.5000 m outside "panda_gripper" limits/);
  node.close();
  await bus.close();
});
