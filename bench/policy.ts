/**
 * Policy bench section: observe() and act() latency (ms p50/p99) on CPU, with synthetic inputs that
 * drift from tick to tick, of the tiny test bundle (policies/test-tiny), of the shipped reference policy
 * (policies/mem0-tiny: what one control tick of `npm start` computes), and of a Franka video bundle
 * with FrameSamp and with TokenDrop (512 patch tokens through memory.onnx every tick).
 */
import { fileURLToPath } from "node:url";
import { loadMem0Policy } from "../src/policy/mem0/Mem0Policy.js";
import { BIMANUAL_16D } from "../src/policy/mem0/layout.js";
import { loadRobotProfile } from "../src/robot/loadRobotProfile.js";

/** Bundles under policies/, with the robot profile their layout needs (default: the X-One's 16-D names). */
const BUNDLES: { name: string; robot?: string }[] = [
  { name: "test-tiny" }, { name: "mem0-tiny" },
  { name: "framesamp-tiny-move", robot: "robots/franka-droid.yaml" },
  { name: "framesamp-tiny-move/ablations/tokendrop", robot: "robots/franka-droid.yaml" },
];
/** Distinct frames cycled through (made before timing), so strategies that score change see some. */
const FRAMES = 16;

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
  for (const { name, robot } of BUNDLES) {
    figures[name] = await benchBundle(fileURLToPath(new URL(`../policies/${name}`, import.meta.url)), robot);
  }
  return figures;
}

async function benchBundle(path: string, robot?: string): Promise<Record<string, unknown>> {
  const policy = await loadMem0Policy(path, robot ? { robot: loadRobotProfile(robot).profile } : { actionJointNames: BIMANUAL_16D });
  try {
    await policy.reset({ task: "bench", episode: 0, seed: 1, instruction: "press the button" });
    const { width, height } = policy.spec.imageSize;
    const state = new Float64Array(robot ? 8 : 16);
    const frames = Array.from({ length: FRAMES }, (_, k) => {
      const img = new Float32Array(3 * width * height).map((_, i) => Math.sin(i + 0.3 * k) * 0.5);
      return { stampNs: 0n, images: Object.fromEntries(policy.spec.cameras.map((c) => [c, img])), state };
    });
    for (let i = 0; i < 10; i++) { await policy.observe(frames[i % FRAMES]!); await policy.act(); }
    const observeMs: number[] = [];
    for (let i = 0; i < 200; i++) {
      const t = performance.now();
      await policy.observe(frames[i % FRAMES]!);
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
