/**
 * Retrieval over a long history (RoboMME-Interference's retrieval step), wrapping a frame strategy.
 * Every frame written since the reset is kept. The history (the frames written as `history`: a
 * demonstration prompt, stored sessions) is split into sessions where the fixed image embedding
 * (imageEmbedding.ts, `meta.embedding`) of adjacent frames drops sharply in cosine similarity: a step's
 * dissimilarity (1 - cos) above `drop` times the median of the NEIGHBOURS steps on each side, and above
 * a floor (so neither a still camera's noise nor an arm's motion splits). Two views of the embedding
 * are split so: the whole of it (MIN_STEP), and its colour alone (each cell less its mean over the
 * channels; MIN_COLOUR_STEP), which the grey arm's motion barely moves but a scene of other objects
 * does. The episode's own frames,
 * which follow the history, are the current session; of the history's sessions, the one holding the
 * frame nearest the current one (squared L2 of the embeddings) is retrieved. The inner strategy then
 * sees only the retrieved session followed by the current one (rebuilt when the retrieved session
 * changes). Ground-truth session ids are never read (FrameMeta carries none); `sessionStarts()` and the
 * `history_split` op on the episode's first own frame expose the split to compare with them.
 */
import { FrameSampMemory } from "./FrameSampMemory.js";
import { Mem0Memory } from "./Mem0Memory.js";
import { NoMemory } from "./NoMemory.js";
import type { FrameMeta, MemoryInputs, MemoryOp, MemoryStrategy, ResetScope, RetrievalInnerSpec } from "./types.js";

/**
 * Dissimilarity a step needs before it can split, whatever the median (1 - cos of embeddings). On the
 * Franka twin a session's own adjacent frames differ by at most 0.009 and stored sessions' ends and
 * starts by 0.045 or more; a demonstration ending at the home pose and a stored session starting there
 * differ by only 0.009-0.013, which this view misses (the colour view splits them).
 */
const MIN_STEP = 0.015;
/**
 * The same floor for the colour view. On the Franka twin a Video Unmask demonstration's adjacent frames
 * differ in colour by at most 0.0015, the demonstration's end and a stored session's start (both at the
 * home pose) by 0.014-0.023: the boundary the whole embedding misses.
 */
const MIN_COLOUR_STEP = 0.006;
/** Steps on each side a step is compared with: a session's own pace of change, not the whole history's. */
const NEIGHBOURS = 8;

function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Indices i of steps above `floor` and above `drop` times the median of the NEIGHBOURS steps each side. */
function sharpSteps(steps: readonly number[], floor: number, drop: number): number[] {
  return steps.flatMap((s, i) => {
    const around = [...steps.slice(Math.max(0, i - NEIGHBOURS), i), ...steps.slice(i + 1, i + 1 + NEIGHBOURS)];
    return s > floor && (around.length === 0 || s > drop * median(around)) ? [i] : [];
  });
}

/** An embedding's colour: each grid cell's channels (the embedding is channel-major) less their mean. */
function colourOf(embedding: Float32Array): Float32Array {
  const cells = embedding.length / 3, out = new Float32Array(embedding.length);
  for (let c = 0; c < cells; c++) {
    const mean = (embedding[c]! + embedding[cells + c]! + embedding[2 * cells + c]!) / 3;
    for (let ch = 0; ch < 3; ch++) out[ch * cells + c] = embedding[ch * cells + c]! - mean;
  }
  return out;
}

