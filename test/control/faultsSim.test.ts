/**
 * Fault injection over the real sim twin (see faultSimRig.ts): camera stops, joint topic stops,
 * planner server dies, model returns NaN, model returns out-of-range values, e-stop pressed then
 * resumed, deadman released, joint states that lie (a joint missing, one beyond its limits). For
 * each: the expected hold, its event, zero commands outside the limits, and the sim arm's measured
 * joints inside them (and still while held).
 */
// Runs alone (scripts/test.sh): it measures wall time.
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test, type TestContext } from "node:test";
import type { JointState } from "../../src/msgs/types.js";
import { OpenAIPlanner } from "../../src/policy/planner/openai.js";
import { bundleVariant, limitViolations, movementBetween, runSimFault, type SimFaultResult } from "./faultSimRig.js";

const STEPS = 25; // 2.5 s of sim time at 10 Hz
const FAULT_STEP = 8;
const HEAD = "/head_camera/color/image_raw";

const holds = (r: SimFaultResult) => r.events.filter((e) => e.event === "safety_hold");
const trace = (r: SimFaultResult) => r.events.map((e) => `${e.event}:${String(e.reason ?? e.kind ?? "")}@${String(e.step)}`).join(" ");
/** Sim time at the start of tick `step`. */
const tickNs = (r: SimFaultResult, step: number) => r.startNs + BigInt(step + 1) * r.periodNs;

/** The hold event for `reason` (first one), asserting its topic and zero limit violations. */
function assertHeld(r: SimFaultResult, reason: string, topic?: string) {
  const h = holds(r).find((e) => e.reason === reason);
  assert.ok(h, `expected a ${reason} hold event, got ${trace(r)}`);
  if (topic !== undefined) assert.equal(h.topic, topic, trace(r));
  assert.deepEqual(limitViolations(r), [], "commands or measured joints outside limits");
  return h;
}

/** After a lasting hold from `step`, the arm does not move (hold = the measured position). */
function assertStill(r: SimFaultResult, step: number): void {
  const moved = movementBetween(r, tickNs(r, step + 1), tickNs(r, STEPS - 1));
  assert.ok(moved < 1e-4, `arm moved ${moved} while held from step ${step}`);
}

let nanBundle = "", wildBundle = "", switchBundle = "";
before(() => {
  // b2 is the action head's output bias: one NaN entry makes every chunk's (step 2, dim 5) NaN.
  nanBundle = bundleVariant("nan-head", { patch: (w) => { w.b2[2 * 16 + 5] = Number.NaN; } });
  // A flow offset of 40 (normalized) instead of 0.02: every action far outside the joint ranges.
  wildBundle = bundleVariant("wild-head", { patch: (w) => { w.offsetScale = 40; } });
  // The classifier always fires: a subtask end is declared after switch_count (3) ticks.
  switchBundle = bundleVariant("switching", { classifierBias: 8 });
});
after(() => { for (const dir of [nanBundle, wildBundle, switchBundle]) if (dir) rmSync(dir, { recursive: true, force: true }); });

test("baseline: the tiny policy drives the sim arm without holds, all commands within limits", async (t) => {
  const r = await runSimFault({ steps: STEPS });
  row(t, "none (baseline)", r, `moved ${movementBetween(r, r.startNs, tickNs(r, STEPS - 1)).toFixed(3)}`);
  assert.deepEqual(holds(r), [], trace(r));
  assert.deepEqual(limitViolations(r), []);
  assert.ok(r.commands.length >= 3, `${r.commands.length} chunks`);
  assert.ok(movementBetween(r, r.startNs, tickNs(r, STEPS - 1)) > 1e-3, "the arm moved");
});

test("camera stops → stale hold naming the camera topic, arm held still", async (t) => {
  const r = await runSimFault({ steps: STEPS, silence: { topic: HEAD, fromStep: FAULT_STEP } });
  row(t, `head camera silent from step ${FAULT_STEP}`, r, `end ${r.result.end.kind}`);
  const h = assertHeld(r, "stale", HEAD);
  assert.ok((h.step as number) >= FAULT_STEP, trace(r));
  assertStill(r, (h.step as number) + 1);
  assert.equal(r.result.end.kind, "failure"); // the episode runs out holding; it is not aborted
});

