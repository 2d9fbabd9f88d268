/**
 * Remote-policy faults on the sim twin (issue 13): a scripted policy server (test/fakes/policyServer.ts,
 * a real websocket server on the real framing) misbehaves at a chosen call; the real episode loop,
 * safety filter and sim arm run in lock-step (test/control/faultSimRig.ts). For each fault: a hold
 * whose event names the cause, no command or measured joint outside the limits. Then a whole run
 * (runTrial on the twin, and runHardwareTrial with the twin as the robot outside the trial): the
 * server dies mid-episode and comes back; the next episodes run.
 */
// Runs alone (scripts/test.sh): its faults race the client's wall-clock timeouts (500 ms).
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { LocalBus } from "../../src/bus/local.js";
import { loadRunConfig } from "../../src/config/loaders.js";
import { loadRemotePolicy } from "../../src/policy/remote/definition.js";
import { loadRobotProfile } from "../../src/robot/loadRobotProfile.js";
import { SimNode } from "../../src/sim/node/SimNode.js";
import { SimResetServer } from "../../src/sim/node/resetServer.js";
import { getTask } from "../../src/sim/tasks/index.js";
import { runHardwareTrial } from "../../src/trial/hardwareTrial.js";
import { SimJudge } from "../../src/trial/operator.js";
import { runTrial } from "../../src/app/runTrial.js";
import type { RunSummary } from "../../src/trial/summary.js";
import { limitViolations, runSimFault } from "../control/faultSimRig.js";
import { FakePolicyServer, type Fault } from "../fakes/policyServer.js";
import { REMOTE_METADATA, writeRemoteBundle } from "./remoteBundle.js";

const STEPS = 20;
const FAULT_CALL = 6; // the 7th observe, or the 2nd act (chunks every 8 ticks)

async function withServer<T>(fault: (op: string, n: number) => Fault | null, body: (server: FakePolicyServer) => Promise<T>): Promise<T> {
  const server = new FakePolicyServer({ metadata: REMOTE_METADATA, horizon: 8, dim: 16, fault });
  await server.start();
  try {
    return await body(server);
  } finally {
    await server.stop();
  }
}

const cases: Array<{ name: string; op: "observe" | "act"; fault: Fault; cause: RegExp }> = [
  { name: "NaN in a chunk", op: "act", fault: "nan", cause: /actions\[3\]\[5\] is NaN/ },
  { name: "wrong-shape chunk", op: "act", fault: "wrong_shape", cause: /actions shape \[9, 16\], expected \[8, 16\]/ },
  { name: "server closes mid-episode", op: "observe", fault: "close", cause: /closed the connection|socket/ },
  { name: "server too slow", op: "observe", fault: "silent", cause: /observe: no reply within 300 ms/ },
  { name: "malformed frame", op: "act", fault: "garbage", cause: /not a msgpack frame/ },
  { name: "server error (traceback)", op: "observe", fault: "text_error", cause: /server error on observe: .*CUDA out of memory/ },
];

for (const c of cases) {
  test(`remote fault: ${c.name} → hold, event naming the cause, nothing outside the limits`, { timeout: 60_000 }, async () => {
    await withServer((op, n) => (op === c.op && n === (c.op === "act" ? 1 : FAULT_CALL) ? c.fault : null), async (server) => {
      const bundle = writeRemoteBundle(server.url, { timeout_ms: 300, latency: { prefetch: false, pipeline_observe: false } });
      try {
        const robot = loadRobotProfile("robots/x-one.yaml").profile;
        const r = await runSimFault({ steps: STEPS, policy: loadRemotePolicy(bundle, { robot }) });
        const fault = r.events.find((e) => e.event === "fault");
        assert.ok(fault, `a fault event; got ${r.events.map((e) => e.event).join(" ")}`);
        assert.match(String(fault.reason), c.cause);
        const hold = r.events.find((e) => e.event === "safety_hold" && e.reason === "error");
        assert.ok(hold, "a hold");
        assert.match(String(hold.details), c.cause);
        assert.equal(r.result.end.kind, "aborted");
        assert.ok(r.commands.length >= 1, "the arm was commanded before the fault");
        assert.deepEqual(limitViolations(r), []);
      } finally {
        rmSync(bundle, { recursive: true, force: true });
      }
    });
  });
}

/**
 * A server that drops the connection at the 7th observe and goes away, back 1.5 s later on the same
 * port; `body` runs a trial on a bundle pointing at it and returns its run folder's summary.
 */
