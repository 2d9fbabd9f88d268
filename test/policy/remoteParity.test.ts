/**
 * Parity across the wire (issue 13): a closed-loop twin episode where mem0-tiny is served by the
 * Python reference server (`python -m engram_ml serve`, torch, `mem0` protocol) and, on the very same
 * observations, run in process from its ONNX export (Mem0Policy). Same seed: every classifier logit
 * and every chunk agree within 1e-3. The weights are a tiny random init built by the test (the real
 * checkpoints are not in git); the server starts from the test.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { loadRunConfig } from "../../src/config/loaders.js";
import { loadMem0Policy, type Mem0Policy } from "../../src/policy/mem0/Mem0Policy.js";
import { loadRemotePolicy } from "../../src/policy/remote/definition.js";
import { startPolicyServer } from "../../src/policy/remote/localServer.js";
import { runEngramMl } from "../../src/policy/remote/python.js";
import type { ActionChunk, EpisodeInfo, ObserveResult, Policy, PreparedObservation } from "../../src/policy/types.js";
import { loadRobotProfile } from "../../src/robot/loadRobotProfile.js";
import { runTrial } from "../../src/app/runTrial.js";
import { pythonServerMissing, startTinyServer, type TinyServer } from "./pythonServer.js";
import { writeRemoteBundle } from "./remoteBundle.js";

const TOL = 1e-3;
const STEPS = 24; // 3 chunks of H=8
const missing = pythonServerMissing();

/** Drives the remote policy (what the loop sees) and the in-process one on the same calls, recording the gaps. */
class TeePolicy implements Policy {
  readonly logitGaps: number[] = [];
  readonly chunkGaps: number[] = [];
  constructor(private readonly remote: Policy, private readonly local: Mem0Policy) {}
  get spec() { return this.remote.spec; }
  async reset(e: EpisodeInfo): Promise<void> { await Promise.all([this.remote.reset(e), this.local.reset(e)]); }
  async resetSession(): Promise<void> { await Promise.all([this.remote.resetSession(), this.local.resetSession()]); }
  setInstruction(text: string): void { this.remote.setInstruction(text); this.local.setInstruction(text); }
  async observeDemonstration(frames: readonly PreparedObservation[]): Promise<void> {
    await Promise.all([this.remote.observeDemonstration(frames), this.local.observeDemonstration(frames)]);
  }
  async observe(obs: PreparedObservation): Promise<ObserveResult> {
    const [r, l] = await Promise.all([this.remote.observe(obs), this.local.observe(obs)]);
    this.logitGaps.push(Math.abs(r.logit - l.logit));
    assert.equal(r.subtaskEnded, l.subtaskEnded, "subtask end declared alike");
    return r;
  }
  async act(): Promise<ActionChunk> {
    const [r, l] = await Promise.all([this.remote.act(), this.local.act()]);
    assert.deepEqual(r.jointNames, l.jointNames);
    assert.equal(r.horizon, l.horizon);
    this.chunkGaps.push(Math.max(...r.actions.map((v, i) => Math.abs(v - l.actions[i]!))));
    return r;
  }
}

let server: TinyServer | null = null;
before(async () => { if (!missing) server = await startTinyServer(); });
after(async () => { await server?.stop(); });

test("mem0-tiny over the mem0 protocol = in-process ONNX, closed loop on the twin (1e-3)", { skip: missing ?? false, timeout: 180_000 }, async (t) => {
  const remoteBundle = writeRemoteBundle(server!.url, { latency: { prefetch: false, pipeline_observe: false } });
  const out = mkdtempSync(join(tmpdir(), "engram-remote-parity-"));
  const run = loadRunConfig("launch/sim-x-one.yaml");
  const robot = loadRobotProfile(run.robotPath);
  const local = await loadMem0Policy(server!.bundle, { robot: robot.profile });
  let tee: TeePolicy | null = null;
  try {
    const summary = await runTrial({
      run, robot, policyPath: remoteBundle, task: "put-back-block", episodes: 1, seed: 31, outDir: out, maxSteps: STEPS, noRecord: true,
      wrapPolicy: (remote) => (tee = new TeePolicy(remote, local)),
    });
    assert.equal(summary.aborted ?? null, null);
    const { logitGaps, chunkGaps } = tee!;
    t.diagnostic(`${logitGaps.length} observes, max logit gap ${Math.max(...logitGaps).toExponential(2)}; ${chunkGaps.length} chunks, max action gap ${Math.max(...chunkGaps).toExponential(2)}`);
    assert.equal(logitGaps.length, STEPS, "every tick observed over the wire");
    assert.ok(chunkGaps.length >= 3, `${chunkGaps.length} chunks`);
    for (const g of [...logitGaps, ...chunkGaps]) assert.ok(g <= TOL, `gap ${g} > ${TOL}`);
  } finally {
    await local.close();
    rmSync(remoteBundle, { recursive: true, force: true });
    rmSync(out, { recursive: true, force: true });
  }
});

