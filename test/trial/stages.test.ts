/** Each stage of the control tick alone, without a Bus (stageRig.ts), and the driver that applies holds. */
import assert from "node:assert/strict";
import test from "node:test";
import { PlannerFailure, type Planner } from "../../src/policy/planner/types.js";
import { runTick, STAGES } from "../../src/trial/episodeLoop.js";
import { plan, start } from "../../src/trial/planStages.js";
import { act, gate, observe, preprocess, publish } from "../../src/trial/stages.js";
import { applyHold, STAGE_NAMES, tickBusyMs, type Stage } from "../../src/trial/tick.js";
import { ScriptedPolicy, stageRig, H, W } from "./stageRig.js";

test("gate: holds stale before any sensor has spoken, naming the topic", async () => {
  const r = stageRig();
  const hold = await gate(r.ep, r.tick(0));
  assert.equal(hold?.kind, "hold");
  assert.equal(hold!.reason, "stale");
  assert.match(hold!.details, /no message yet on \/joint_states/);
});

test("gate: a joint state with a NaN position holds, and the last good one stays the hold target", async () => {
  const r = stageRig();
  r.feedGood();
  assert.equal(await gate(r.ep, r.tick(0)), undefined);
  const home = r.ep.sensors.lastGoodPositions();
  const names = Object.keys(home!);
  r.feedGood(undefined, Object.fromEntries(names.map((n, i) => [n, i === 2 ? Number.NaN : home![n]!])));
  const t = r.tick(1);
  const hold = await gate(r.ep, t);
  assert.equal(hold?.reason, "invalid_joint_state");
  assert.equal(hold?.topic, "/joint_states");
  assert.match(hold!.details, /^joint "left_joint3" position NaN on \/joint_states is not finite \[robot=x-one step=1\]$/);
  assert.equal(t.measured, null);
  assert.deepEqual(r.ep.sensors.lastGoodPositions(), home);
});

test("applyHold never throws: a hold command that cannot be built is a fault event, the hold is still reported", () => {
  const r = stageRig();
  const hold = { kind: "hold" as const, reason: "error" as const, details: "boom" };
  assert.doesNotThrow(() => applyHold(r.ep, hold, { left_joint1: 0 }, r.clock.nowNs(), 7));
  assert.deepEqual(r.sent, []);
  const fault = r.events.find((e) => e.event === "fault");
  assert.match(String(fault?.reason), /^hold command not sent: hold: measured joint state has no position for "left_joint2"/);
  assert.ok(r.events.some((e) => e.event === "safety_hold" && e.reason === "error" && e.step === 7));
  assert.equal(r.ep.holding, "error");
});

test("gate: passing after a hold emits hold_released once", async () => {
  const r = stageRig();
  r.feedGood();
  r.ep.holding = "stale";
  assert.equal(await gate(r.ep, r.tick(3)), undefined);
  assert.equal(await gate(r.ep, r.tick(4)), undefined);
  assert.deepEqual(r.events.filter((e) => e.event === "hold_released").map((e) => [e.step, e.reason]), [[3, "stale"]]);
  assert.equal(r.ep.holding, null);
});

test("preprocess: a malformed image holds stale naming its topic; a good one gives the tensor and the state vector", async () => {
  const r = stageRig();
  r.feedGood();
  r.feed("/head_camera/color/image_raw", new Uint8Array([1, 2, 3]));
  const bad = r.tick(0);
  await gate(r.ep, bad);
  const hold = await preprocess(r.ep, bad);
  assert.equal(hold?.reason, "stale");
  assert.match(hold!.details, /\/head_camera\/color\/image_raw: malformed sensor_msgs\/msg\/Image/);

  r.feedGood();
  const t = r.tick(1);
  await gate(r.ep, t);
  assert.equal(await preprocess(r.ep, t), undefined);
  assert.equal(t.images["head"]!.length, 3 * W * H);
  assert.equal(t.state.length, 16);
});

test("start: runs once; M(1) starts the global task without the planner", async () => {
  const r = stageRig();
  r.feedGood();
  assert.equal(await start(r.ep, r.tick(0)), undefined);
  assert.equal(await start(r.ep, r.tick(1)), undefined);
  assert.deepEqual(r.events.map((e) => [e.event, e.step, e.source]), [["subtask_start", 0, "global"]]);
  assert.ok(r.ep.initialJpeg && r.ep.initialJpeg[0] === 0xff && r.ep.initialJpeg[1] === 0xd8, "initial image is a JPEG");
});

