/** Mem0Policy end to end on ORT against the plain-TS reference: memory semantics, debounce, ablations, flow chunks, layout. */
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadMem0Policy, mem0MemorySpec, type Mem0Event, type Mem0Options } from "../../src/policy/mem0/Mem0Policy.js";
import { oracleDetector } from "../../src/policy/mem0/endDetector.js";
import { writeTestBundle, type TinyWeights } from "../../src/policy/mem0/testBundle.js";
import { BIMANUAL_16D } from "../../src/policy/mem0/layout.js";
import { chunkSeed, gaussianNoise, mulberry32 } from "../../src/policy/mem0/flowSampler.js";
import { denormalizeRows, normalize, type NormStats } from "../../src/policy/mem0/normalization.js";
import { tokenize } from "../../src/policy/mem0/tokenizer.js";
import { frameSamplingIndices } from "../../src/memory/index.js";
import { readManifest, type PolicyManifest } from "../../src/policy/mem0/manifest.js";
import type { PreparedObservation } from "../../src/policy/types.js";
import type { RobotProfile } from "../../src/robot/types.js";
import { maxAbsDiff, refActionHead, refClassifier, refEncoder, refMemory } from "./reference.js";

let root: string;
let w: TinyWeights;          // classifier biased to "ended" (+8): a switch every switch_count ticks
let m: PolicyManifest;
const INSTR = "pick up the block and place it at the center";

before(() => {
  root = mkdtempSync(join(tmpdir(), "engram-mem0-"));
  w = writeTestBundle(join(root, "pos"), { seed: 5, classifierBias: 8 });
  m = readManifest(join(root, "pos", "policy.yaml")).manifest;
});
after(() => rmSync(root, { recursive: true, force: true }));

const rand = mulberry32(1234);
function observation(): PreparedObservation {
  const n = 3 * w.dims.height * w.dims.width;
  const img = () => Float32Array.from({ length: n }, () => 2 * rand() - 1);
  return { stampNs: 0n, images: { head: img(), left_wrist: img(), right_wrist: img() }, state: Float64Array.from({ length: 16 }, () => rand() - 0.5) };
}

async function policy(extra: Partial<Mem0Options> = {}) {
  const events: Mem0Event[] = [];
  const p = await loadMem0Policy(join(root, "pos"), { actionJointNames: BIMANUAL_16D, onEvent: (e) => events.push(e), ...extra });
  await p.reset({ task: "t", episode: 0, seed: 42, instruction: INSTR });
  return { p, events };
}

/**
 * Reference Mem-0 observe loop: anchor = first feature after reset/switch, window = previous K
 * features; `prompt` frames (a demonstration) are written first, with no classifier.
 */
function referenceLogits(obs: PreparedObservation[], ends: boolean[], opts: { anchor: boolean; window: boolean }, prompt: PreparedObservation[] = []): number[] {
  const F = w.dims.featureDim, K = w.dims.window;
  const tokens = tokenize(INSTR, { kind: "closed_vocabulary", maxLength: m.tokenizer.max_length, padId: 0, vocabulary: m.tokenizer.vocabulary });
  const encode = (o: PreparedObservation) => {
    const images = new Float32Array([...o.images.head, ...o.images.left_wrist, ...o.images.right_wrist]);
    return refEncoder(w, images, normalize(o.state, m.normalization.state as NormStats), tokens);
  };
  let anchor: Float64Array | null = null;
  let window: Float64Array[] = [];
  for (const o of prompt) {
    const f = encode(o).imageFeature;
    anchor ??= f;
    window = [...window, f].slice(-K);
  }
  return obs.map((o, t) => {
    const enc = encode(o);
    if (!anchor) anchor = enc.imageFeature;
    const win = new Float64Array(K * F), mask = new Float64Array(K);
    if (opts.window) window.forEach((f, i) => { win.set(f, i * F); mask[i] = 1; });
    const summary = refMemory(w, enc.imageFeature, win, mask, opts.anchor ? anchor : new Float64Array(F), opts.anchor ? 1 : 0, enc.textFeature);
    window = [...window, enc.imageFeature].slice(-K);
    if (ends[t]) { anchor = null; window = []; }
    return refClassifier(w, summary);
  });
}

