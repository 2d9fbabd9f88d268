/**
 * RoboMME's TokenDrop perceptual memory (mme_vla_suite MemoryBuffer): each view is cut into a
 * `grid` x `grid` patch grid. Frame 0's patches enter with score 1000; then every `stride` steps (at
 * history index stride-1, 2*stride-1, ...) each patch is scored by its mean |pixel difference| (pixels
 * in [-1, 1]) against the last scored frame (frame 0 the first time), patches under 1e-4 skipped,
 * the rest pushed into a min-heap of (score, step, view, patch) capped at `kept` (the lowest popped).
 * A tick's memory is the `budget` highest of them, sorted by (step, view, patch). Tokens carry their
 * patch's pixels: this runtime's encoder has no per-patch embeddings, so pixels are the token.
 * Only two frames' pixels are held (the current and the last scored one) plus the kept patches.
 */
import type { MemoryInputs, MemoryOp, MemoryStrategy, ResetScope, ViewPixels } from "./types.js";

/** A scored patch; ordered as RoboMME's heap tuples: score, then step, view, patch. */
interface Scored {
  score: number;
  step: number;
  view: number;
  patch: number;
  pixels: Float32Array;
}

const FIRST_FRAME_SCORE = 1000;
const MIN_DIFFERENCE = 1e-4;

const before = (a: Scored, b: Scored) =>
  a.score - b.score || a.step - b.step || a.view - b.view || a.patch - b.patch;

/** A binary min-heap under `before`. */
class MinHeap {
  readonly items: Scored[] = [];

  push(x: Scored): void {
    const a = this.items;
    a.push(x);
    for (let i = a.length - 1; i > 0;) {
      const p = (i - 1) >> 1;
      if (before(a[i]!, a[p]!) >= 0) break;
      [a[i], a[p]] = [a[p]!, a[i]!];
      i = p;
    }
  }

  pop(): void {
    const a = this.items;
    const last = a.pop()!;
    if (a.length === 0) return;
    a[0] = last;
    for (let i = 0; ;) {
      const l = 2 * i + 1, r = l + 1;
      let m = i;
      if (l < a.length && before(a[l]!, a[m]!) < 0) m = l;
      if (r < a.length && before(a[r]!, a[m]!) < 0) m = r;
      if (m === i) return;
      [a[i], a[m]] = [a[m]!, a[i]!];
      i = m;
    }
  }

  clear(): void {
    this.items.length = 0;
  }
}

export class TokenDropMemory implements MemoryStrategy {
  private readonly heap = new MinHeap();
  private lastScored = -1;
  /** Per view, the patches the next score compares against (frame 0's until the first score). */
  private reference: Float32Array[][] | null = null;
  private written = 0;
  private stepOfIndex: number[] = [];
  private dim: number | null = null;

  constructor(readonly spec: { budget: number; stride: number; kept: number; grid: number }) {
    const { budget, stride, kept, grid } = spec;
    for (const [name, v] of Object.entries({ budget, stride, kept, grid })) {
      if (!Number.isInteger(v) || v < 1) throw new Error(`tokendrop ${name} ${v}: expected an integer >= 1`);
    }
  }

  write(_feature: Float32Array, step: number, meta: { views?: readonly ViewPixels[] }): MemoryOp[] {
    const views = meta.views;
    if (!views || views.length === 0) throw new Error(`tokendrop: the frame at step ${step} has no images to score`);
    const h = this.written++;
    this.stepOfIndex.push(step);
    const patches = views.map((v, i) => this.patchesOf(v, `step ${step} view ${i}`));
    if (h === 0) {
      this.reference = patches;
      patches.forEach((ps, view) => ps.forEach((pixels, patch) => {
        this.heap.push({ score: FIRST_FRAME_SCORE, step: h, view, patch, pixels });
      }));
    }
    if (h === this.lastScored + this.spec.stride) {
      const previous = this.reference!;
      if (previous.length !== patches.length) {
        throw new Error(`tokendrop: step ${step} has ${patches.length} views, the history ${previous.length}`);
      }
      patches.forEach((ps, view) => ps.forEach((pixels, patch) => {
        const score = meanAbsDifference(previous[view]![patch]!, pixels);
        if (score < MIN_DIFFERENCE) return;
        this.heap.push({ score, step: h, view, patch, pixels });
        if (this.heap.items.length > this.spec.kept) this.heap.pop();
      }));
      this.lastScored += this.spec.stride;
      this.reference = patches;
    }
    return [];
  }

  inputs(): MemoryInputs {
    const b = this.spec.budget, d = this.dim ?? 0;
    const chosen = [...this.heap.items].sort(before).slice(-b)
      .sort((x, y) => x.step - y.step || x.view - y.view || x.patch - y.patch);
    const features = new Float32Array(b * d);
    const positions = new Int32Array(b * 3);
    const mask = new Float32Array(b);
    chosen.forEach((t, i) => {
      features.set(t.pixels, i * d);
      positions.set([this.stepOfIndex[t.step]!, t.view, t.patch], i * 3);
      mask[i] = 1;
    });
    const none = new Float32Array(0);
    return {
      window: none, windowMask: none, anchor: none, anchorMask: none,
      tokens: { features, positions, mask, dim: d },
    };
  }

  onSubtaskEnd(): MemoryOp[] {
    return [];
  }

  reset(_scope: ResetScope): MemoryOp[] {
    const dropped = this.written;
    this.heap.clear();
    this.lastScored = -1;
    this.reference = null;
    this.written = 0;
    this.stepOfIndex = [];
    return [{ kind: "history_clear", dropped }];
  }

  /** The view's grid x grid patches, each its pixels in (row, column, channel) order. */
  private patchesOf(v: ViewPixels, where: string): Float32Array[] {
    const g = this.spec.grid;
    if (v.width % g !== 0 || v.height % g !== 0) {
      throw new Error(`tokendrop: ${where} is ${v.width}x${v.height}, not divisible into a ${g}x${g} grid`);
    }
    if (v.data.length !== v.width * v.height * v.channels) {
      throw new Error(`tokendrop: ${where} has ${v.data.length} values, expected ${v.width}x${v.height}x${v.channels}`);
    }
    const ph = v.height / g, pw = v.width / g, c = v.channels, plane = v.width * v.height;
    const d = ph * pw * c;
    if (this.dim === null) this.dim = d;
    else if (this.dim !== d) throw new Error(`tokendrop: ${where} gives ${d} values per patch, the history ${this.dim}`);
    const out: Float32Array[] = [];
    for (let gy = 0; gy < g; gy++) {
      for (let gx = 0; gx < g; gx++) {
        const p = new Float32Array(d);
        let k = 0;
        for (let y = gy * ph; y < (gy + 1) * ph; y++) {
          for (let x = gx * pw; x < (gx + 1) * pw; x++) {
            for (let ch = 0; ch < c; ch++) p[k++] = v.data[ch * plane + y * v.width + x]!;
          }
        }
        out.push(p);
      }
    }
    return out;
  }
}

function meanAbsDifference(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i]! - b[i]!);
  return sum / a.length;
}
