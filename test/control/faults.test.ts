/**
 * Fault injection over the real episode loop (see faultRig.ts): camera stops, joint topic stops,
 * planner dies, model returns NaN, model returns out-of-range values, e-stop pressed (and resumed),
 * deadman released. For each: the expected hold, its event, and zero commands outside limits.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { PlannerFailure } from "../../src/policy/planner/types.js";
import { OracleListPlanner } from "../../src/policy/planner/oracleList.js";
import { gentleBias, runRig, violations, type RigResult } from "./faultRig.js";
import { getLayout, loadRobotProfile } from "../../src/robot/index.js";

const H = 10;
const layout = getLayout(loadRobotProfile("robots/x-one.yaml").profile, "bimanual_16d");
const NAMES = layout.kind === "joint" ? layout.names : [];
const gentle = gentleBias(H, NAMES);

const holds = (r: RigResult) => r.events.filter((e) => e.event === "safety_hold");

function assertHeld(r: RigResult, reason: string, topic?: string): void {
  const h = holds(r).find((e) => e.reason === reason);
  assert.ok(h, `expected a ${reason} hold event, got ${JSON.stringify(r.events.map((e) => e.event + ":" + String(e.reason ?? "")))}`);
  if (topic) assert.equal(h.topic, topic);
  assert.deepEqual(violations(r), [], "commands outside limits");
  assert.ok(r.commands.some((c) => c.traj.points.length === 1), "a hold command (one point) was published");
}

/** The arm's commanded points at the hold: one point at the measured position. */
function holdsAtMeasured(r: RigResult): boolean {
  return r.commands.some((c) => c.traj.points.length === 1 && c.traj.joint_names.every((n, i) => c.traj.points[0]!.positions[i] === c.from[n]));
}

test("baseline: gentle chunks run without holds or interventions", async () => {
  const r = await runRig({ ticks: 25, horizon: H, biasFor: () => gentle });
  assert.deepEqual(holds(r), []);
  assert.deepEqual(r.events.filter((e) => e.event === "safety_intervention"), []);
  assert.deepEqual(violations(r), []);
  assert.equal(r.commands.length, 3); // chunks at ticks 0, 10, 20
  assert.equal(r.commands[0]!.traj.points.length, H);
});

test("camera stops → stale hold naming the camera topic, arm held at its measured position", async () => {
  const r = await runRig({ ticks: 12, horizon: H, biasFor: () => gentle, faults: (t) => (t >= 4 ? { silence: { camera: true } } : undefined) });
  assertHeld(r, "stale", "/head_camera/color/image_raw");
  assert.ok(holdsAtMeasured(r));
});

test("joint topic stops → stale hold on /joint_states", async () => {
  const r = await runRig({ ticks: 12, horizon: H, biasFor: () => gentle, faults: (t) => (t >= 4 ? { silence: { joints: true } } : undefined) });
  assertHeld(r, "stale", "/joint_states");
});

test("joint states with a NaN position → invalid_joint_state hold, and the stop still goes out at the last good position", async () => {
  const r = await runRig({ ticks: 12, horizon: H, biasFor: () => gentle, faults: (t) => (t >= 4 ? { nanJoints: true } : undefined) });
  assertHeld(r, "invalid_joint_state", "/joint_states");
  const held = r.commands.filter((c) => c.traj.points.length === 1);
  assert.ok(held.length > 0 && held.every((c) => Array.from(c.traj.points[0]!.positions).every(Number.isFinite)), "hold commands carry finite positions");
  assert.ok(r.commands.every((c) => c.traj.points.every((p) => Array.from(p.positions).every(Number.isFinite))), "no NaN ever reaches the controller");
});

test("model returns NaN → whole chunk rejected, non_finite hold with the offending values", async () => {
  const nan = Float32Array.from(gentle);
  nan[3 * 16 + 5] = Number.NaN;
  const r = await runRig({ ticks: 15, horizon: H, biasFor: (n) => (n === 1 ? nan : gentle) });
  assertHeld(r, "non_finite");
  const h = holds(r).find((e) => e.reason === "non_finite")!;
  assert.deepEqual(h.values, [{ step: 3, joint: NAMES[5], value: "NaN" }]);
  assert.ok(holdsAtMeasured(r));
});

test("model returns out-of-range values → clamped, intervention events, every command within limits", async () => {
  const wild = new Float32Array(H * 16).map((_, i) => ((i % 3) - 1) * 20);
  const r = await runRig({ ticks: 12, horizon: H, biasFor: (n) => (n === 0 ? wild : gentle) });
  const clamps = r.events.filter((e) => e.event === "safety_intervention");
  assert.ok(clamps.some((e) => e.kind === "position_limit"));
  assert.ok(clamps.some((e) => e.kind === "step_limit"));
  assert.deepEqual(violations(r), []);
});

