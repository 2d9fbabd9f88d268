/**
 * Policy bench section: observe() and act() latency (ms p50/p99) on CPU, with constant synthetic
 * inputs, of the tiny test bundle (policies/test-tiny) and of the shipped reference policy
 * (policies/mem0-tiny: what one control tick of `npm start` computes).
 */
import { fileURLToPath } from "node:url";
import { loadMem0Policy } from "../src/policy/mem0/Mem0Policy.js";
import { BIMANUAL_16D } from "../src/policy/mem0/layout.js";

const BUNDLES = ["test-tiny", "mem0-tiny"];

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

function stats(ms: number[]): { p50: number; p99: number; n: number } {
  const s = [...ms].sort((a, b) => a - b);
  const r = (x: number) => Math.round(x * 1000) / 1000;
  return { p50: r(percentile(s, 0.5)), p99: r(percentile(s, 0.99)), n: s.length };
}

/** Per bundle: 200 observe() and 50 act() calls after a warm-up; figures in ms. */
export async function bench(): Promise<Record<string, unknown>> {
  const figures: Record<string, unknown> = {};
  for (const name of BUNDLES) figures[name] = await benchBundle(fileURLToPath(new URL(`../policies/${name}`, import.meta.url)));
  return figures;
}

async function benchBundle(path: string): Promise<Record<string, unknown>> {
  const policy = await loadMem0Policy(path, { actionJointNames: BIMANUAL_16D });
  try {
    await policy.reset({ task: "bench", episode: 0, seed: 1, instruction: "press the button" });
    const { width, height } = policy.spec.imageSize;
    const img = new Float32Array(3 * width * height).map((_, i) => Math.sin(i) * 0.5);
    const obs = { stampNs: 0n, images: Object.fromEntries(policy.spec.cameras.map((c) => [c, img])), state: new Float64Array(16) };
    for (let i = 0; i < 10; i++) { await policy.observe(obs); await policy.act(); }
    const observeMs: number[] = [];
    for (let i = 0; i < 200; i++) {
      const t = performance.now();
      await policy.observe(obs);
      observeMs.push(performance.now() - t);
    }
    const actMs: number[] = [];
    for (let i = 0; i < 50; i++) {
      const t = performance.now();
      await policy.act();
      actMs.push(performance.now() - t);
    }
    return { provider: policy.provider, observe_ms: stats(observeMs), act_ms: stats(actMs) };
  } finally {
    await policy.close();
  }
}