test("joint topic stops → stale hold on /joint_states", async (t) => {
  const r = await runSimFault({ steps: STEPS, silence: { topic: "/joint_states", fromStep: FAULT_STEP } });
  row(t, `/joint_states silent from step ${FAULT_STEP}`, r, `end ${r.result.end.kind}`);
  const h = assertHeld(r, "stale", "/joint_states");
  assertStill(r, (h.step as number) + 1);
});

const withoutJoint3 = (js: JointState): JointState =>
  ({ ...js, name: js.name.filter((n) => n !== "left_joint3"), position: Array.from(js.position).filter((_, i) => js.name[i] !== "left_joint3") });
const joint1At10 = (js: JointState): JointState => ({ ...js, position: Array.from(js.position, (v, i) => (js.name[i] === "left_joint1" ? 10 : v)) });

for (const [what, joint, rewrite] of [["left_joint3 missing", "left_joint3", withoutJoint3], ["left_joint1 = 10 (limit 3.05)", "left_joint1", joint1At10]] as const) {
  test(`joint state lies from step ${FAULT_STEP} (${what}) → invalid_joint_state hold naming it, arm held still at the last good position`, async (t) => {
    const r = await runSimFault({ steps: STEPS, lie: { fromStep: FAULT_STEP, rewrite } });
    row(t, `/joint_states ${what} from step ${FAULT_STEP}`, r, `end ${r.result.end.kind}`);
    const h = assertHeld(r, "invalid_joint_state", "/joint_states");
    assert.ok((h.step as number) >= FAULT_STEP && new RegExp(`joint "${joint}"`).test(String(h.details)), String(h.details));
    assert.ok(!r.events.some((e) => e.event === "fault"), trace(r));
    assert.equal(r.result.end.kind, "failure"); // the episode runs out holding; it is not aborted
    const held = r.commands.filter((c) => c.atNs >= tickNs(r, h.step as number));
    assert.ok(held.length > 0 && held.every((c) => c.traj.points.length === 1), "only one-point holds after the lie");
    const first = Array.from(held[0]!.traj.points[0]!.positions);
    assert.ok(held.every((c) => Array.from(c.traj.points[0]!.positions).every((v, i) => v === first[i])), "every hold at the same last good position");
    // The target is where the arm was a tick before the lie, so it settles onto it (two ticks), then stays.
    assertStill(r, (h.step as number) + 2);
    const end = r.measured.at(-1)!.positions;
    const names = held[0]!.traj.joint_names;
    assert.ok(names.every((n, i) => Math.abs(end[n]! - first[i]!) < 1e-3), `the arm ends at the hold target ${first.join(", ")}`);
  });
}

test("model returns NaN → whole chunk rejected, non_finite hold with the offending values, arm never moves", async (t) => {
  const r = await runSimFault({ steps: 12, bundle: nanBundle });
  row(t, "action head NaN (every chunk)", r, `${(holds(r)[0]?.values as unknown[] | undefined)?.length ?? 0} NaN values reported, e.g. ${JSON.stringify((holds(r)[0]?.values as unknown[] | undefined)?.[0])}`);
  const h = assertHeld(r, "non_finite");
  assert.ok(Array.isArray(h.values) && (h.values as Array<{ value: string }>).some((v) => v.value === "NaN"), JSON.stringify(h.values));
  assert.ok(r.commands.every((c) => c.traj.points.length <= 1), "no chunk reached the arm");
  assert.ok(movementBetween(r, r.startNs, tickNs(r, 11)) < 1e-4);
});

test("model returns out-of-range values → clamped with intervention events, every command within limits", async (t) => {
  const r = await runSimFault({ steps: 12, bundle: wildBundle });
  row(t, "action head out of range (offset scale 40 vs 0.02)", r, [...new Set(r.events.filter((e) => e.event === "safety_intervention").map((e) => e.kind))].join("+"));
  const kinds = new Set(r.events.filter((e) => e.event === "safety_intervention").map((e) => e.kind));
  assert.ok(kinds.has("position_limit") && kinds.has("step_limit"), `${[...kinds].join(",")} ${trace(r)}`);
  assert.deepEqual(limitViolations(r), []);
});