test("stream interface: out-of-range and NaN chunks → every streamed target within limits and steps", async () => {
  const wild = new Float32Array(H * 16).map((_, i) => ((i % 3) - 1) * 20);
  const nan = Float32Array.from(gentle);
  nan[7] = Number.POSITIVE_INFINITY;
  const r = await runRig({ ticks: 35, horizon: H, stream: true, biasFor: (n) => (n === 0 ? wild : n === 1 ? nan : gentle) });
  assert.ok(r.commands.length >= 30, `${r.commands.length} targets`);
  assert.ok(r.events.some((e) => e.event === "safety_intervention" && e.kind === "step_limit"));
  assert.ok(holds(r).some((e) => e.reason === "non_finite"));
  assert.deepEqual(violations(r), []);
});

test("e-stop pressed → estop hold until resume, then commands ramp from the measured position", async () => {
  const r = await runRig({
    ticks: 20, horizon: H, biasFor: () => gentle,
    faults: (t) => (t === 3 ? { bools: [{ topic: "/engram/estop", data: true }] } : t === 5 ? { bools: [{ topic: "/engram/estop", data: false }] } : t === 9 ? { bools: [{ topic: "/engram/resume", data: true }] } : undefined),
  });
  assertHeld(r, "estop", "/engram/estop");
  const names = r.events.map((e) => e.event);
  assert.ok(names.indexOf("estop") < names.indexOf("estop_resumed"), names.join(","));
  // After the resume a full chunk is published again.
  const afterResume = r.commands.filter((c) => c.traj.points.length === H);
  assert.ok(afterResume.length >= 2);
});

test("deadman released → deadman hold", async () => {
  const r = await runRig({ ticks: 12, horizon: H, biasFor: () => gentle, deadman: true, faults: (t) => (t >= 4 ? { bools: [{ topic: "/engram/deadman", data: false }] } : undefined) });
  assertHeld(r, "deadman", "/engram/deadman");
});

// A CDR header with no payload: 4 bytes that cannot decode as std_msgs/msg/Bool.
const UNDECODABLE = new Uint8Array([0, 1, 0, 0]);

test("malformed e-stop message → the stop latches (fault + estop events) until an explicit resume", async () => {
  const r = await runRig({
    ticks: 20, horizon: H, biasFor: () => gentle,
    faults: (t) => (t === 3 ? { rawBools: [{ topic: "/engram/estop", bytes: UNDECODABLE }] } : t === 12 ? { bools: [{ topic: "/engram/resume", data: true }] } : undefined),
  });
  assertHeld(r, "estop", "/engram/estop");
  const fault = r.events.find((e) => e.event === "fault" && e.topic === "/engram/estop");
  assert.ok(fault && /malformed Bool/.test(String(fault.reason)) && fault.latched === "estop", String(fault?.reason));
  const names = r.events.map((e) => e.event);
  assert.ok(names.indexOf("estop") >= 0 && names.indexOf("estop") < names.indexOf("estop_resumed"), names.join(","));
  // Between the bad message and the resume no chunk runs: only one-point hold commands.
  const [latchedNs, resumedNs] = ["estop", "estop_resumed"].map((n) => BigInt(String(r.events.find((e) => e.event === n)!.stamp_ns)));
  const during = r.commands.filter((c) => c.atNs > latchedNs! && c.atNs < resumedNs!);
  assert.ok(during.length > 0 && during.every((c) => c.traj.points.length === 1), `${during.length} commands during the latch`);
});

test("malformed deadman message → deadman hold (a broken deadman counts as released)", async () => {
  const r = await runRig({ ticks: 6, horizon: H, biasFor: () => gentle, deadman: true, faults: (t) => (t >= 4 ? { rawBools: [{ topic: "/engram/deadman", bytes: UNDECODABLE }] } : undefined) });
  assertHeld(r, "deadman", "/engram/deadman");
});

test("malformed resume message → the e-stop stays latched", async () => {
  const r = await runRig({
    ticks: 12, horizon: H, biasFor: () => gentle,
    faults: (t) => (t === 2 ? { bools: [{ topic: "/engram/estop", data: true }] } : t === 5 ? { rawBools: [{ topic: "/engram/resume", bytes: UNDECODABLE }] } : undefined),
  });
  assertHeld(r, "estop", "/engram/estop");
  assert.ok(!r.events.some((e) => e.event === "estop_resumed"));
  assert.ok(r.events.some((e) => e.event === "fault" && e.topic === "/engram/resume"));
});