async function withDyingServer(tag: string, body: (bundle: string, out: string) => Promise<RunSummary>): Promise<{ summary: RunSummary; events: Array<Record<string, unknown>> }> {
  let server!: FakePolicyServer;
  let back: Promise<void> | null = null;
  const fault = (op: string, n: number): Fault | null => {
    if (op !== "observe" || n !== FAULT_CALL || back) return null;
    back = server.stop().then(() => new Promise((r) => setTimeout(r, 1500))).then(() => server.start());
    return "close";
  };
  return withServer(fault, async (s) => {
    server = s;
    const bundle = writeRemoteBundle(server.url, { timeout_ms: 500, reconnect: { initial_ms: 100, max_ms: 400, give_up_s: 20 } });
    const out = mkdtempSync(join(tmpdir(), `engram-remote-${tag}-`));
    try {
      const summary = await body(bundle, out);
      await back;
      const events = readFileSync(join(out, "events.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
      if (process.env.DEBUG_REMOTE) console.log(events.filter((e) => e.event !== "tick").map((e) => JSON.stringify(e).slice(0, 220)).join("\n"));
      return { summary, events };
    } finally {
      rmSync(bundle, { recursive: true, force: true });
      rmSync(out, { recursive: true, force: true });
    }
  });
}

/** Episode 0 held and ended naming the cause, the client retried while the server was down, the later episodes ran to their limit. */
function assertRunWentOn(r: { summary: RunSummary; events: Array<Record<string, unknown>> }, episodes: number, steps: number): void {
  const { summary, events } = r;
  assert.equal(summary.aborted ?? null, null, "the run was not aborted");
  assert.equal(summary.episodes, episodes);
  const ends = events.filter((e) => e.event === "episode_end");
  assert.equal(ends.length, episodes);
  assert.equal(ends[0]!.outcome, "aborted");
  assert.match(String(ends[0]!.reason), /policy server ws:\/\/127\.0\.0\.1:\d+: server closed the connection/);
  assert.ok(events.some((e) => e.event === "safety_hold" && e.episode === 0 && /closed the connection/.test(String(e.details))), "episode 0 held, naming the cause");
  assert.ok(events.some((e) => e.event === "remote_connection" && e.what === "connect_failed" && e.episode === 1), "reconnect attempts while the server was down");
  for (const e of ends.slice(1)) assert.equal(e.steps, steps, `episode ran to its step limit: ${JSON.stringify(e)}`);
  assert.ok(events.some((e) => e.event === "remote_chunk" && e.episode === 1), "episode 1 got chunks from the server that came back");
}

test("remote server dies mid-episode and comes back: the run goes on to the next episodes", { timeout: 120_000 }, async () => {
  const run = loadRunConfig("launch/sim-x-one.yaml");
  assertRunWentOn(await withDyingServer("run", (bundle, out) => runTrial({
    run, robot: loadRobotProfile(run.robotPath), policyPath: bundle, task: "put-back-block",
    episodes: 3, seed: 5, outDir: out, maxSteps: 15, noRecord: true,
  })), 3, 15);
});

test("hardware trial path: the server dies mid-episode, the arm holds, the episode ends naming the cause, the next one runs once it is back", { timeout: 120_000 }, async () => {
  // The robot outside the trial: the twin in real time on the bus, as in test/trial/hardwareTrial.test.ts.
  const bus = new LocalBus();
  const run = loadRunConfig("launch/x-one.yaml");
  const robot = loadRobotProfile(run.robotPath);
  const node = await SimNode.create({ bus, robot, physicsHz: 240, controlHz: 10, log: () => {} });
  node.reset({ task: getTask("put-back-block"), seed: 3 });
  const resets = new SimResetServer({ bus, node, taskOf: getTask, log: () => {} });
  const stopSim = new AbortController();
  const sim = node.runRealtime(stopSim.signal, () => resets.poll());
  const judge = new SimJudge(bus, () => {});
  try {
    const r = await withDyingServer("hw", (bundle, out) => runHardwareTrial({
      run, robot, policyPath: bundle, task: "put-back-block", instruction: "press the button", subtasks: [],
      episodes: 2, seed: 5, outDir: out, bus, judge, maxSteps: 15, topicTimeoutMs: 20_000,
    }));
    assertRunWentOn(r, 2, 15);
    assert.equal(r.events.filter((e) => e.event === "episode_end")[1]!.outcome, "failure", "episode 1: the step limit, judged");
  } finally {
    judge.close();
    stopSim.abort();
    await sim;
    resets.close();
    node.close();
    await bus.close();
  }
});