test("e-stop pressed → estop hold until resume on the topic, then commands ramp from the measured position", async (t) => {
  const r = await runSimFault({
    steps: STEPS,
    bools: (s) => s === FAULT_STEP ? [{ topic: "/engram/estop", data: true }]
      : s === FAULT_STEP + 3 ? [{ topic: "/engram/estop", data: false }] // false does not clear the latch
      : s === FAULT_STEP + 8 ? [{ topic: "/engram/resume", data: true }] : [],
  });
  row(t, `e-stop true @${FAULT_STEP}, false @${FAULT_STEP + 3}, resume @${FAULT_STEP + 8}`, r, `moved while latched ${movementBetween(r, tickNs(r, FAULT_STEP + 1), tickNs(r, FAULT_STEP + 8)).toExponential(1)}`);
  const h = assertHeld(r, "estop", "/engram/estop");
  assert.equal(h.step, FAULT_STEP);
  const names = r.events.map((e) => e.event);
  const resumed = r.events.find((e) => e.event === "estop_resumed");
  assert.ok(resumed && names.indexOf("estop") < names.indexOf("estop_resumed"), trace(r));
  assert.ok(r.events.some((e) => e.event === "hold_released" && e.reason === "estop" && e.step === FAULT_STEP + 8), trace(r));
  assertStill2(r, FAULT_STEP + 1, FAULT_STEP + 8);
  assert.ok(r.commands.some((c) => c.atNs >= tickNs(r, FAULT_STEP + 8) && c.traj.points.length > 1), "chunks flow again after the resume");
});

/** One row of the fault table (TAP diagnostic): fault | holds | events | commands outside limits | notes. */
function row(t: TestContext, fault: string, r: SimFaultResult, notes = ""): void {
  const holdReasons = [...new Set(holds(r).map((e) => `${String(e.reason)}@${String(e.step)}`))].slice(0, 4).join(", ") || "none";
  const kinds = [...new Set(r.events.map((e) => e.event).filter((e) => !["subtask_start", "memory", "classifier_end"].includes(e)))].join(", ");
  const points = r.commands.reduce((a, c) => a + c.traj.points.length, 0);
  t.diagnostic(`| ${fault} | ${holdReasons} | ${kinds} | ${limitViolations(r).length} of ${points} points in ${r.commands.length} commands, ${r.measured.length} joint states | ${notes} |`);
}

/** No movement between ticks `from` and `to` (a hold that ends). */
function assertStill2(r: SimFaultResult, from: number, to: number): void {
  const moved = movementBetween(r, tickNs(r, from), tickNs(r, to));
  assert.ok(moved < 1e-4, `arm moved ${moved} between steps ${from} and ${to}`);
}

test("deadman released → deadman hold (profile with safety.deadman_topic), arm held still", async (t) => {
  const topic = "/engram/deadman";
  const r = await runSimFault({ steps: STEPS, deadmanTopic: topic, bools: (s) => [{ topic, data: s < FAULT_STEP }] });
  row(t, `deadman false from step ${FAULT_STEP}`, r, `moved while released ${movementBetween(r, tickNs(r, FAULT_STEP + 1), tickNs(r, STEPS - 1)).toExponential(1)}`);
  const h = assertHeld(r, "deadman", topic);
  assert.equal(h.step, FAULT_STEP);
  assert.ok(r.commands.some((c) => c.traj.points.length > 1 && c.atNs < tickNs(r, FAULT_STEP)), "commands flowed while the deadman was held");
  assertStill(r, FAULT_STEP + 1);
});

let server: Server;
let calls = 0;
before(async () => {
  // A local OpenAI-compatible chat-completions server that answers once, then dies.
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => { body += c; });
    req.on("end", () => {
      calls++;
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ choices: [{ message: { role: "assistant", content: "next_subtask: press the left button." } }] }));
      server.close();
      server.closeAllConnections();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
});
after(() => { server.close(); });

