/**
 * RoboMME's TokenDrop perceptual memory (mme_vla_suite MemoryBuffer): each view is cut into a
 * `grid` x `grid` patch grid. Frame 0's patches enter with score 1000; then every `stride` steps (at
 * history index stride-1, 2*stride-1, ...) each patch is scored by its mean |pixel difference| (pixels
 * in [-1, 1]) against the last scored frame (frame 0 the first time), patches under 1e-4 skipped,
 * the rest pushed into a min-heap of (score, step, view, patch) capped at `kept` (the lowest popped).
 * A tick's memory is the `budget` highest of them, sorted by (step, view, patch). Tokens carry their
 * patch's pixels (channel, row, column): this runtime's encoder has no per-patch embeddings, so
 * pixels are the token.
 * Only the last scored frame's patches are held besides the kept ones; frames between scores are
 * not cut into patches at all (nothing of them can enter the heap).
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
  readonly readsViews = true;
  private readonly heap = new MinHeap();
  private lastScored = -1;
  /** The last scored frame's views (frame 0's until the first score): what the next score compares against. */
  private reference: ViewPixels[] | null = null;
  private written = 0;
  private stepOfIndex: number[] = [];
  private dim: number | null = null;
  private read: MemoryInputs | null = null;
  /** The read tensors and the token in each slot, reused from one update to the next. */
  private buffers: {
    dim: number; features: Float32Array; positions: Int32Array; mask: Float32Array; slots: Scored[];
  } | null = null;

  constructor(readonly spec: { budget: number; stride: number; kept: number; grid: number }) {
    const { budget, stride, kept, grid } = spec;
    for (const [name, v] of Object.entries({ budget, stride, kept, grid })) {
      if (!Number.isInteger(v) || v < 1) throw new Error(`tokendrop ${name} ${v}: expected an integer >= 1`);
    }
  }

  write(_feature: Float32Array, step: number, meta: { views?: readonly ViewPixels[] }): MemoryOp[] {
    const views = meta.views;
    if (!views || views.length === 0) throw new Error(`tokendrop: the frame at step ${step} has no images to score`);
    views.forEach((v, i) => this.checkView(v, `step ${step} view ${i}`));
    const h = this.written++;
    this.stepOfIndex.push(step);
    const scoring = h === this.lastScored + this.spec.stride;
    // Only frame 0 and the scored frames are looked at: nothing of the others can enter the heap.
    if (h !== 0 && !scoring) return [];
    const g = this.spec.grid, patches = g * g;
    const pushed: Scored[] = [];
    if (h === 0) {
      this.reference = [...views];
      for (let patch = 0; patch < patches; patch++) {
        for (let view = 0; view < views.length; view++) {
          const t = { score: FIRST_FRAME_SCORE, step: h, view, patch, pixels: EMPTY };
          this.heap.push(t);
          pushed.push(t);
        }
      }
    }
    if (scoring) {
      const previous = this.reference!;
      if (previous.length !== views.length) {
        throw new Error(`tokendrop: step ${step} has ${views.length} views, the history ${previous.length}`);
      }
      views.forEach((v, view) => {
        const scores = patchDifferences(previous[view]!, v, g);
        for (let patch = 0; patch < patches; patch++) {
          if (scores[patch]! < MIN_DIFFERENCE) continue;
          const t = { score: scores[patch]!, step: h, view, patch, pixels: EMPTY };
          this.heap.push(t);
          pushed.push(t);
          if (this.heap.items.length > this.spec.kept) this.heap.pop();
        }
      });
      this.lastScored += this.spec.stride;
      this.reference = [...views];
    }
    // Pixels are cut out only for the tokens this frame still has in the heap.
    const kept = new Set(this.heap.items);
    for (const t of pushed) if (kept.has(t)) t.pixels = patchPixels(views[t.view]!, g, t.patch);
    this.read = null;
    return [];
  }

  /** The tensors of the tokens read, updated only when the heap changed (read-only, valid until the next write). */
  inputs(): MemoryInputs {
    this.read ??= this.buildRead();
    return this.read;
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
    this.read = null;
    this.buffers = null;
    return [{ kind: "history_clear", dropped }];
  }

  /**
   * The budget highest tokens in (step, view, patch) order, written into buffers kept between calls:
   * the order is kept across updates and new tokens come last, so tokens still read move down in
   * place (copyWithin) and only the new ones are copied in.
   */
  private buildRead(): MemoryInputs {
    const b = this.spec.budget, d = this.dim ?? 0;
    const chosen = topTokens(this.heap.items, b).sort((x, y) => orderOf(x) - orderOf(y));
    if (!this.buffers || this.buffers.dim !== d) {
      this.buffers = {
        dim: d, features: new Float32Array(b * d), positions: new Int32Array(b * 3), mask: new Float32Array(b),
        slots: [],
      };
    }
    const { features, positions, mask, slots } = this.buffers;
    const slotOf = new Map(slots.map((t, i) => [t, i]));
    chosen.forEach((t, i) => {
      const from = slotOf.get(t);
      if (from === i) return;
      if (from !== undefined) features.copyWithin(i * d, from * d, (from + 1) * d);
      else features.set(t.pixels, i * d);
      positions[i * 3] = this.stepOfIndex[t.step]!;
      positions[i * 3 + 1] = t.view;
      positions[i * 3 + 2] = t.patch;
      mask[i] = 1;
    });
    features.fill(0, chosen.length * d);
    positions.fill(0, chosen.length * 3);
    mask.fill(0, chosen.length);
    this.buffers.slots = chosen;
    const none = new Float32Array(0);
    return {
      window: none, windowMask: none, anchor: none, anchorMask: none,
      tokens: { features, positions, mask, dim: d },
    };
  }

  /** Checks a view's size against the grid and the history's patch size. */
  private checkView(v: ViewPixels, where: string): void {
    const g = this.spec.grid;
    if (v.width % g !== 0 || v.height % g !== 0) {
      throw new Error(`tokendrop: ${where} is ${v.width}x${v.height}, not divisible into a ${g}x${g} grid`);
    }
    if (v.data.length !== v.width * v.height * v.channels) {
      throw new Error(`tokendrop: ${where} has ${v.data.length} values, expected ${v.width}x${v.height}x${v.channels}`);
    }
    const d = (v.height / g) * (v.width / g) * v.channels;
    if (this.dim === null) this.dim = d;
    else if (this.dim !== d) {
      throw new Error(`tokendrop: ${where} gives ${d} values per patch, the history ${this.dim}`);
    }
  }
}

