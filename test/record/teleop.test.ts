/**
 * Teleop sources without a terminal or hardware: operator key parsing (table), the leader arm
 * forwarded through the SafetyFilter on a LocalBus (a synthetic leader and follower joint-state
 * publisher stand in for the arms), holds on a stale leader and on pause, and keyboard jog
 * moving the tool frame 1 cm per key by IK on the real kinematic model.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { SimClock } from "../../src/bus/clock.js";
import { LocalBus } from "../../src/bus/local.js";
import { RELIABLE_QOS } from "../../src/bus/types.js";
import { decode, encode } from "../../src/msgs/codec.js";
import { nsFromTime, timeFromNs, type JointTrajectory } from "../../src/msgs/types.js";
import { KeyboardJog } from "../../src/record/teleop/keyboardJog.js";
import { parseKeys } from "../../src/record/teleop/keys.js";
import { LeaderForwarder } from "../../src/record/teleop/leaderForwarder.js";
import { loadRobotProfile } from "../../src/robot/loadRobotProfile.js";
import { DhChain } from "../../src/robot/kinematics/DhChain.js";
import { armModelsFor } from "../../src/sim/robots/index.js";

const profile = loadRobotProfile("robots/x-one.yaml").profile;
const names = profile.joints.map((j) => j.name);
const home = Float64Array.from(names, (n) => profile.home[n]!);
const turn = () => new Promise<void>((r) => setImmediate(r));

test("parseKeys: episode keys, jog keys, arrows, Ctrl-C", () => {
  const table: Array<[string, unknown[]]> = [
    ["n", [{ kind: "episode", key: "save" }]],
    ["F", [{ kind: "episode", key: "fail" }]],
    ["r ", [{ kind: "episode", key: "discard" }, { kind: "episode", key: "pause" }]],
    ["\u0003", [{ kind: "episode", key: "quit" }]],
    ["q", [{ kind: "episode", key: "quit" }]],
    ["w\u001b[Dg", [{ kind: "jog", jog: { kind: "move", axis: 0, sign: 1 } }, { kind: "jog", jog: { kind: "move", axis: 1, sign: 1 } }, { kind: "jog", jog: { kind: "gripper" } }]],
    ["\t", [{ kind: "jog", jog: { kind: "arm" } }]],
    ["z", [{ kind: "other", text: "z" }]],
  ];
  for (const [input, expected] of table) assert.deepEqual(parseKeys(input), expected, JSON.stringify(input));
});

function rig() {
  const clock = new SimClock(1_000_000_000n);
  const bus = new LocalBus({ clock });
  const follower = bus.advertise(profile.joint_state.topic, "sensor_msgs/msg/JointState", RELIABLE_QOS);
  const leader = bus.advertise(profile.teleop.leader_topic, "sensor_msgs/msg/JointState", RELIABLE_QOS);
  const js = (q: ArrayLike<number>) => encode("sensor_msgs/msg/JointState", { header: { stamp: timeFromNs(clock.nowNs()), frame_id: "" }, name: names, position: Float64Array.from(q), velocity: [], effort: [] });
  const commands: JointTrajectory[] = [];
  bus.subscribe(profile.command.joint_topic, "trajectory_msgs/msg/JointTrajectory", RELIABLE_QOS, (cdr) => commands.push(decode("trajectory_msgs/msg/JointTrajectory", cdr)));
  return { clock, bus, commands, publishFollower: (q: ArrayLike<number>) => follower(js(q)), publishLeader: (q: ArrayLike<number>) => leader(js(q)) };
}

test("leader forwarded through the safety filter: rate-limited one-point trajectories in driver order", async () => {
  const r = rig();
  const events: unknown[] = [];
  const fwd = new LeaderForwarder({ bus: r.bus, profile, controlHz: 10, onEvent: (e) => events.push(e) });
  r.publishFollower(home);
  const target = Float64Array.from(home);
  target[names.indexOf("left_joint1")] = 1.0; // 1 rad away: must ramp at max_step_rad (0.15) per tick
  target[names.indexOf("right_joint2")] = 0.65; // within one step: passes as is
  r.publishLeader(target);
  await turn();
  const first = fwd.tick(r.clock.nowNs());
  assert.equal(first.kind, "forwarded");
  assert.ok(first.kind === "forwarded" && first.clamped);
  await turn();
  assert.equal(r.commands.length, 1);
  const cmd = r.commands[0]!;
  assert.deepEqual(cmd.joint_names, profile.command.joint_order);
  assert.equal(cmd.points.length, 1);
  assert.equal(nsFromTime(cmd.points[0]!.time_from_start), 100_000_000n);
  const pos = (msg: JointTrajectory, n: string) => msg.points[0]!.positions[msg.joint_names.indexOf(n)]!;
  assert.ok(Math.abs(pos(cmd, "left_joint1") - 0.15) < 1e-9, `left_joint1 ${pos(cmd, "left_joint1")}`);
  assert.ok(Math.abs(pos(cmd, "right_joint2") - 0.65) < 1e-9);
  assert.ok(events.some((e) => (e as { event: string; joint: string }).event === "safety_intervention" && (e as { joint: string }).joint === "left_joint1"));
  // Next tick continues the ramp from the last command.
  await r.clock.advanceTo(r.clock.nowNs() + 100_000_000n);
  r.publishLeader(target);
  await turn();
  fwd.tick(r.clock.nowNs());
  await turn();
  assert.ok(Math.abs(pos(r.commands[1]!, "left_joint1") - 0.30) < 1e-9);
  fwd.close();
  await r.bus.close();
});

test("leader forwarder holds on a stale leader, while paused, and rejects NaN", async () => {
  const r = rig();
  const events: Array<{ event: string; reason?: string }> = [];
  const fwd = new LeaderForwarder({ bus: r.bus, profile, controlHz: 10, leaderStaleAfterMs: 200, onEvent: (e) => events.push(e as { event: string }) });
  r.publishFollower(home);
  await turn();
  assert.equal(fwd.tick(r.clock.nowNs()).kind, "hold"); // no leader yet
  r.publishLeader(home);
  await turn();
  assert.equal(fwd.tick(r.clock.nowNs()).kind, "forwarded");
  await r.clock.advanceTo(r.clock.nowNs() + 300_000_000n);
  const stale = fwd.tick(r.clock.nowNs());
  assert.ok(stale.kind === "hold" && /ms old \(limit 200 ms\)/.test(stale.reason), JSON.stringify(stale));
  r.publishLeader(home);
  await turn();
  fwd.setPaused(true);
  assert.equal(fwd.tick(r.clock.nowNs()).kind, "paused");
  fwd.setPaused(false);
  const bad = Float64Array.from(home);
  bad[3] = Number.NaN;
  r.publishLeader(bad);
  await turn();
  const nan = fwd.tick(r.clock.nowNs());
  assert.equal(nan.kind, "hold");
  assert.ok(events.some((e) => e.event === "safety_hold" && e.reason === "non_finite"));
  await turn();
  // Every hold published the measured position as a one-point trajectory.
  const held = r.commands.filter((c) => c.points.length === 1 && c.points[0]!.positions.every((v, i) => Math.abs(v - profile.home[c.joint_names[i]!]!) < 1e-9));
  assert.ok(held.length >= 2, `${held.length} hold commands`);
  fwd.close();
  await r.bus.close();
});

test("leader forwarder: a follower joint state that fails the profile check holds at the last good one", async () => {
  const r = rig();
  const events: Array<{ event: string; reason?: string; details?: string }> = [];
  const fwd = new LeaderForwarder({ bus: r.bus, profile, controlHz: 10, onEvent: (e) => events.push(e as { event: string }) });
  const follower = r.bus.advertise(profile.joint_state.topic, "sensor_msgs/msg/JointState", RELIABLE_QOS);
  const lying = (name: string[], position: number[]) =>
    follower(encode("sensor_msgs/msg/JointState", { header: { stamp: timeFromNs(r.clock.nowNs()), frame_id: "" }, name, position, velocity: [], effort: [] }));
  lying(names.filter((n) => n !== "left_joint3"), Array.from(home).filter((_, i) => names[i] !== "left_joint3"));
  r.publishLeader(home);
  await turn();
  const never = fwd.tick(r.clock.nowNs());
  assert.ok(never.kind === "hold" && /passed the check \(newest: joint "left_joint3" missing/.test(never.reason), JSON.stringify(never));
  assert.equal(fwd.measuredPositions, null);

  r.publishFollower(home);
  await turn();
  assert.equal(fwd.tick(r.clock.nowNs()).kind, "forwarded");
  await turn();
  const before = r.commands.length;
  for (const [name, position] of [
    [names, Array.from(home, (v, i) => (names[i] === "left_joint1" ? 10 : v))],
    [[...names, "left_joint1"], [...home, 2.9]],
  ] as const) {
    lying([...name], [...position]);
    r.publishLeader(home);
    await turn();
    const held = fwd.tick(r.clock.nowNs());
    assert.equal(held.kind, "hold");
  }
  await turn();
  const holds = events.filter((e) => e.event === "safety_hold" && e.reason === "invalid_joint_state");
  assert.match(String(holds[0]?.details), /joint "left_joint1" measured 10 rad/);
  assert.match(String(holds[1]?.details), /joint "left_joint1" appears 2 times/);
  const sent = r.commands.slice(before);
  assert.equal(sent.length, 2);
  for (const c of sent) assert.deepEqual(Array.from(c.points[0]!.positions), c.joint_names.map((n) => profile.home[n]), "held at the last good position");
  fwd.close();
  await r.bus.close();
});

test("keyboard jog: 1 cm per key along base axes by IK, gripper toggle, published as the leader", async () => {
  const r = rig();
  const got: number[][] = [];
  r.bus.subscribe(profile.teleop.leader_topic, "sensor_msgs/msg/JointState", RELIABLE_QOS, (cdr) => got.push(Array.from(decode("sensor_msgs/msg/JointState", cdr).position)));
  const jog = new KeyboardJog(profile, r.bus, profile.home, 0.01);
  const chain = new DhChain(armModelsFor(profile)[0]!.kinematics, armModelsFor(profile)[0]!.baseInWorld);
  const leftIdx = profile.arms[0]!.joints.map((n) => names.indexOf(n));
  const tcp = (t: Record<string, number>) => { const f = chain.fk(leftIdx.map((i) => t[names[i]!]!)).tcp; return [f[3]!, f[7]!, f[11]!]; };
  const p0 = tcp(jog.target);
  const moved = jog.apply({ kind: "move", axis: 0, sign: 1 });
  assert.equal(moved.kind, "moved");
  const p1 = tcp(jog.target);
  assert.ok(Math.abs(p1[0]! - p0[0]! - 0.01) < 1e-3 && Math.abs(p1[1]! - p0[1]!) < 1e-3 && Math.abs(p1[2]! - p0[2]!) < 1e-3, `${p0} -> ${p1}`);
  const g = jog.apply({ kind: "gripper" });
  assert.deepEqual(g, { kind: "gripper", arm: "left", opening: 0 });
  assert.deepEqual(jog.apply({ kind: "arm" }), { kind: "arm", arm: "right" });
  // A jog far outside the reach is refused, targets unchanged.
  const before = jog.target;
  const far = new KeyboardJog(profile, r.bus, profile.home, 5);
  assert.equal(far.apply({ kind: "move", axis: 2, sign: 1 }).kind, "refused");
  assert.deepEqual(jog.target, before);
  jog.publishTargets();
  await turn();
  assert.equal(got.length, 1);
  assert.equal(got[0]![names.indexOf("left_gripper")], 0);
  await r.bus.close();
});
