/**
 * The episode's tick clock starts at the policy's first chunk (issue 13): the tick that waited for
 * it is reported as `first_chunk` (the arm at rest), not as a late tick or a hold; every later
 * tick counts, and a late tick that waited on the policy counts as such. The real episode loop on
 * the fault rig's stand-in arm, paced at wall speed, with act() slowed in wall time like a server.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { gentleBias, runRig } from "../control/faultRig.js";
import { getLayout, loadRobotProfile } from "../../src/robot/index.js";

const layout = getLayout(loadRobotProfile("robots/x-one.yaml").profile, "bimanual_16d");
const names = layout.kind === "joint" ? layout.names : [];
const H = 8;

test("a slow first chunk: reported as first_chunk, not late, no hold; the clock starts after it", { timeout: 30_000 }, async () => {
  const r = await runRig({ ticks: 30, horizon: H, biasFor: () => gentleBias(H, names), actDelayMs: (n) => (n === 0 ? 400 : 0), wallPaced: true });
  assert.equal(r.result.steps, 30);
  assert.equal(r.result.firstChunk?.step, 0);
  assert.ok(r.result.firstChunk!.waitMs >= 400, `first chunk wait ${r.result.firstChunk!.waitMs} ms`);
  const first = r.events.filter((e) => e.event === "first_chunk");
  assert.deepEqual(first.map((e) => e.step), [0]);
  assert.equal(r.result.lateOnPolicy, 0, "no tick late from waiting on the policy");
  assert.deepEqual(r.events.filter((e) => e.event === "safety_hold"), [], "no hold");
});

test("a slow chunk later in the episode: a late tick from waiting on the policy", { timeout: 30_000 }, async () => {
  const r = await runRig({ ticks: 30, horizon: H, biasFor: () => gentleBias(H, names), actDelayMs: (n) => (n === 2 ? 350 : 0), wallPaced: true });
  assert.equal(r.result.firstChunk?.step, 0);
  assert.ok(r.result.lateOnPolicy >= 1, `late on policy: ${r.result.lateOnPolicy} of ${r.result.lateTicks} late`);
  assert.ok(r.result.lateTicks >= r.result.lateOnPolicy);
});

test("lock-step: the sim stands still while the first chunk is awaited (same tick times as a fast policy)", { timeout: 30_000 }, async () => {
  const slow = await runRig({ ticks: 12, horizon: H, biasFor: () => gentleBias(H, names), actDelayMs: (n) => (n === 0 ? 300 : 0) });
  const fast = await runRig({ ticks: 12, horizon: H, biasFor: () => gentleBias(H, names) });
  assert.ok(slow.result.firstChunk!.waitMs >= 300);
  assert.deepEqual(slow.commands.map((c) => c.atNs), fast.commands.map((c) => c.atNs));
  assert.equal(slow.result.lateTicks, 0);
});
