/** The control stage against the committed robot profiles (robots/*.yaml), loaded by the real loader. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { SafetyFilter } from "../../src/control/safetyFilter.js";
import { StopLatch } from "../../src/control/stopLatch.js";
import { Watchdog, watchedTopics } from "../../src/control/watchdog.js";
import { createOutput } from "../../src/control/output/index.js";
import { getLayout, loadRobotProfile } from "../../src/robot/index.js";
import type { RobotProfile } from "../../src/robot/types.js";

const xOne = loadRobotProfile("robots/x-one.yaml").profile;
const franka = loadRobotProfile("robots/franka-droid.yaml").profile;

test("every layout of every profile builds a safety filter, and its interface's adapter where they fit", () => {
  for (const profile of [xOne, franka]) {
    for (const [name, layout] of Object.entries(profile.layouts)) {
      const f = new SafetyFilter({ profile, layout });
      assert.equal(f.limits.length, layout.kind === "joint" ? layout.names.length : 7, `${profile.name}/${name}`);
      const iface = layout.kind === "joint" ? profile.command.interface : "pose";
      const p: RobotProfile = { ...profile, command: { ...profile.command, interface: iface } };
      assert.ok(createOutput(p, layout).advertisements.length >= 1, `${profile.name}/${name}`);
    }
    new Watchdog(watchedTopics(profile));
    assert.equal(new StopLatch({ safety: profile.safety }).check(0n).kind, "ok");
  }
});

test("x-one: a 30-step 16-D policy chunk becomes a JointTrajectory in the controller's joint order", () => {
  const layout = getLayout(xOne, "bimanual_16d");
  assert.ok(layout.kind === "joint");
  const H = 30, D = 16;
  const actions = new Float64Array(H * D);
  // Small moves from home so nothing is clamped: value = home ± 0.0001·(k+1)·(j+1) (grippers close a little).
  for (let k = 0; k < H; k++) for (let j = 0; j < D; j++) actions[k * D + j] = xOne.home[layout.names[j]!]! + 0.0001 * (k + 1) * (j + 1) * (layout.names[j]!.endsWith("gripper") ? -1 : 1);
  const filter = new SafetyFilter({ profile: xOne, layout });
  const v = filter.checkChunk({ jointNames: layout.names, actions, horizon: H, dim: D }, xOne.home);
  assert.equal(v.kind, "pass", JSON.stringify(v.kind === "clamped" ? v.interventions : v));
  assert.ok(v.kind === "pass");
  const [m] = createOutput(xOne, layout).buildChunk(v.command, 5_000_000_000n);
  assert.ok(m && m.type === "trajectory_msgs/msg/JointTrajectory");
  assert.equal(m.topic, "/x_one_arm_controller/joint_trajectory");
  assert.deepEqual(m.message.joint_names, xOne.command.joint_order);
  assert.notDeepEqual(xOne.command.joint_order, layout.names, "policy and driver orders differ (grippers), so the permutation is exercised");
  m.message.points.forEach((p, k) => {
    xOne.command.joint_order.forEach((name, jd) => assert.equal(p.positions[jd], actions[k * D + layout.names.indexOf(name)], `point ${k} ${name}`));
    assert.equal(p.time_from_start.sec * 1e9 + p.time_from_start.nanosec, (k + 1) * 1e8);
  });
});
