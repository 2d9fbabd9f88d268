/**
 * Planner bench section: the shipped learned planner's latency per call (ms p50/p99, CPU), its
 * planner.onnx (training/planner/mn: 8 key-memory slots, 128x96 planner images) in a test bundle,
 * fed 320x240 camera JPEGs. `call_ms`: one new end image per call (the others decoded before, as in
 * an episode); `cold_call_ms`: every image new (initial + 8 end images decoded).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jpegFromRgb } from "../src/msgs/image.js";
import { writeTestBundle } from "../src/policy/mem0/testBundle.js";
import { plannerContext } from "../src/policy/planner/gating.js";
import { openLearnedPlanner } from "../src/policy/planner/learned.js";
import { addPlannerFrom } from "../src/policy/planner/testPlanner.js";
import type { FinishedSubtask } from "../src/policy/planner/types.js";

const TASK = "Cover the three blocks with the lids from left to right, "
  + "then uncover them in the order red, green, blue.";
const VOCAB = [
  "cover the left block with a lid", "cover the middle block with a lid", "cover the right block with a lid",
  "uncover the red block", "uncover the green block", "uncover the blue block",
];
const SHIPPED = "training/planner/mn";
const CAMERA = { width: 320, height: 240 };

function stats(ms: number[]): { p50: number; p99: number; n: number } {
  const s = [...ms].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
  const r = (x: number) => Math.round(x * 1000) / 1000;
  return { p50: r(at(0.5)), p99: r(at(0.99)), n: s.length };
}

/** A camera-sized JPEG whose pixels differ by `seed` (so no two decode alike). */
function image(seed: number): Promise<Uint8Array> {
  const rgb = new Uint8Array(CAMERA.width * CAMERA.height * 3).map((_, i) => (i * 7 + seed * 31) & 255);
  return jpegFromRgb(rgb, CAMERA.width, CAMERA.height, 80, "sharp");
}

/** 100 warm calls (one new end image each) and 20 cold ones, after a warm-up. */
export async function bench(): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), "engram-bench-planner-"));
  try {
    writeTestBundle(dir);
    const section = addPlannerFrom(dir, SHIPPED);
    const slots = section.key_memory_slots;
    const planner = await openLearnedPlanner(dir);
    try {
      const images = await Promise.all(Array.from({ length: 140 }, (_, i) => image(i)));
      const initial = images[0]!;
      const finished: FinishedSubtask[] = Array.from({ length: slots - 1 },
        (_, k) => ({ subtask: VOCAB[k % 6]!, endImageJpeg: images[1 + k]! }));
      const call = async (last: Uint8Array, first = initial, older = finished) => {
        const t = performance.now();
        const ctx = plannerContext(TASK, first, [...older, { subtask: VOCAB[0]!, endImageJpeg: last }], true);
        await planner.next(ctx).catch(() => null);
        return performance.now() - t;
      };
      for (let i = 0; i < 5; i++) await call(images[10 + i]!);
      const warm: number[] = [];
      for (let i = 0; i < 100; i++) warm.push(await call(images[15 + (i % 100)]!.slice()));
      const cold: number[] = [];
      for (let i = 0; i < 20; i++) {
        const fresh = finished.map((f) => ({ ...f, endImageJpeg: f.endImageJpeg.slice() }));
        cold.push(await call(initial.slice(), initial.slice(), fresh));
      }
      const camera = `${CAMERA.width}x${CAMERA.height}`;
      const plannerImage = `${section.image.width}x${section.image.height}`;
      return { slots, planner_image: plannerImage, camera, call_ms: stats(warm), cold_call_ms: stats(cold) };
    } finally {
      await planner.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
