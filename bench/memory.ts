/**
 * Memory bench section: per-tick cost of each memory strategy (src/memory/) with 300 steps of
 * history behind it: one `write` and one `inputs()`, as Mem0Policy calls them every tick. Sizes:
 * mem0 window 8 and framesamp 32 frames of 64-value features (mem0-tiny's feature_dim); tokendrop
 * RoboMME's defaults (512 of at most 2048 tokens, stride 8, 8x8 grid) on mem0-tiny's three 128x96
 * cameras and on one RoboMME-sized 224x224 front camera.
 */
import { createMemoryStrategy, type MemorySpec, type ViewPixels } from "../src/memory/index.js";
import { mulberry32 } from "../src/policy/mem0/flowSampler.js";

const HISTORY = 300, MEASURED = 200, F = 64;

function stats(ms: number[]): { p50: number; p99: number; n: number } {
  const s = [...ms].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
  const r = (x: number) => Math.round(x * 1000) / 1000;
  return { p50: r(at(0.5)), p99: r(at(0.99)), n: s.length };
}

/** Random frames (feature + views); a slow drift so TokenDrop sees patches change by varying amounts. */
function frames(count: number, views: { width: number; height: number }[]) {
  const rand = mulberry32(7);
  return Array.from({ length: count }, () => ({
    feature: Float32Array.from({ length: F }, () => rand() * 2 - 1),
    views: views.map(({ width, height }): ViewPixels => ({
      width, height, channels: 3, data: Float32Array.from({ length: 3 * width * height }, () => rand() * 2 - 1),
    })),
  }));
}

/** Fills HISTORY steps, then times MEASURED ticks (write + inputs). */
function perTick(spec: MemorySpec, views: { width: number; height: number }[]): ReturnType<typeof stats> {
  const memory = createMemoryStrategy(spec, F, 8);
  const pool = frames(16, views);
  let step = 0;
  const tick = () => {
    const f = pool[step % pool.length]!;
    memory.write(f.feature, step, { stampNs: BigInt(step) * 100_000_000n, views: f.views });
    step++;
    return memory.inputs();
  };
  for (let i = 0; i < HISTORY; i++) tick();
  const ms: number[] = [];
  for (let i = 0; i < MEASURED; i++) {
    const t = performance.now();
    tick();
    ms.push(performance.now() - t);
  }
  return stats(ms);
}

export async function bench(): Promise<Record<string, unknown>> {
  const tiny = [{ width: 128, height: 96 }, { width: 128, height: 96 }, { width: 128, height: 96 }];
  const tokendrop = { kind: "tokendrop", budget: 512, stride: 8, kept: 2048, grid: 8 } as const;
  return {
    history_steps: HISTORY,
    tick_ms: {
      mem0: perTick({ kind: "mem0", window: 8, anchor: true, sliding: true }, []),
      framesamp: perTick({ kind: "framesamp", frames: 32 }, []),
      none: perTick({ kind: "none" }, []),
      tokendrop_3x128x96: perTick(tokendrop, tiny),
      tokendrop_1x224x224: perTick(tokendrop, [{ width: 224, height: 224 }]),
    },
  };
}