test("non-canonical resume (data byte 07 then junk) → ignored with a fault event, the e-stop stays latched", async () => {
  const junk = new Uint8Array([0, 1, 0, 0, 7, 0xde, 0xad, 0xbe]);
  const padded = new Uint8Array([0, 1, 0, 0, 1, 0, 0, 0]); // what rclcpp sends for true
  const r = await runRig({
    ticks: 14, horizon: H, biasFor: () => gentle,
    faults: (t) => (t === 2 ? { bools: [{ topic: "/engram/estop", data: true }] }
      : t === 5 ? { rawBools: [{ topic: "/engram/resume", bytes: junk }] }
      : t === 10 ? { rawBools: [{ topic: "/engram/resume", bytes: padded }] } : undefined),
  });
  assertHeld(r, "estop", "/engram/estop");
  const fault = r.events.find((e) => e.event === "fault" && e.topic === "/engram/resume");
  assert.match(String(fault?.reason), /malformed Bool: non-canonical std_msgs\/msg\/Bool \(8 bytes: 00 01 00 00 07 de ad be\)/);
  const resumed = r.events.filter((e) => e.event === "estop_resumed");
  assert.equal(resumed.length, 1, "only the canonical resume resumes");
  assert.ok(r.events.some((e) => e.event === "hold_released" && e.reason === "estop" && e.step === 10));
});

test("model returns NaN on every chunk → a hold event and an intervention per rejected chunk", async () => {
  const nan = Float32Array.from(gentle);
  nan[5] = Number.NaN;
  const r = await runRig({ ticks: 10, horizon: H, biasFor: () => nan });
  const rejected = holds(r).filter((e) => e.reason === "non_finite");
  assert.equal(rejected.length, 10, "one hold per rejected chunk (one act per tick)");
  assert.equal(r.result.interventions, 10);
  assert.equal(r.events.filter((e) => e.event === "hold_released").length, 9);
  assert.ok(r.commands.every((c) => c.traj.points.length === 1), "no chunk was executed");
});

test("oracle-list plan complete → hold, planner_failure event, the episode fails but is not aborted", async () => {
  const r = await runRig({ ticks: 12, horizon: H, biasFor: () => gentle, planner: new OracleListPlanner([]) });
  assert.equal(r.result.end.kind, "failure");
  assert.match((r.result.end as { reason: string }).reason, /^plan complete: oracle-list planner: 0 subtasks finished/);
  assert.equal(r.result.end.kind === "failure" && r.result.end.planComplete, true, "the policy's plan ended it");
  assert.ok(r.events.some((e) => e.event === "planner_failure"));
  assert.ok(holds(r).length >= 1);
  assert.deepEqual(violations(r), []);
});

test("planner server dies → hold, planner_failure event, episode aborted", async () => {
  const planner = { next: async () => { throw new PlannerFailure("network", "connect ECONNREFUSED 127.0.0.1:8000", 3, 40); } };
  const r = await runRig({ ticks: 12, horizon: H, biasFor: () => gentle, planner });
  assert.equal(r.result.end.kind, "aborted");
  assert.equal(r.result.end.kind === "aborted" && r.result.end.plannerDown, true, "marked as a dead planner: the next episode tries again");
  assert.ok(r.events.some((e) => e.event === "planner_failure"));
  assert.ok(holds(r).length >= 1);
  assert.deepEqual(violations(r), []);
  assert.ok(r.commands.every((c) => c.traj.points.length <= 1), "no chunk was executed");
});

test("planner answer outside the policy's vocabulary → the episode fails (not aborted), the event names the answer only", async () => {
  const vocabulary = Array.from({ length: 40 }, (_, i) => `instruction number ${i} of a long closed vocabulary`);
  const planner = { next: async () => ({ subtask: "dance.", latencyMs: 3 }) };
  const r = await runRig({ ticks: 12, horizon: H, biasFor: () => gentle, planner, vocabulary });
  assert.equal(r.result.end.kind, "failure");
  assert.match((r.result.end as { reason: string }).reason, /planner answer "dance\." is not in the policy's vocabulary/);
  const e = r.events.find((x) => x.event === "planner_answer_unknown");
  assert.ok(e && e.answer === "dance.");
  assert.ok(!JSON.stringify(r.events, (_k, v) => (typeof v === "bigint" ? String(v) : v)).includes("instruction number"), "no event carries the vocabulary");
  assert.ok(r.commands.every((c) => c.traj.points.length <= 1), "no chunk was executed");
});
