/**
 * Memory bench section: per-tick cost of each memory strategy (src/memory/) with 300 steps of
 * history behind it: one `write` and one `inputs()`, as Mem0Policy calls them every tick. Sizes:
 * mem0 window 8 and framesamp 32 frames of 64-value features (mem0-tiny's feature_dim); tokendrop
 * RoboMME's defaults (512 of at most 2048 tokens, stride 8, 8x8 grid) on mem0-tiny's three 128x96
 * cameras and on one RoboMME-sized 224x224 front camera (it scores every 8th tick: p50 is the other
 * ticks, p99 the scoring ones, mean what a tick costs on average); retrieval over FrameSamp 32 (its
 * tick embeds a 128x96 camera image too).
 * The history store at 100,000 frames (3,125 sessions of 32, RoboMME-Interference's session size,
 * 64-value features, a 64x48 JPEG thumbnail each): append rate, bytes on disk per frame, open time,
 * nearest-frame query p50/p99 for observations near a stored session (frames of a session drift
 * around its scene, as video does), and the same index over unstructured random vectors (no session
 * structure to prune: a full scan).
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FrameIndex } from "../src/memory/frameIndex.js";
import { HistoryStore } from "../src/memory/historyStore.js";
import {
  createMemoryStrategy, embedCamera, IMAGE_EMBEDDING_DIM, type MemorySpec, type ViewPixels,
} from "../src/memory/index.js";
import { jpegFromRgb } from "../src/msgs/image.js";
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
    embedding: Float32Array.from({ length: IMAGE_EMBEDDING_DIM }, () => rand() * 2 - 1),
    views: views.map(({ width, height }): ViewPixels => ({
      width, height, channels: 3, data: Float32Array.from({ length: 3 * width * height }, () => rand() * 2 - 1),
    })),
  }));
}

/**
 * Fills HISTORY steps (written as history: retrieval splits and searches them), then times MEASURED
 * ticks (write + inputs); a strategy that reads embeddings also pays for embedding the tick's image.
 */
function perTick(
  spec: MemorySpec, views: { width: number; height: number }[],
): ReturnType<typeof stats> & { mean: number } {
  const memory = createMemoryStrategy(spec, F, 8);
  const pool = frames(16, views);
  let step = 0;
  const camera = Float32Array.from({ length: 3 * 128 * 96 }, (_, i) => (i % 255) / 255);
  const tick = () => {
    const f = pool[step % pool.length]!;
    const history = step < HISTORY;
    const embedding = memory.readsEmbedding && !history ? embedCamera(camera, 128, 96) : f.embedding;
    memory.write(f.feature, step, { stampNs: BigInt(step) * 100_000_000n, views: f.views, embedding, history });
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
  return { ...stats(ms), mean: Math.round((ms.reduce((a, b) => a + b, 0) / ms.length) * 1000) / 1000 };
}

const STORE_FRAMES = 100_000, SESSION = 32;

/** Times `queries` nearest-frame queries. */
function queryTimes(nearest: (q: Float32Array) => unknown, queries: Float32Array[]): ReturnType<typeof stats> {
  const ms = queries.map((q) => {
    const t = performance.now();
    nearest(q);
    return performance.now() - t;
  });
  return stats(ms);
}

async function storeBench(): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), "engram-bench-history-"));
  try {
    const rand = mulberry32(3);
    const thumbs = await Promise.all(Array.from({ length: 64 },
      () => jpegFromRgb(new Uint8Array(64 * 48 * 3).map(() => rand() * 255), 64, 48, 80, "sharp")));
    const { store } = await HistoryStore.open(dir, F);
    const sessions = STORE_FRAMES / SESSION;
    let t = performance.now();
    for (let s = 0; s < sessions; s++) {
      const writer = store.beginSession({ kind: "episode", task: `task-${s % 9}`, encoder: "bench" });
      const f = Float32Array.from({ length: F }, () => rand() * 2 - 1);
      for (let i = 0; i < SESSION; i++) {
        for (let k = 0; k < F; k++) f[k]! += 0.05 * (rand() * 2 - 1);
        const thumbnailJpeg = thumbs[(s + i) % thumbs.length]!;
        writer.append({ feature: f, step: i, stampNs: BigInt(s * SESSION + i) * 100_000_000n, thumbnailJpeg });
      }
      writer.close();
    }
    const appendS = (performance.now() - t) / 1000;
    const folder = join(dir, "sessions");
    const bytes = readdirSync(folder).reduce((sum, n) => sum + statSync(join(folder, n)).size, 0);
    t = performance.now();
    const reopened = (await HistoryStore.open(dir, F)).store;
    const openS = (performance.now() - t) / 1000;
    const near = Array.from({ length: 200 }, (_, i) => {
      const f = reopened.features(reopened.sessions()[(i * 17) % sessions]!.id)[i % SESSION]!;
      return f.map((v) => v + 0.1 * (rand() * 2 - 1));
    });
    const unstructured = new FrameIndex(F);
    for (let s = 0; s < sessions; s++) {
      unstructured.addSession(
        `u${s}`,
        Array.from({ length: SESSION }, () => Float32Array.from({ length: F }, () => rand() * 2 - 1)),
      );
    }
    const random = Array.from({ length: 50 }, () => Float32Array.from({ length: F }, () => rand() * 2 - 1));
    return {
      frames: reopened.index.size, sessions, feature_dim: F,
      thumbnail_bytes: Math.round(thumbs.reduce((a, b) => a + b.length, 0) / thumbs.length),
      append_frames_per_s: Math.round(STORE_FRAMES / appendS), bytes_per_frame: Math.round(bytes / STORE_FRAMES),
      open_s: Math.round(openS * 100) / 100,
      nearest_ms: queryTimes((q) => reopened.nearest(q), near),
      nearest_unstructured_ms: queryTimes((q) => unstructured.nearest(q), random),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
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
      // Unstructured random features: the split and the nearest-frame search see a worst case.
      retrieval_framesamp: perTick({ kind: "retrieval", inner: { kind: "framesamp", frames: 32 }, drop: 5 }, []),
    },
    history_store: await storeBench(),
  };
}