test("start: M(n) asks the planner for the first subtask; a dead planner ends the episode with a hold", async () => {
  const seen: number[] = [];
  const ok: Planner = { next: async (ctx) => { seen.push(ctx.initialImageJpeg.length); return { subtask: "pick up the block", latencyMs: 5 }; } };
  const r = stageRig({ planner: ok, complexity: "M(n)" });
  r.feedGood();
  assert.equal(await start(r.ep, r.tick(0)), undefined);
  assert.deepEqual(r.policy.instructions, ["pick up the block"]);
  assert.ok(seen[0]! > 0, "the planner saw the initial image");
  assert.deepEqual(r.ep.result.plannerLatenciesMs, [5]);

  const dead: Planner = { next: async () => { throw new PlannerFailure("network", "connection refused", 3, 10); } };
  const d = stageRig({ planner: dead, complexity: "M(n)" });
  d.feedGood();
  const exit = await start(d.ep, d.tick(0));
  assert.equal(exit?.kind, "ended");
  assert.deepEqual(exit!.end, { kind: "aborted", reason: "planner failed: connection refused", plannerDown: true });
  assert.equal(exit!.hold?.details, "planner failed at episode start");
});

test("observe: passes the tick's images and state at the tick's time, records the logit", async () => {
  const r = stageRig();
  r.feedGood();
  const t = r.tick(0);
  await gate(r.ep, t);
  await preprocess(r.ep, t);
  await observe(r.ep, t);
  assert.equal(r.policy.observed[0]!.stampNs, t.tickNs);
  assert.equal(r.policy.observed[0]!.images, t.images);
  assert.deepEqual(r.ep.result.logits, [-3]);
  assert.deepEqual(t.observed, { logit: -3, subtaskEnded: false });
});

test("plan: a declared end on M(n) holds the robot while the planner names the next subtask", async () => {
  const contexts: number[] = [];
  const planner: Planner = { next: async (ctx) => { contexts.push(ctx.finished.length); return { subtask: "press the button", latencyMs: 1 }; } };
  const r = stageRig({ planner, complexity: "M(n)" });
  r.feedGood();
  const t = r.tick(7);
  await gate(r.ep, t);
  t.observed = { logit: 4, subtaskEnded: true };
  assert.equal(await plan(r.ep, t), undefined);
  assert.deepEqual(r.ep.result.declaredEnds, [7]);
  assert.equal(r.sent.length, 1, "one hold command while the planner thinks");
  assert.equal(r.ep.holding, "timeout");
  assert.deepEqual(contexts, [1]);
  assert.equal(r.ep.subtask, "press the button");
  assert.deepEqual(r.events.map((e) => e.event), ["subtask_end", "safety_hold", "planner_call", "subtask_start"]);
});

test("plan: a finished plan fails the episode (already held), M(1) never calls the planner", async () => {
  const planner: Planner = { next: async () => { throw new PlannerFailure("complete", "no subtask left", 1, 0); } };
  const r = stageRig({ planner, complexity: "M(n)" });
  r.feedGood();
  const t = r.tick(2);
  await gate(r.ep, t);
  t.observed = { logit: 4, subtaskEnded: true };
  assert.deepEqual(await plan(r.ep, t), { kind: "ended", end: { kind: "failure", reason: "plan complete: no subtask left", planComplete: true } });

  const m1 = stageRig({ planner });
  m1.feedGood();
  const t1 = m1.tick(2);
  t1.observed = { logit: 4, subtaskEnded: true };
  assert.equal(await plan(m1.ep, t1), undefined);
  assert.deepEqual(m1.ep.result.declaredEnds, [2]);
  assert.equal(m1.sent.length, 0);
});

