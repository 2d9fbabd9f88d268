/**
 * Retrieval over a long history (RoboMME-Interference's retrieval step), wrapping a frame strategy.
 * Every frame written since the reset is kept. The history is split into sessions where the cosine
 * similarity of adjacent frames drops sharply: a step's dissimilarity (1 - cos) above `drop` times
 * the median of the NEIGHBOURS steps on each side, and above MIN_STEP (so a still camera's noise
 * never splits). The last session is the one being lived (it holds the current frame); of the others, the one holding
 * the frame nearest the current one (squared L2) is retrieved. The inner strategy then sees only the
 * retrieved session followed by the current one, rebuilt every tick. Ground-truth session ids are
 * never read (FrameMeta carries none); `sessionStarts()` exposes the split to compare with them.
 */
import { FrameSampMemory } from "./FrameSampMemory.js";
import { Mem0Memory } from "./Mem0Memory.js";
import { NoMemory } from "./NoMemory.js";
import type { FrameMeta, MemoryInputs, MemoryOp, MemoryStrategy, ResetScope, RetrievalInnerSpec } from "./types.js";

/** Dissimilarity a step needs before it can split, whatever the median (1 - cos). */
const MIN_STEP = 0.02;
/** Steps on each side a step is compared with: a session's own pace of change, not the whole history's. */
const NEIGHBOURS = 8;

function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export class RetrievalMemory implements MemoryStrategy {
  private features: Float32Array[] = [];
  private metas: Array<{ step: number; meta: FrameMeta }> = [];
  /** 1 - cos between frame i-1 and i, for i >= 1 (index i - 1). */
  private steps: number[] = [];

  constructor(
    readonly featureDim: number, readonly inner: RetrievalInnerSpec, readonly drop: number,
    private readonly moduleWindow: number,
  ) {
    if (!(drop > 1)) throw new Error(`retrieval drop ${drop}: expected a number > 1 (times the median step)`);
  }

  write(feature: Float32Array, step: number, meta: FrameMeta): MemoryOp[] {
    if (feature.length !== this.featureDim) {
      throw new Error(`memory feature length ${feature.length}, expected ${this.featureDim}`);
    }
    const f = Float32Array.from(feature);
    const last = this.features.at(-1);
    if (last) this.steps.push(1 - cosine(last, f));
    this.features.push(f);
    this.metas.push({ step, meta: { stampNs: meta.stampNs } });
    return [];
  }

  /** Indices where each session of the current split starts (0 first). */
  sessionStarts(): number[] {
    const starts = this.features.length > 0 ? [0] : [];
    this.steps.forEach((s, i) => {
      const around = [
        ...this.steps.slice(Math.max(0, i - NEIGHBOURS), i), ...this.steps.slice(i + 1, i + 1 + NEIGHBOURS),
      ];
      if (s > MIN_STEP && (around.length === 0 || s > this.drop * median(around))) starts.push(i + 1);
    });
    return starts;
  }

  /** The frames the inner strategy sees on this tick: the retrieved session (if any), then the current one. */
  selection(): number[] {
    const n = this.features.length;
    if (n === 0) return [];
    const starts = this.sessionStarts();
    const current = starts.at(-1)!;
    const own = Array.from({ length: n - current }, (_, i) => current + i);
    if (current === 0) return own;
    const q = this.features[n - 1]!;
    let best = 0, bestDistance = Infinity;
    for (let i = 0; i < current; i++) {
      const d = squaredDistance(this.features[i]!, q);
      if (d < bestDistance) { bestDistance = d; best = i; }
    }
    const from = starts.filter((s) => s <= best).at(-1)!;
    const to = starts.find((s) => s > best)!;
    return [...Array.from({ length: to - from }, (_, i) => from + i), ...own];
  }

  inputs(): MemoryInputs {
    const inner = this.innerStrategy();
    for (const i of this.selection()) inner.write(this.features[i]!, this.metas[i]!.step, this.metas[i]!.meta);
    return inner.inputs();
  }

  onSubtaskEnd(): MemoryOp[] {
    return [];
  }

  reset(_scope: ResetScope): MemoryOp[] {
    const dropped = this.features.length;
    this.features = [];
    this.metas = [];
    this.steps = [];
    return [{ kind: "history_clear", dropped }];
  }

  private innerStrategy(): MemoryStrategy {
    const f = this.featureDim, inner = this.inner;
    switch (inner.kind) {
      case "framesamp": return new FrameSampMemory(f, inner.frames);
      case "mem0": return new Mem0Memory(f, inner.window, { anchor: true, sliding: true });
      case "none": return new NoMemory(f, this.moduleWindow);
    }
  }
}

function cosine(a: Float32Array, b: Float32Array): number {
  let ab = 0, aa = 0, bb = 0;
  for (let k = 0; k < a.length; k++) {
    ab += a[k]! * b[k]!;
    aa += a[k]! * a[k]!;
    bb += b[k]! * b[k]!;
  }
  return aa === 0 || bb === 0 ? (aa === bb ? 1 : 0) : ab / Math.sqrt(aa * bb);
}

function squaredDistance(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let k = 0; k < a.length; k++) s += (a[k]! - b[k]!) ** 2;
  return s;
}

/**
 * Boundary precision and recall of a split against the true session starts (index 0 is no boundary):
 * a predicted boundary is right when a true one lies within `tolerance` frames, each true one matched once.
 */
export function boundaryScores(
  predicted: readonly number[], truth: readonly number[], tolerance = 1,
): { precision: number; recall: number } {
  const p = predicted.filter((i) => i > 0), t = truth.filter((i) => i > 0);
  const used = new Set<number>();
  let hits = 0;
  for (const b of p) {
    const match = t.find((x) => !used.has(x) && Math.abs(x - b) <= tolerance);
    if (match !== undefined) { used.add(match); hits++; }
  }
  return { precision: p.length ? hits / p.length : 1, recall: t.length ? hits / t.length : 1 };
}