test("observe: logits match the reference; anchor fixed, window of K, memory cleared on each declared end", async () => {
  const { p, events } = await policy();
  const obs = Array.from({ length: 8 }, observation);
  const results = [];
  for (const o of obs) results.push(await p.observe(o));
  const ended = results.map((r) => r.subtaskEnded);
  assert.deepEqual(ended, [false, false, true, false, false, true, false, false], "switch_count=3 with every tick positive");
  const ref = referenceLogits(obs, ended, { anchor: true, window: true });
  assert.ok(maxAbsDiff(results.map((r) => r.logit), ref) < 1e-4);
  const summary = events.map((e) => (e.kind === "memory" ? `${e.step}:${e.op.kind}` : `${e.step}:end:${e.source}`));
  assert.deepEqual(summary, ["0:anchor_set", "2:end:classifier", "2:window_clear", "3:anchor_set", "5:end:classifier", "5:window_clear", "6:anchor_set"]);
  const clear = events.find((e) => e.kind === "memory" && e.op.kind === "window_clear");
  assert.deepEqual(clear && clear.kind === "memory" && clear.op, { kind: "window_clear", dropped: 3, anchorCleared: true });
  await p.close();
});

test("a demonstration prompt: memory steps 0..n-1 with no classifier, then the ticks read it (reference logits)", async () => {
  const { p, events } = await policy();
  const prompt = Array.from({ length: 3 }, observation);
  const obs = Array.from({ length: 4 }, observation);
  await p.observeDemonstration(prompt);
  const results = [];
  for (const o of obs) results.push(await p.observe(o));
  const ended = results.map((r) => r.subtaskEnded);
  assert.deepEqual(ended, [false, false, true, false], "the debounce counts the episode's ticks only");
  const ref = referenceLogits(obs, ended, { anchor: true, window: true }, prompt);
  assert.ok(maxAbsDiff(results.map((r) => r.logit), ref) < 1e-4);
  assert.ok(maxAbsDiff(results.map((r) => r.logit), referenceLogits(obs, ended, { anchor: true, window: true })) > 1e-4);
  const summary = events.map((e) => (e.kind === "memory" ? `${e.step}:${e.op.kind}` : `${e.step}:end:${e.source}`));
  assert.deepEqual(summary, ["0:anchor_set", "5:end:classifier", "5:window_clear", "6:anchor_set"]);
  await assert.rejects(p.observeDemonstration(prompt), /observeDemonstration\(\) after the episode's step 7/);
  await p.close();
});

test("M(1): a declared end keeps the memory (one instruction segment spans the episode, as in training)", async () => {
  const { p, events } = await policy();
  await p.reset({ task: "t", episode: 0, seed: 42, instruction: INSTR, complexity: "M(1)" });
  const obs = Array.from({ length: 8 }, observation);
  const results = [];
  for (const o of obs) results.push(await p.observe(o));
  assert.deepEqual(results.map((r) => r.subtaskEnded), [false, false, true, false, false, true, false, false], "ends are still declared");
  assert.ok(maxAbsDiff(results.map((r) => r.logit), referenceLogits(obs, obs.map(() => false), { anchor: true, window: true })) < 1e-4);
  const summary = events.map((e) => (e.kind === "memory" ? `${e.step}:${e.op.kind}` : `${e.step}:end:${e.source}`));
  assert.deepEqual(summary, ["0:anchor_set", "2:end:classifier", "5:end:classifier"]);
  await p.close();
});

test("manifest classifier.rearm: a classifier positive on every tick declares one end, not one every switch_count ticks", async () => {
  cpSync(join(root, "pos"), join(root, "rearm"), { recursive: true });
  const yaml = join(root, "rearm", "policy.yaml");
  const text = readFileSync(yaml, "utf8");
  assert.match(text, /^ *switch_count: 3$/m);
  writeFileSync(yaml, text.replace(/^( *)switch_count: 3$/m, "$1switch_count: 3\n$1rearm: true"));
  const p = await loadMem0Policy(join(root, "rearm"), { actionJointNames: BIMANUAL_16D });
  await p.reset({ task: "t", episode: 0, seed: 42, instruction: INSTR });
  const ended = [];
  for (let t = 0; t < 8; t++) ended.push((await p.observe(observation())).subtaskEnded);
  assert.deepEqual(ended, [false, false, true, false, false, false, false, false]);
  await p.close();
});

test("action_reference state: the chunk is offsets added to the observed state", async () => {
  cpSync(join(root, "pos"), join(root, "rel"), { recursive: true });
  appendFileSync(join(root, "rel", "policy.yaml"), "action_reference: state\n");
  const o = observation();
  const chunks = [];
  for (const dir of ["pos", "rel"]) {
    const p = await loadMem0Policy(join(root, dir), { actionJointNames: BIMANUAL_16D });
    await p.reset({ task: "t", episode: 0, seed: 42, instruction: INSTR });
    await p.observe(o);
    chunks.push((await p.act()).actions);
    await p.close();
  }
  const [absolute, relative] = chunks as [ArrayLike<number>, ArrayLike<number>];
  const expected = Array.from(absolute, (a, i) => a + o.state[i % 16]!);
  assert.ok(maxAbsDiff(relative, expected) < 1e-9, `max diff ${maxAbsDiff(relative, expected)}`);
});

test("flow_noise_scale 0: the sampler starts at the noise mean, so the chunk no longer depends on the seed", async () => {
  cpSync(join(root, "pos"), join(root, "calm"), { recursive: true });
  appendFileSync(join(root, "calm", "policy.yaml"), "flow_noise_scale: 0\n");
  const o = observation();
  const chunks = [];
  for (const [dir, seed] of [["calm", 1], ["calm", 2], ["pos", 1]] as const) {
    const p = await loadMem0Policy(join(root, dir), { actionJointNames: BIMANUAL_16D });
    await p.reset({ task: "t", episode: 0, seed, instruction: INSTR });
    await p.observe(o);
    chunks.push((await p.act()).actions);
    await p.close();
  }
  assert.deepEqual(chunks[0], chunks[1]);
  assert.notDeepEqual(chunks[0], chunks[2]);
});

test("ablations: no anchor / no window change the memory inputs exactly as the reference says", async () => {
  const { p, events } = await policy({ ablation: { anchor: false, slidingWindow: false }, endDetector: oracleDetector() });
  const obs = Array.from({ length: 5 }, observation);
  const logits = [];
  for (const o of obs) logits.push((await p.observe(o)).logit);
  assert.ok(maxAbsDiff(logits, referenceLogits(obs, obs.map(() => false), { anchor: false, window: false })) < 1e-4);
  assert.equal(events.length, 0, "no anchor set, and the oracle declared nothing although every logit is positive");
  await p.close();
});

test("mem0MemorySpec: window from the manifest; the run's anchor switch overrides the manifest's; window on by default", () => {
  const memory = { window: 4, anchor: false, feature_dim: 8, summary_tokens: 3 };
  assert.deepEqual(mem0MemorySpec(memory), { kind: "mem0", window: 4, anchor: false, sliding: true });
  assert.deepEqual(mem0MemorySpec({ ...memory, anchor: true }, {}), { kind: "mem0", window: 4, anchor: true, sliding: true });
  assert.deepEqual(mem0MemorySpec(memory, { anchor: true, slidingWindow: false }), { kind: "mem0", window: 4, anchor: true, sliding: false });
});

test("memory framesamp: memory.onnx reads frame sampling over the whole history, no anchor; ends clear nothing", async () => {
  const { p, events } = await policy({ memory: { strategy: "framesamp" } });
  const K = w.dims.window, F = w.dims.featureDim;
  const obs = Array.from({ length: 3 * K + 2 }, observation);
  const logits: number[] = [];
  const ends: boolean[] = [];
  for (const o of obs) {
    const r = await p.observe(o);
    logits.push(r.logit);
    ends.push(r.subtaskEnded);
  }
  assert.ok(ends.some(Boolean), "the classifier declared ends (every tick positive)");
  const tokens = tokenize(INSTR, { kind: "closed_vocabulary", maxLength: m.tokenizer.max_length, padId: 0, vocabulary: m.tokenizer.vocabulary });
  const encoded = obs.map((o) => refEncoder(w, new Float32Array([...o.images.head, ...o.images.left_wrist, ...o.images.right_wrist]),
    normalize(o.state, m.normalization.state as NormStats), tokens));
  const ref = encoded.map((enc, t) => {
    const win = new Float64Array(K * F), mask = new Float64Array(K);
    frameSamplingIndices(t, K).forEach((h, i) => { win.set(encoded[h]!.imageFeature, i * F); mask[i] = 1; });
    return refClassifier(w, refMemory(w, enc.imageFeature, win, mask, new Float64Array(F), 0, enc.textFeature));
  });
  assert.ok(maxAbsDiff(logits, ref) < 1e-4);
  assert.deepEqual(events.filter((e) => e.kind === "memory"), [], "no anchor set, no clear at a declared end");
  await p.close();
});

test("memory none: every memory input masked (the no-history baseline)", async () => {
  const { p } = await policy({ memory: { strategy: "none" }, endDetector: oracleDetector() });
  const obs = Array.from({ length: 4 }, observation);
  const logits = [];
  for (const o of obs) logits.push((await p.observe(o)).logit);
  assert.ok(maxAbsDiff(logits, referenceLogits(obs, obs.map(() => false), { anchor: false, window: false })) < 1e-4);
  await p.close();
});

test("mem0MemorySpec: the run's memory choice over the manifest's strategy; a frame count or tokens memory.onnx cannot read is refused", () => {
  const memory = { window: 4, anchor: true, feature_dim: 8, summary_tokens: 3 };
  assert.deepEqual(mem0MemorySpec({ ...memory, strategy: "framesamp" }), { kind: "framesamp", frames: 4 });
  assert.deepEqual(mem0MemorySpec(memory, {}, { strategy: "none" }), { kind: "none" });
  assert.deepEqual(mem0MemorySpec({ ...memory, strategy: "framesamp" }, {}, { strategy: "mem0" }).kind, "mem0");
  assert.throws(() => mem0MemorySpec(memory, {}, { strategy: "framesamp", frames: 32 }, "p/policy.yaml"),
    /memory\.frames 32: p\/policy\.yaml memory\.onnx reads memory\.window K=4 frames/);
  assert.deepEqual(mem0MemorySpec(memory, {}, { strategy: "retrieval", inner: "framesamp", drop: 6 }),
    { kind: "retrieval", inner: { kind: "framesamp", frames: 4 }, drop: 6 });
  assert.throws(() => mem0MemorySpec(memory, {}, { strategy: "tokendrop", budget: 512, stride: 8, kept: 2048, grid: 8 }),
    /memory\.strategy tokendrop: .* not patch tokens/);
});

test("resetSession clears the memory: the next tick sets a new anchor", async () => {
  const { p, events } = await policy({ endDetector: oracleDetector() });
  for (let t = 0; t < 3; t++) await p.observe(observation());
  await p.resetSession();
  await p.observe(observation());
  assert.deepEqual(events.map((e) => (e.kind === "memory" ? `${e.step}:${e.op.kind}` : e.kind)), ["0:anchor_set", "3:anchor_set"]);
  await p.close();
});

test("oracle classifier: a subtask end exactly on the tick after the oracle detector's signalEnd()", async () => {
  const oracle = oracleDetector();
  const { p, events } = await policy({ endDetector: oracle });
  const ends = [];
  for (let t = 0; t < 6; t++) {
    if (t === 3) oracle.signalEnd();
    ends.push((await p.observe(observation())).subtaskEnded);
  }
  assert.deepEqual(ends, [false, false, false, true, false, false]);
  assert.ok(events.some((e) => e.kind === "subtask_end" && e.source === "oracle" && e.step === 3));
  await p.close();
});

test("act: chunk = reference flow (seeded noise, N Euler steps, denormalized); same seed → same chunk", async () => {
  const { p } = await policy();
  const o = observation();
  await p.observe(o);
  const c0 = await p.act();
  const c1 = await p.act();
  assert.equal(c0.horizon, 8);
  assert.equal(c0.dim, 16);
  assert.deepEqual(c0.jointNames, BIMANUAL_16D);
  assert.notDeepEqual(c0.actions, c1.actions, "next chunk index → new noise");

  // Reference: recompute the summary the policy used, then integrate with the reference head.
  const F = w.dims.featureDim, K = w.dims.window;
  const tokens = tokenize(INSTR, { kind: "closed_vocabulary", maxLength: m.tokenizer.max_length, padId: 0, vocabulary: m.tokenizer.vocabulary });
  const state = normalize(o.state, m.normalization.state as NormStats);
  const enc = refEncoder(w, new Float32Array([...o.images.head, ...o.images.left_wrist, ...o.images.right_wrist]), state, tokens);
  const summary = refMemory(w, enc.imageFeature, new Float64Array(K * F), new Float64Array(K), enc.imageFeature, 1, enc.textFeature);
  let x = Float64Array.from(gaussianNoise(8 * 16, chunkSeed(42, 0)));
  for (let k = 0; k < m.flow_steps; k++) {
    const v = refActionHead(w, x, k / m.flow_steps, state, summary);
    x = x.map((xi, i) => xi + v[i] / m.flow_steps);
  }
  const ref = denormalizeRows(x, 16, m.normalization.action as NormStats);
  assert.ok(maxAbsDiff(c0.actions, ref) < 1e-3, `max diff ${maxAbsDiff(c0.actions, ref)}`);

  await p.reset({ task: "t", episode: 1, seed: 42, instruction: INSTR });
  await p.observe(o);
  assert.deepEqual((await p.act()).actions, c0.actions, "same seed, same observation → same chunk");
  await p.reset({ task: "t", episode: 1, seed: 43, instruction: INSTR });
  await p.observe(o);
  assert.notDeepEqual((await p.act()).actions, c0.actions);
  await p.close();
});

test("act maps the chunk into the robot's joint order", async () => {
  const order = [...BIMANUAL_16D.slice(8), ...BIMANUAL_16D.slice(0, 8)]; // robot lists the right arm first
  const robot = { name: "x-one", joints: order.map((name) => ({ name })), layouts: { bimanual_16d: { kind: "joint", names: BIMANUAL_16D } } } as unknown as RobotProfile;
  const a = await policy();
  const b = await policy({ robot, actionJointNames: undefined });
  const o = observation();
  await a.p.observe(o);
  await b.p.observe(o);
  const ca = await a.p.act(), cb = await b.p.act();
  assert.deepEqual(cb.jointNames, order);
  for (let r = 0; r < 8; r++) for (let j = 0; j < 16; j++) assert.equal(cb.actions[r * 16 + j], ca.actions[r * 16 + BIMANUAL_16D.indexOf(order[j])]);
  await a.p.close();
  await b.p.close();
});

test("bad inputs are rejected with what and where", async () => {
  const { p } = await policy();
  const o = observation();
  await assert.rejects(p.act(), /act\(\) before observe\(\)/);
  await assert.rejects(p.observe({ ...o, images: { head: o.images.head, left_wrist: o.images.left_wrist } }), /no image for camera "right_wrist" \(has: head, left_wrist\)/);
  await assert.rejects(p.observe({ ...o, state: new Float64Array(8) }), /state has 8 values, expected 16 \(layout bimanual_16d\)/);
  assert.throws(() => p.setInstruction("dance"), /policy\.yaml: tokenizer: instruction "dance" is not in the closed vocabulary; known: "Move the block to the center, press the button, then put the block back on the mat it started on\."/);
  await p.reset({ task: "t", episode: 0, seed: 1, instruction: "a global task outside the vocabulary" });
  await assert.rejects(p.observe(o), /before an instruction was set/);
  // M(1) runs on its global instruction: one the tokenizer cannot take fails at reset, naming it.
  await assert.rejects(p.reset({ task: "t", episode: 0, seed: 1, instruction: "a global task outside the vocabulary", complexity: "M(1)" }),
    /tokenizer: instruction "a global task outside the vocabulary" is not in the closed vocabulary/);
  p.setInstruction("Press the button.");
  assert.equal(typeof (await p.observe(o)).logit, "number");
  await p.close();
  await assert.rejects(loadMem0Policy(join(root, "pos")), /needs a robot profile or actionJointNames/);
});

test("provider cuda: runs on CUDA where available, else falls back to CPU with one log line", async () => {
  const lines: string[] = [];
  const a = await policy({ provider: "cuda", log: (l) => lines.push(l) });
  const b = await policy({ provider: "cuda", log: (l) => lines.push(l) });
  if (a.p.provider === "cpu") {
    assert.equal(lines.length, 1, "logged once per process (each test file runs in its own process)");
    assert.match(lines[0], /CUDA execution provider unavailable .*running ONNX models on CPU/);
  }
  assert.equal(b.p.provider, a.p.provider);
  const o = observation();
  assert.equal(typeof (await b.p.observe(o)).logit, "number");
  await a.p.close();
  await b.p.close();
});
