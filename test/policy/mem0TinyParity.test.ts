/**
 * policies/mem0-tiny (trained in PyTorch, training/mem0_tiny/) on onnxruntime-node against the values
 * torch computed at export (parity.json, written by `python -m engram_ml export`): each model file on
 * its own, then the whole Mem0Policy observe/observe/observe/act path (anchor, window, flow sampling
 * from the runtime's seeded noise, denormalization), memory as the manifest's strategy reads it
 * (mem0, framesamp, tokendrop, none). Tolerance 1e-4. Runs for the shipped bundles and their ablation variants
 * (policies/mem0-tiny, policies/framesamp-tiny-unmask: a Franka bundle), or for MEM0_TINY_BUNDLE alone.
 */
import { describe, test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { loadMem0Policy, type Mem0Policy } from "../../src/policy/mem0/Mem0Policy.js";
import { closeMem0Bundle, mem0BundleIssues, openMem0Bundle, type Mem0Bundle } from "../../src/policy/mem0/bundle.js";
import { frameSamplingIndices } from "../../src/memory/frameSampling.js";
import { TokenDropMemory } from "../../src/memory/TokenDropMemory.js";
import { getLayout } from "../../src/robot/layout.js";
import { loadRobotProfile } from "../../src/robot/loadRobotProfile.js";
import { normalize } from "../../src/policy/mem0/normalization.js";
import { tokenize } from "../../src/policy/mem0/tokenizer.js";
import { f32, i64 } from "../../src/policy/mem0/ortSession.js";
import type { PolicyManifest } from "../../src/policy/mem0/manifest.js";

const BUNDLES = process.env.MEM0_TINY_BUNDLE
  ? [process.env.MEM0_TINY_BUNDLE]
  : [
    "policies/mem0-tiny", "policies/mem0-tiny/ablations/no-anchor", "policies/mem0-tiny/ablations/no-window",
    "policies/framesamp-tiny-unmask", "policies/framesamp-tiny-unmask/ablations/no-history",
    "policies/framesamp-tiny-unmask/ablations/mem0", "policies/framesamp-tiny-unmask/ablations/tokendrop",
    "policies/framesamp-tiny-move", "policies/framesamp-tiny-move/ablations/no-history",
    "policies/framesamp-tiny-move/ablations/mem0", "policies/framesamp-tiny-move/ablations/tokendrop",
    "policies/framesamp-tiny-order", "policies/framesamp-tiny-order/ablations/no-history",
    "policies/framesamp-tiny-order/ablations/tokendrop", "policies/framesamp-tiny-order/ablations/mem0",
    "policies/mem0-tiny-mn", "policies/mem0-tiny-mn-press-button", "policies/mem0-tiny-mn-cover-blocks",
    "policies/mem0-tiny-mn-blocks-ranking-try", "policies/mem0-tiny-mn-battery-try",
  ];
const TOL = 1e-4;

interface ParityStep { state: number[]; image_feature: number[]; text_feature: number[]; summary: number[]; logit: number }
interface Parity { instruction: string; seed: number; steps: ParityStep[]; chunk: number[] }

for (const BUNDLE of BUNDLES) describe(BUNDLE, () => {
  const present = existsSync(join(BUNDLE, "parity.json"));
  const skip = present ? false : `${BUNDLE}/parity.json absent: export a bundle with python -m engram_ml export`;
  let parity: Parity;
  let bundle: Mem0Bundle;
  let m: PolicyManifest;

  before(async () => {
    if (!present) return;
    parity = JSON.parse(readFileSync(join(BUNDLE, "parity.json"), "utf8")) as Parity;
    bundle = await openMem0Bundle(BUNDLE, { log: () => {} });
    m = bundle.loaded.manifest;
  });
  after(async () => { if (bundle) await closeMem0Bundle(bundle); });

  /** The deterministic inputs export.py used (its `parity_images` / `parity_state`). */
  function images(step: number): Float32Array {
    const n = m.cameras.length * 3 * m.image.height * m.image.width;
    return Float32Array.from({ length: n }, (_, i) => Math.sin(0.37 * i + 1.3 * step) * 0.9);
  }

  function assertClose(actual: ArrayLike<number>, expected: number[], what: string): void {
    assert.equal(actual.length, expected.length, `${what}: ${actual.length} values, torch gave ${expected.length}`);
    let worst = 0, at = 0;
    for (let i = 0; i < expected.length; i++) {
      const d = Math.abs(actual[i]! - expected[i]!);
      if (!(d <= worst)) { worst = d; at = i; }
    }
    assert.ok(worst <= TOL, `${what}: |ort - torch| = ${worst} at [${at}] (ort ${actual[at]}, torch ${expected[at]}), tolerance ${TOL}`);
  }

  async function run(key: keyof PolicyManifest["models"], feeds: Record<string, import("onnxruntime-node").Tensor>) {
    const out = await bundle.sessions[key].session.run(feeds);
    return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, v.data as Float32Array]));
  }

  test("the bundle passes engram check (manifest schema, ONNX inputs/outputs)", { skip }, async () => {
    assert.deepEqual(await mem0BundleIssues(BUNDLE), []);
  });

  test("each ONNX file matches torch on the export's inputs", { skip }, async () => {
    const F = m.memory.feature_dim, K = m.memory.window, T = m.memory.summary_tokens;
    const td = m.memory.tokendrop;
    const tokenDrop = td && new TokenDropMemory({ budget: K, stride: td.stride, kept: td.kept, grid: td.grid });
    /** Memory from torch's own features: anchor = step 0 (when the manifest keeps it), window = what the
     * strategy reads (mem0: the K steps before; framesamp: K of all steps so far, this one included; none: none). */
    const frameMemory = (s: number, step: ParityStep) => {
      const window = new Float32Array(K * F), windowMask = new Float32Array(K);
      const strategy = m.memory.strategy ?? "mem0";
      const read = strategy === "mem0" ? parity.steps.slice(Math.max(0, s - K), s)
        : strategy === "framesamp" ? frameSamplingIndices(s, K).map((i) => parity.steps[i]!) : [];
      read.forEach((p, j) => { window.set(p.image_feature, j * F); windowMask[j] = 1; });
      const anchor = m.memory.anchor ? Float32Array.from(parity.steps[0]!.image_feature) : new Float32Array(F);
      return run("memory", {
        current: f32(Float32Array.from(step.image_feature), [1, F]), window: f32(window, [1, K, F]), window_mask: f32(windowMask, [1, K]),
        anchor: f32(anchor, [1, 1, F]), anchor_mask: f32(Float32Array.of(m.memory.anchor ? 1 : 0), [1, 1]), text: f32(Float32Array.from(step.text_feature), [1, F]),
      });
    };
    /** TokenDrop's read of the parity images' scored cameras so far (this runtime's rule; torch's was Python's). */
    const tokenMemory = (s: number, step: ParityStep, memory: TokenDropMemory) => {
      const plane = 3 * m.image.height * m.image.width, all = images(s);
      const views = td!.cameras.map((cam) => {
        const c = m.cameras.indexOf(cam);
        return { width: m.image.width, height: m.image.height, channels: 3, data: all.slice(c * plane, (c + 1) * plane) };
      });
      memory.write(new Float32Array(F), s, { stampNs: BigInt(s), views });
      const { features, positions, mask, dim } = memory.inputs().tokens!;
      return run("memory", {
        current: f32(Float32Array.from(step.image_feature), [1, F]), token_pixels: f32(features, [1, K, dim]),
        token_positions: f32(Float32Array.from(positions), [1, K, 3]), token_mask: f32(mask, [1, K]),
        step: f32(Float32Array.of(s), [1, 1]), text: f32(Float32Array.from(step.text_feature), [1, F]),
      });
    };
    const tok = tokenize(parity.instruction, { kind: "closed_vocabulary", maxLength: m.tokenizer.max_length, padId: m.tokenizer.pad_id, vocabulary: m.tokenizer.vocabulary });
    for (const [s, step] of parity.steps.entries()) {
      const state = normalize(step.state, m.normalization.state);
      const enc = await run("encoder", {
        images: f32(images(s), [1, m.cameras.length, 3, m.image.height, m.image.width]), state: f32(state, [1, m.state_dim]), tokens: i64(tok, [1, m.tokenizer.max_length]),
      });
      assertClose(enc.image_feature!, step.image_feature, `encoder image_feature step ${s}`);
      assertClose(enc.text_feature!, step.text_feature, `encoder text_feature step ${s}`);
      const mem = tokenDrop ? await tokenMemory(s, step, tokenDrop) : await frameMemory(s, step);
      assertClose(mem.summary!, step.summary, `memory summary step ${s}`);
      const summary = f32(Float32Array.from(step.summary), [1, T, F]);
      const cls = await run("classifier", m.models.classifier.inputs.state
        ? { summary, state: f32(state, [1, m.state_dim]) } : { summary });
      assertClose(cls.logit!, [step.logit], `classifier logit step ${s}`);
    }
  });

  test("Mem0Policy on the bundle reproduces torch's logits and action chunk", { skip }, async () => {
    let policy: Mem0Policy | null = null;
    try {
      // The shipped robot whose profile has the layout the bundle names (the X-One's bimanual_16d, the Franka's joint_8d).
      const robot = ["robots/x-one.yaml", "robots/franka-droid.yaml"].map((f) => loadRobotProfile(f))
        .find((r) => Object.hasOwn(r.profile.layouts, m.layout.action));
      assert.ok(robot, `no robot profile has layout ${m.layout.action}`);
      const layout = getLayout(robot.profile, m.layout.action);
      const jointNames = layout.kind === "joint" ? layout.names : [];
      policy = await loadMem0Policy(BUNDLE, { actionJointNames: jointNames, log: () => {} });
      await policy.reset({ task: "parity", episode: 0, seed: parity.seed, instruction: parity.instruction });
      const plane = 3 * m.image.height * m.image.width;
      for (const [s, step] of parity.steps.entries()) {
        const all = images(s);
        const obsImages = Object.fromEntries(m.cameras.map((cam, c) => [cam, all.slice(c * plane, (c + 1) * plane)]));
        const r = await policy.observe({ stampNs: BigInt(s), images: obsImages, state: Float64Array.from(step.state) });
        assertClose([r.logit], [step.logit], `observe() logit step ${s}`);
      }
      const chunk = await policy.act();
      assert.deepEqual(chunk.jointNames, jointNames);
      assert.equal(chunk.horizon, m.horizon);
      assertClose(chunk.actions, parity.chunk, "act() chunk (robot units)");
    } finally {
      await policy?.close();
    }
  });
});