test("openpi protocol: infer on the Python server returns a chunk in the robot's joint order", { skip: missing ?? false, timeout: 60_000 }, async () => {
  const bundle = writeRemoteBundle(server!.url, {
    protocol: "openpi",
    openpi: { images: { head: "observation/head", left_wrist: "observation/left_wrist", right_wrist: "observation/right_wrist" }, image_format: "float32_chw", state: [{ key: "observation/state", start: 0, length: 16 }] },
  });
  const robot = loadRobotProfile("robots/x-one.yaml").profile;
  const policy = loadRemotePolicy(bundle, { robot });
  try {
    await policy.reset({ task: "put-back-block", episode: 0, seed: 3, instruction: "press the button" });
    policy.setInstruction("press the button");
    const image = new Float32Array(3 * 24 * 32).map((_, i) => Math.sin(i) * 0.5);
    const observed = await policy.observe({ stampNs: 0n, images: { head: image, left_wrist: image, right_wrist: image }, state: new Float64Array(16) });
    assert.equal(observed.subtaskEnded, false);
    const chunk = await policy.act();
    assert.equal(chunk.horizon, 8);
    assert.deepEqual(chunk.jointNames, robot.joints.map((j) => j.name).filter((n) => chunk.jointNames.includes(n)));
    assert.ok(chunk.actions.every(Number.isFinite));
  } finally {
    await policy.close();
    rmSync(bundle, { recursive: true, force: true });
  }
});