const EMPTY = new Float32Array(0);

/** (step, view, patch) as one number that sorts the same (views < 100, patches < 10,000). */
const orderOf = (t: Scored) => (t.step * 100 + t.view) * 10_000 + t.patch;

/**
 * The `b` greatest tokens under `before`: a typed sort of the scores finds the b-th greatest score,
 * every token above it is in, and ties at it are decided by (step, view, patch), as a full sort would.
 */
function topTokens(items: readonly Scored[], b: number): Scored[] {
  if (items.length <= b) return [...items];
  const threshold = Float64Array.from(items, (t) => t.score).sort()[items.length - b]!;
  const above = items.filter((t) => t.score > threshold);
  const ties = items.filter((t) => t.score === threshold).sort((x, y) => orderOf(y) - orderOf(x));
  return [...above, ...ties.slice(0, b - above.length)];
}

/** Per patch of a grid x grid cut (row-major), the mean |a - b| over its pixels and channels. */
function patchDifferences(a: ViewPixels, b: ViewPixels, g: number): Float64Array {
  const sums = new Float64Array(g * g);
  const { width, height, channels } = b;
  const ph = height / g, pw = width / g;
  const ad = a.data, bd = b.data;
  for (let c = 0; c < channels; c++) {
    const plane = c * width * height;
    for (let y = 0; y < height; y++) {
      const row = ((y / ph) | 0) * g;
      for (let px = 0, i = plane + y * width; px < g; px++) {
        let sum = 0;
        for (const end = i + pw; i < end; i++) sum += Math.abs(ad[i]! - bd[i]!);
        sums[row + px]! += sum;
      }
    }
  }
  const n = ph * pw * channels;
  for (let p = 0; p < sums.length; p++) sums[p] /= n;
  return sums;
}

/** One patch's pixels in (channel, row, column) order. */
function patchPixels(v: ViewPixels, g: number, patch: number): Float32Array {
  const ph = v.height / g, pw = v.width / g, plane = v.width * v.height;
  const y0 = Math.floor(patch / g) * ph, x0 = (patch % g) * pw;
  const out = new Float32Array(ph * pw * v.channels);
  for (let c = 0, k = 0; c < v.channels; c++) {
    for (let y = y0; y < y0 + ph; y++, k += pw) {
      const row = c * plane + y * v.width + x0;
      out.set(v.data.subarray(row, row + pw), k);
    }
  }
  return out;
}