export class RetrievalMemory implements MemoryStrategy {
  readonly readsEmbedding = true;
  private features: Float32Array[] = [];
  private embeddings: Float32Array[] = [];
  private metas: Array<{ step: number; meta: FrameMeta }> = [];
  /** 1 - cos between the embeddings of history frame i-1 and i, for i >= 1 (index i - 1), and of their colour. */
  private steps: number[] = [];
  private colourSteps: number[] = [];
  private lastColour: Float32Array | null = null;
  /** Frames written as history; the episode's own frames follow them. */
  private historyLength = 0;
  /** The split of the history as it stands (it changes only while history is written). */
  private split: number[] | null = null;
  /** The inner strategy of the last read, and the frames it was fed, in order. */
  private fed: { inner: MemoryStrategy; frames: number[] } | null = null;

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
    if (!meta.embedding) throw new Error(`retrieval: the frame at step ${step} has no image embedding`);
    if (meta.embedding.length % 3 !== 0) {
      throw new Error(`retrieval: the frame at step ${step} has an image embedding of ${meta.embedding.length} `
        + "values, expected 3 channels of grid cells");
    }
    if (meta.history && this.features.length > this.historyLength) {
      throw new Error(`retrieval: a history frame (step ${step}) after the episode's own frames`);
    }
    const e = Float32Array.from(meta.embedding);
    if (meta.history) {
      const last = this.embeddings.at(-1), colour = colourOf(e);
      if (last) this.steps.push(1 - cosine(last, e));
      if (this.lastColour) this.colourSteps.push(1 - cosine(this.lastColour, colour));
      this.lastColour = colour;
      this.historyLength++;
      this.split = null;
    }
    this.features.push(Float32Array.from(feature));
    this.embeddings.push(e);
    this.metas.push({ step, meta: { stampNs: meta.stampNs } });
    if (meta.history || this.historyLength === 0 || this.features.length !== this.historyLength + 1) return [];
    const retrieved = this.selection().filter((i) => i < this.historyLength);
    return [{
      kind: "history_split", frames: this.historyLength, starts: this.sessionStarts(),
      retrieved: [retrieved[0] ?? 0, (retrieved.at(-1) ?? -1) + 1],
    }];
  }

  /** Indices where each session of the history's split starts (0 first; none without history). */
  sessionStarts(): number[] {
    if (this.split) return [...this.split];
    const sharp = new Set([
      ...sharpSteps(this.steps, MIN_STEP, this.drop), ...sharpSteps(this.colourSteps, MIN_COLOUR_STEP, this.drop),
    ]);
    const starts = this.historyLength > 0 ? [0, ...[...sharp].sort((a, b) => a - b).map((i) => i + 1)] : [];
    this.split = starts;
    return [...starts];
  }

  /** The frames the inner strategy sees on this tick: the retrieved history session (if any), then the episode's. */
  selection(): number[] {
    const n = this.features.length, h = this.historyLength;
    const own = Array.from({ length: n - h }, (_, i) => h + i);
    if (h === 0 || n === 0) return own;
    const q = this.embeddings[n - 1]!;
    let best = 0, bestDistance = Infinity;
    for (let i = 0; i < h; i++) {
      const d = squaredDistance(this.embeddings[i]!, q);
      if (d < bestDistance) { bestDistance = d; best = i; }
    }
    const starts = this.sessionStarts();
    const from = starts.filter((s) => s <= best).at(-1)!;
    const to = starts.find((s) => s > best) ?? h;
    return [...Array.from({ length: to - from }, (_, i) => from + i), ...own];
  }

  inputs(): MemoryInputs {
    const selection = this.selection();
    // The inner strategy is fed incrementally while the retrieved session stays the same (the same
    // frames in the same order leave it as a rebuild would); a different session rebuilds it.
    const fed = this.fed;
    const same = fed !== null && fed.frames.length <= selection.length
      && fed.frames.every((frame, k) => frame === selection[k]);
    const inner = same ? fed.inner : this.innerStrategy();
    const done = same ? fed.frames.length : 0;
    for (const i of selection.slice(done)) {
      inner.write(this.features[i]!, this.metas[i]!.step, this.metas[i]!.meta);
    }
    this.fed = { inner, frames: selection };
    return inner.inputs();
  }

  onSubtaskEnd(): MemoryOp[] {
    return [];
  }

  reset(_scope: ResetScope): MemoryOp[] {
    const dropped = this.features.length;
    this.features = [];
    this.embeddings = [];
    this.metas = [];
    this.steps = [];
    this.colourSteps = [];
    this.lastColour = null;
    this.historyLength = 0;
    this.split = null;
    this.fed = null;
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
