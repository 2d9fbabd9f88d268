/** ORT outputs of a freshly built tiny bundle vs the plain-TS reference of the same math (1e-4). */
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openMem0Bundle, closeMem0Bundle, type Mem0Bundle } from "../../src/policy/mem0/bundle.js";
import { writeTestBundle, type TinyWeights } from "../../src/policy/mem0/testBundle.js";
import { mulberry32 } from "../../src/policy/mem0/flowSampler.js";
import { f32, i64 } from "../../src/policy/mem0/ortSession.js";
import { maxAbsDiff, refActionHead, refClassifier, refEncoder, refMemory } from "./reference.js";

let dir: string;
let w: TinyWeights;
let bundle: Mem0Bundle;
const rand = mulberry32(99);
const randArray = (n: number, scale = 1) => Float32Array.from({ length: n }, () => (2 * rand() - 1) * scale);

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "engram-ref-"));
  w = writeTestBundle(dir, { seed: 11 });
  bundle = await openMem0Bundle(dir);
});
after(async () => {
  await closeMem0Bundle(bundle);
  rmSync(dir, { recursive: true, force: true });
});

const run = async (key: "encoder" | "memory" | "classifier" | "action_head", feeds: Record<string, import("onnxruntime-node").Tensor>) =>
  bundle.sessions[key].session.run(feeds);

test("encoder matches the reference", async () => {
  const { cameras, height, width, stateDim, maxTokens } = w.dims;
  const images = randArray(cameras.length * 3 * height * width);
  const state = randArray(stateDim, 2);
  const tokens = new BigInt64Array(maxTokens);
  tokens.set([1n, 2n, 3n, 7n]);
  const out = await run("encoder", { images: f32(images, [1, cameras.length, 3, height, width]), state: f32(state, [1, stateDim]), tokens: i64(tokens, [1, maxTokens]) });
  const ref = refEncoder(w, images, state, tokens);
  assert.ok(maxAbsDiff(out.image_feature.data as Float32Array, ref.imageFeature) < 1e-4);
  assert.ok(maxAbsDiff(out.text_feature.data as Float32Array, ref.textFeature) < 1e-4);
});

for (const [label, anchorMask, windowMask] of [
  ["full memory", 1, [1, 1, 1, 1]], ["partial window", 1, [1, 1, 0, 0]], ["no anchor, empty window", 0, [0, 0, 0, 0]],
] as const) {
  test(`memory + classifier match the reference (${label})`, async () => {
    const { featureDim: F, window: K, summaryTokens: T } = w.dims;
    const current = randArray(F), win = randArray(K * F), anchor = randArray(F), text = randArray(F);
    const wm = Float32Array.from(windowMask);
    const out = await run("memory", {
      current: f32(current, [1, F]), window: f32(win, [1, K, F]), window_mask: f32(wm, [1, K]),
      anchor: f32(anchor, [1, 1, F]), anchor_mask: f32(Float32Array.of(anchorMask), [1, 1]), text: f32(text, [1, F]),
    });
    const summary = out.summary.data as Float32Array;
    assert.ok(maxAbsDiff(summary, refMemory(w, current, win, wm, anchor, anchorMask, text)) < 1e-4);
    const logit = (await run("classifier", { summary: f32(summary, [1, T, F]) })).logit.data as Float32Array;
    assert.ok(Math.abs(logit[0] - refClassifier(w, summary)) < 1e-4);
  });
}

test("masked memory slots have no effect on the summary", async () => {
  const { featureDim: F, window: K } = w.dims;
  const current = randArray(F), text = randArray(F), win = randArray(K * F);
  const feeds = (anchor: Float32Array, winData: Float32Array) => ({
    current: f32(current, [1, F]), window: f32(winData, [1, K, F]), window_mask: f32(Float32Array.of(1, 0, 0, 0), [1, K]),
    anchor: f32(anchor, [1, 1, F]), anchor_mask: f32(Float32Array.of(0), [1, 1]), text: f32(text, [1, F]),
  });
  const a = (await run("memory", feeds(randArray(F), win))).summary.data as Float32Array;
  const win2 = Float32Array.from(win);
  win2.fill(5, F); // change only masked slots
  const b = (await run("memory", feeds(randArray(F), win2))).summary.data as Float32Array;
  assert.ok(maxAbsDiff(a, b) < 1e-6);
});

test("action head matches the reference", async () => {
  const { horizon: H, actionDim: A, stateDim: S, featureDim: F, summaryTokens: T } = w.dims;
  const noisy = randArray(H * A), state = randArray(S), summary = randArray(T * F);
  for (const tau of [0, 0.25, 0.75]) {
    const out = await run("action_head", { noisy_actions: f32(noisy, [1, H, A]), tau: f32(Float32Array.of(tau), [1, 1]), state: f32(state, [1, S]), summary: f32(summary, [1, T, F]) });
    assert.ok(maxAbsDiff(out.velocity.data as Float32Array, refActionHead(w, noisy, tau, state, summary)) < 1e-4, `tau=${tau}`);
  }
});