test("a demonstration prompt over the mem0 protocol = in process: memory steps 0..n-1, then the same logits and chunk (1e-3)", { skip: missing ?? false, timeout: 60_000 }, async (t) => {
  const bundle = writeRemoteBundle(server!.url, { latency: { prefetch: false, pipeline_observe: false } });
  const robot = loadRobotProfile("robots/x-one.yaml").profile;
  const remote = loadRemotePolicy(bundle, { robot });
  const local = await loadMem0Policy(server!.bundle, { robot });
  const frame = (k: number): PreparedObservation => {
    const image = new Float32Array(3 * 24 * 32).map((_, i) => Math.sin(i * 0.1 + k));
    return { stampNs: BigInt(k) * 100_000_000n, images: { head: image, left_wrist: image, right_wrist: image }, state: new Float64Array(16).fill(0.01 * k) };
  };
  const demo = Array.from({ length: 6 }, (_, k) => frame(k));
  // M(n): no instruction before the prompt (both sides encode it with the pad tokens), then the planner's.
  const episode = { task: "put-back-block", episode: 0, seed: 5, instruction: "not in the vocabulary" };
  const firstTick = async (p: Policy, prompt: boolean) => {
    await p.reset(episode);
    if (prompt) await p.observeDemonstration(demo);
    p.setInstruction("press the button");
    return { observed: await p.observe(frame(9)), chunk: await p.act() };
  };
  try {
    const [r, l] = await Promise.all([firstTick(remote, true), firstTick(local, true)]);
    assert.ok(Math.abs(r.observed.logit - l.observed.logit) <= TOL, `logit ${r.observed.logit} vs ${l.observed.logit}`);
    assert.ok(r.chunk.actions.every((v, i) => Math.abs(v - l.chunk.actions[i]!) <= TOL));
    const bare = await firstTick(local, false);
    t.diagnostic(`prompted logit remote ${r.observed.logit} local ${l.observed.logit}; unprompted ${bare.observed.logit}`);
    assert.notEqual(bare.observed.logit, l.observed.logit, "the prompt is in the memory the first tick reads");
    await remote.reset(episode);
    remote.setInstruction("press the button");
    await remote.observe(frame(0));
    await assert.rejects(remote.observeDemonstration(demo), /observeDemonstration\(\) after the episode's step 1/);
  } finally {
    await remote.close();
    await local.close();
    rmSync(bundle, { recursive: true, force: true });
  }
});

test("token: the server refuses a client without the right Api-Key, and serves one with it", { skip: missing ?? false, timeout: 60_000 }, async () => {
  const guarded = await startTinyServer(["--token-env", "ENGRAM_TEST_POLICY_TOKEN"], { ENGRAM_TEST_POLICY_TOKEN: "s3cret" });
  const bundle = writeRemoteBundle(guarded.url, { token_env: "ENGRAM_TEST_POLICY_TOKEN", reconnect: { give_up_s: 0.2 } });
  const robot = loadRobotProfile("robots/x-one.yaml").profile;
  const episode = { task: "t", episode: 0, seed: 1, instruction: "press the button" };
  try {
    const wrong = loadRemotePolicy(bundle, { robot, env: { ENGRAM_TEST_POLICY_TOKEN: "guess" } });
    await assert.rejects(wrong.reset(episode), /HTTP 401 on the websocket upgrade \(token missing or wrong\)/);
    await wrong.close();
    assert.throws(() => loadRemotePolicy(bundle, { robot, env: {} }), /token_env: environment variable ENGRAM_TEST_POLICY_TOKEN is not set/);
    const right = loadRemotePolicy(bundle, { robot, env: { ENGRAM_TEST_POLICY_TOKEN: "s3cret" } });
    await right.reset(episode);
    await right.close();
  } finally {
    rmSync(bundle, { recursive: true, force: true });
    await guarded.stop();
  }
});

test("the shipped mem0-tiny, imported (engram_ml import-bundle) and served: same chunk as in process, flow noise scale included", { skip: missing ?? false, timeout: 120_000 }, async () => {
  // The shipped bundle samples its flow with flow_noise_scale 0; a server that fell back to 1 sent chunks 4e-2 rad away.
  const dir = mkdtempSync(join(tmpdir(), "engram-shipped-"));
  const imported = runEngramMl(["import-bundle", "policies/mem0-tiny", join(dir, "m.pt"), join(dir, "p.pt")]);
  assert.equal(imported.status, 0, imported.stderr);
  const shipped = await startPolicyServer(["--checkpoint", join(dir, "m.pt"), "--port", "0", "--threads", "1"]);
  const bundle = writeRemoteBundle(shipped.url, { image: { width: 128, height: 96, pixel_normalization: { mean: [0.5, 0.5, 0.5], std: [0.5, 0.5, 0.5] } } });
  const robot = loadRobotProfile("robots/x-one.yaml").profile;
  const remote = loadRemotePolicy(bundle, { robot });
  const local = await loadMem0Policy("policies/mem0-tiny", { robot });
  try {
    const episode = { task: "put-back-block", episode: 0, seed: 1000, instruction: "press the button", complexity: "M(1)" as const };
    await Promise.all([remote.reset(episode), local.reset(episode)]);
    remote.setInstruction(episode.instruction);
    local.setInstruction(episode.instruction);
    const image = new Float32Array(3 * 96 * 128).map((_, i) => Math.sin(i / 7) * 0.8);
    const obs = { stampNs: 0n, images: { head: image, left_wrist: image, right_wrist: image }, state: Float64Array.from({ length: 16 }, (_, i) => 0.1 * (i % 7)) };
    await Promise.all([remote.observe(obs), local.observe(obs)]);
    const [r, l] = await Promise.all([remote.act(), local.act()]);
    const gap = Math.max(...r.actions.map((v, i) => Math.abs(v - l.actions[i]!)));
    assert.ok(gap <= TOL, `chunk gap ${gap} > ${TOL}`);
  } finally {
    await Promise.all([remote.close(), local.close()]);
    await shipped.stop();
    rmSync(bundle, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  }
});

test("server start-up errors name the checkpoint: missing file, or a file that is not a mem0-tiny checkpoint", { skip: missing ?? false, timeout: 60_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), "engram-badckpt-"));
  try {
    const start = (ckpt: string) => runEngramMl(["serve", "--checkpoint", ckpt, "--port", "0"]);
    const gone = start(join(dir, "nope.pt"));
    assert.notEqual(gone.status, 0);
    assert.match(gone.stderr, /--checkpoint .*nope\.pt: no such file/);
    writeFileSync(join(dir, "junk.pt"), Buffer.from("not a torch file"));
    const junk = start(join(dir, "junk.pt"));
    assert.notEqual(junk.status, 0);
    assert.match(junk.stderr, /--checkpoint .*junk\.pt is not a mem0-tiny checkpoint/);
    assert.doesNotMatch(junk.stderr, /Traceback/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