test("act: a good chunk is published; a NaN chunk holds and publishes nothing", async () => {
  const r = stageRig();
  r.feedGood();
  const t = r.tick(0);
  await gate(r.ep, t);
  assert.equal(await act(r.ep, t), undefined);
  assert.equal(r.sent.length, 1);
  assert.equal(r.sent[0]!.type, "trajectory_msgs/msg/JointTrajectory");
  assert.equal(await act(r.ep, t), undefined, "no chunk needed while one runs");
  assert.equal(r.policy.acts, 1);

  const n = stageRig();
  n.policy.nextChunk = async () => { const c = n.policy.chunkAt(0.01); c.actions[5] = Number.NaN; return c; };
  n.feedGood();
  const tn = n.tick(0);
  await gate(n.ep, tn);
  const hold = await act(n.ep, tn);
  assert.equal(hold?.reason, "non_finite");
  assert.equal(n.sent.length, 0);
});

test("act: a policy that never answers holds at the deadline on the injected clock", async () => {
  const r = stageRig();
  r.policy.nextChunk = () => new Promise(() => undefined);
  r.feedGood();
  const t = r.tick(0);
  await gate(r.ep, t);
  const acting = act(r.ep, t);
  await r.clock.advanceBy(1_000_000_000n);
  const hold = await acting;
  assert.equal(hold?.reason, "timeout");
  assert.match(hold!.details, /policy\.act\(\) has not answered within 1000 ms/);
});

test("act: 100 acts leave no deadline waiter pending on the sim clock", async () => {
  const r = stageRig();
  r.feedGood();
  for (let k = 0; k < 100; k++) {
    r.ep.control.scheduler.clear();
    const t = r.tick(k);
    await gate(r.ep, t);
    assert.equal(await act(r.ep, t), undefined);
  }
  assert.equal(r.policy.acts, 100);
  assert.equal(r.clock.pendingSleepers, 0);
});

test("publish: no chunk means a no_action hold; after a chunk, the step passes the safety filter", async () => {
  const r = stageRig();
  r.feedGood();
  const t = r.tick(0);
  await gate(r.ep, t);
  assert.equal((await publish(r.ep, t))?.reason, "no_action");
  await act(r.ep, t);
  assert.equal(await publish(r.ep, t), undefined);
});

test("runTick: a stage's Hold becomes the hold command, the event and the end check; later stages do not run", async () => {
  const r = stageRig();
  r.feedGood();
  const later: string[] = [];
  const stages: Array<readonly [(typeof STAGE_NAMES)[number], Stage]> = [
    ["gate", gate],
    ["act", async () => ({ kind: "hold", reason: "workspace", details: "test hold" })],
    ["publish", async () => { later.push("publish"); }],
  ];
  assert.equal(await runTick(r.ep, 5, r.clock.nowNs(), 0, stages), null);
  assert.equal(r.sent.length, 1);
  assert.equal(r.sent[0]!.type, "trajectory_msgs/msg/JointTrajectory");
  assert.deepEqual(r.events.map((e) => [e.event, e.reason, e.step]), [["safety_hold", "workspace", 5]]);
  assert.deepEqual(r.ends, [5]);
  assert.deepEqual(later, []);
  assert.equal(r.ep.holding, "workspace");
});

test("runTick: every stage is timed by name, including the one that throws", async () => {
  const r = stageRig();
  r.feedGood();
  const full = await runTick(r.ep, 0, r.clock.nowNs(), 2, STAGES);
  assert.equal(full, null);
  const timing = r.ep.result.timings[0]!;
  assert.deepEqual(Object.keys(timing).sort(), ["waitMs", ...STAGE_NAMES.map((n) => `${n}Ms`)].sort());
  assert.ok(timing.preprocessMs > 0 && timing.actMs > 0 && timing.publishMs > 0);
  assert.equal(tickBusyMs(timing), STAGE_NAMES.reduce((s, n) => s + timing[`${n}Ms`], 0));

  const slow: Stage = async () => { await new Promise((res) => setTimeout(res, 5)); throw new Error("boom"); };
  await assert.rejects(runTick(r.ep, 1, r.clock.nowNs(), 0, [["observe", slow]]), /boom/);
  assert.ok(r.ep.result.timings[1]!.observeMs >= 4, "the throwing stage's time is recorded");
  assert.equal(r.ep.result.steps, 2);
});

test("ScriptedPolicy chunk is what the rig says (guards the rig itself)", () => {
  const p = new ScriptedPolicy(["a", "b"]);
  const c = p.chunkAt(0.5, { a: 1, b: 2 });
  assert.deepEqual(Array.from(c.actions.subarray(0, 2)), [1.5, 2.5]);
});