test("planner server dies mid-episode (M(n) press-button, openai planner) → hold, planner_failure, episode aborted", async (t) => {
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const planner = new OpenAIPlanner({ url, model: "test", timeoutMs: 2000, retries: 1, backoffMs: 20 });
  const r = await runSimFault({ steps: STEPS, task: "press-button", bundle: switchBundle, planner });
  row(t, "planner server closes after its first answer", r, `end ${r.result.end.kind}: ${r.result.end.kind === "aborted" ? r.result.end.reason.slice(0, 80) : ""}`);
  assert.equal(calls, 1, "the server answered the episode-start call");
  assert.ok(r.events.some((e) => e.event === "planner_call" && e.answer === "press the left button."), trace(r)); // Mem-0 parsing keeps the period
  const failure = r.events.find((e) => e.event === "planner_failure");
  assert.ok(failure && /ECONNREFUSED|fetch failed/.test(String(failure.reason)), trace(r));
  assert.equal(r.result.end.kind, "aborted");
  assertHeld(r, "timeout"); // the robot holds while the planner is asked
  assert.ok(holds(r).some((e) => e.reason === "shutdown"), trace(r));
  const last = r.commands.at(-1)!;
  assert.equal(last.traj.points.length, 1, "the last command is a hold");
});

test("SIGINT while the planner server hangs → the call is abandoned at once, shutdown hold, episode aborted", async (t) => {
  const stop = new AbortController();
  let asked = 0, abortedAt = 0;
  const hung = createServer(() => { asked++; abortedAt = performance.now(); stop.abort(new Error("SIGINT")); }); // never answers
  await new Promise<void>((r) => hung.listen(0, "127.0.0.1", r));
  try {
    const url = `http://127.0.0.1:${(hung.address() as AddressInfo).port}`;
    const planner = new OpenAIPlanner({ url, model: "test", timeoutMs: 60_000, retries: 0 });
    const r = await runSimFault({ steps: STEPS, task: "press-button", planner, signal: stop.signal });
    const ms = performance.now() - abortedAt;
    row(t, "SIGINT during a hung planner call", r, `episode returned ${ms.toFixed(0)} ms after the stop`);
    assert.equal(asked, 1);
    assert.equal(r.result.end.kind, "aborted");
    assert.match(r.result.end.kind === "aborted" ? r.result.end.reason : "", /interrupted \(SIGINT\) while waiting for the planner/);
    assert.ok(r.events.some((e) => e.event === "planner_abandoned"), trace(r));
    assert.ok(holds(r).some((e) => e.reason === "shutdown"), trace(r));
    assert.deepEqual(limitViolations(r), []);
    assert.ok(ms < 3000, `returned ${ms.toFixed(0)} ms after the stop (the planner's timeout is 60 s)`);
  } finally {
    hung.closeAllConnections();
    hung.close();
  }
});

test("the checker itself: limitViolations flags a point outside the limits, an over-large step and a measured joint outside", () => {
  const limits = [{ name: "j1", lower: -1, upper: 1, maxStep: 0.1, angular: true }] as unknown as SimFaultResult["limits"];
  const traj = (positions: number[]) => ({ header: { stamp: { sec: 0, nanosec: 0 }, frame_id: "" }, joint_names: ["j1"], points: positions.map((p) => ({ positions: [p], velocities: [], accelerations: [], effort: [], time_from_start: { sec: 0, nanosec: 0 } })) });
  const base = { limits, events: [], startNs: 0n, periodNs: 1n } as unknown as SimFaultResult;
  const ok = { ...base, commands: [{ atNs: 0n, from: { j1: 0 }, traj: traj([0.1, 0.2]) }], measured: [{ atNs: 0n, positions: { j1: 0.2 } }] };
  assert.deepEqual(limitViolations(ok), []);
  const bad = { ...base, commands: [{ atNs: 0n, from: { j1: 0.95 }, traj: traj([1.05]) }, { atNs: 1n, from: { j1: 0 }, traj: traj([0.3]) }], measured: [{ atNs: 2n, positions: { j1: -1.2 } }] };
  const v = limitViolations(bad);
  assert.equal(v.length, 3, v.join("\n"));
  assert.match(v[0]!, /j1=1.05 outside/);
  assert.match(v[1]!, /step 0.3000 > 0.1000/);
  assert.match(v[2]!, /measured .* j1=-1.2 outside/);
});
