/**
 * CI smoke of the shipped reference policy (issue 7): policies/mem0-tiny loads on onnxruntime-node,
 * its manifest and ONNX files hold the contract, and two closed-loop Put Back Block episodes run on
 * the in-process sim twin (short: 40 control steps each, no MCAPs) without a hold, with the anchor
 * set once per episode and every chunk passing the safety filter. Training is not run here; the
 * success rates are measured by the documented 50-episode evaluations (policies/mem0-tiny/README.md).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadRunConfig } from "../../src/config/loaders.js";
import { mem0BundleIssues, openMem0Bundle, closeMem0Bundle } from "../../src/policy/mem0/bundle.js";
import { loadRobotProfile } from "../../src/robot/loadRobotProfile.js";
import { runTrial } from "../../src/app/runTrial.js";

const BUNDLE = "policies/mem0-tiny";
const STEPS = 40;

test("mem0-tiny bundle loads and holds the manifest contract", async () => {
  assert.deepEqual(await mem0BundleIssues(BUNDLE), []);
  const bundle = await openMem0Bundle(BUNDLE, { log: () => {} });
  try {
    assert.equal(bundle.loaded.manifest.action_reference, "state");
  } finally {
    await closeMem0Bundle(bundle);
  }
});

test("mem0-tiny runs two closed-loop Put Back Block episodes on the sim twin", { timeout: 240_000 }, async () => {
  const out = mkdtempSync(join(tmpdir(), "engram-mem0-smoke-"));
  try {
    const run = loadRunConfig("launch/sim-x-one.yaml");
    const summary = await runTrial({
      run, robot: loadRobotProfile(run.robotPath), policyPath: BUNDLE, task: "put-back-block",
      episodes: 2, seed: 1000, outDir: out, maxSteps: STEPS, noRecord: true,
    });
    assert.equal(summary.episodes, 2);
    assert.equal(summary.aborted ?? null, null);
    const events = readFileSync(join(out, "events.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    const holds = events.filter((e) => e.event === "safety_hold");
    assert.deepEqual(holds, [], "no safety hold (NaN, stale input, e-stop) in a nominal run");
    for (const episode of [0, 1]) {
      const mine = events.filter((e) => e.episode === episode);
      const end = mine.find((e) => e.event === "episode_end");
      assert.ok(end, `episode ${episode} ended`);
      assert.ok((end.steps as number) > 0 && (end.steps as number) <= STEPS, `episode ${episode}: ${String(end.steps)} steps`);
      assert.equal(mine.filter((e) => e.event === "memory" && (e.op as { kind?: string }).kind === "anchor_set").length, 1, `episode ${episode}: the anchor is set once (M(1) keeps it)`);
    }
    assert.ok(summary.tick_ms.p50 > 0, "tick latency measured");
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

/** runTrial of mem0-tiny on the twin with `sim.mode: realtime` into `out`; `over` adds or overrides options. */
async function realtimeTrial(out: string, over: Partial<Parameters<typeof runTrial>[0]>) {
  const run = loadRunConfig("launch/sim-x-one.yaml");
  run.config.sim.mode = "realtime";
  const summary = await runTrial({ run, robot: loadRobotProfile(run.robotPath), policyPath: BUNDLE, task: "put-back-block", episodes: 1, seed: 1000, outDir: out, ...over });
  const events = readFileSync(join(out, "events.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
  return { summary, events };
}

test("sim.mode realtime: the twin steps on the wall clock by itself, so the policy gets sensors and acts", { timeout: 120_000 }, async () => {
  // Before: runTrial never ran the twin in real-time mode; every tick held on stale sensors, no chunk ran.
  const out = mkdtempSync(join(tmpdir(), "engram-realtime-"));
  try {
    const { summary, events } = await realtimeTrial(out, { maxSteps: 20, noRecord: true });
    assert.equal(summary.aborted ?? null, null);
    assert.ok(events.some((e) => e.event === "first_chunk"), "the policy acted on the twin's sensors");
    const record = JSON.parse(readFileSync(join(out, "episodes.jsonl"), "utf8").trim().split("\n")[0]!) as { steps: number; duration_s: number };
    assert.equal(record.steps, 20);
    assert.ok(record.duration_s >= 1.5, `20 ticks at 10 Hz take the wall clock's 2 s (${record.duration_s} s)`);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test("sim.mode realtime: a twin that fails mid-episode ends it aborted with the cause, and the run stops cleanly", { timeout: 120_000 }, async () => {
  // Before: the twin's loop rejected unobserved, and Node killed the process mid-episode (recording unclosed).
  const out = mkdtempSync(join(tmpdir(), "engram-realtime-fail-"));
  try {
    const { summary, events } = await realtimeTrial(out, {
      episodes: 2, maxSteps: 30,
      wrapPolicy: (policy, node) => {
        const step = node.world.step.bind(node.world);
        let steps = 0;
        node.world.step = () => { if (++steps > 240) throw new Error("physics blew up"); step(); };
        return policy;
      },
    });
    assert.match(summary.aborted?.reason ?? "", /sim twin \(real-time mode\) failed: physics blew up/);
    assert.ok(events.some((e) => e.event === "safety_hold"), "the arm was held");
    assert.equal(events.filter((e) => e.event === "episode_end").length, 1, "the run stopped after the failed episode");
    const mcap = readFileSync(join(out, "episodes", "0.mcap"));
    assert.deepEqual([...mcap.subarray(mcap.length - 8)], [0x89, 0x4d, 0x43, 0x41, 0x50, 0x30, 0x0d, 0x0a], "the episode's recording is closed (MCAP footer magic)");
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
