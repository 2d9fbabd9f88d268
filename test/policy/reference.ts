/**
 * Plain-TS reference (float64) of the tiny Mem-0 math built by src/policy/mem0/testBundle.ts; tests
 * compare onnxruntime's outputs with it (tolerance 1e-4).
 */
import type { TinyWeights } from "../../src/policy/mem0/testBundle.js";

/** x[n] · W[n, m] (row-major) + optional bias[m]. */
export function linear(x: ArrayLike<number>, w: ArrayLike<number>, m: number, bias?: ArrayLike<number>): Float64Array {
  const n = x.length;
  const out = new Float64Array(m);
  for (let j = 0; j < m; j++) {
    let s = bias ? bias[j] : 0;
    for (let i = 0; i < n; i++) s += x[i] * w[i * m + j];
    out[j] = s;
  }
  return out;
}

/** Encoder: images [NC,3,H,W] flattened, normalized state, token ids. */
export function refEncoder(w: TinyWeights, images: Float32Array, state: ArrayLike<number>, tokens: BigInt64Array) {
  const { cameras, height, width, featureDim: F } = w.dims;
  const plane = height * width;
  const pooled = new Float64Array(cameras.length * 3);
  for (let c = 0; c < pooled.length; c++) {
    let s = 0;
    for (let i = 0; i < plane; i++) s += images[c * plane + i];
    pooled[c] = s / plane;
  }
  const a = linear(pooled, w.encImg, F);
  const b = linear(state, w.encState, F);
  const imageFeature = a.map((v, j) => Math.tanh(v + b[j] + w.encBias[j]));
  const textFeature = new Float64Array(F);
  for (const t of tokens) for (let j = 0; j < F; j++) textFeature[j] += w.embedding[Number(t) * F + j] / tokens.length;
  return { imageFeature, textFeature };
}

/** Memory: T queries cross-attend over [anchor; window; current] with masks → tanh(att·V + q). */
export function refMemory(w: TinyWeights, current: ArrayLike<number>, window: ArrayLike<number>, windowMask: ArrayLike<number>,
  anchor: ArrayLike<number>, anchorMask: number, text: ArrayLike<number>): Float64Array {
  const { featureDim: F, window: K, summaryTokens: T } = w.dims;
  const keys: ArrayLike<number>[] = [anchor, ...Array.from({ length: K }, (_, k) => Array.from(window).slice(k * F, (k + 1) * F)), current];
  const mask = [anchorMask, ...Array.from(windowMask), 1];
  const shift = linear(current, w.wq, F).map((v, j) => v + linear(text, w.wt, F)[j]);
  const kp = keys.map((k) => linear(k, w.wk, F));
  const vp = keys.map((k) => linear(k, w.wv, F));
  const out = new Float64Array(T * F);
  for (let t = 0; t < T; t++) {
    const q = Array.from({ length: F }, (_, j) => w.queries[t * F + j] + shift[j]);
    const scores = kp.map((k, s) => k.reduce((acc, v, j) => acc + v * q[j], 0) / Math.sqrt(F) + (mask[s] - 1) * 1e9);
    const max = Math.max(...scores);
    const e = scores.map((s) => Math.exp(s - max));
    const z = e.reduce((a, b) => a + b, 0);
    for (let j = 0; j < F; j++) {
      let s = 0;
      for (let k = 0; k < keys.length; k++) s += (e[k] / z) * vp[k][j];
      out[t * F + j] = Math.tanh(s + q[j]);
    }
  }
  return out;
}

/** Classifier logit. */
export function refClassifier(w: TinyWeights, summary: ArrayLike<number>): number {
  return linear(summary, w.clsW, 1, w.clsB)[0];
}

/** Action head velocity [H*A]: γ (α⊙state + β + ε tanh(MLP) − noisy). */
export function refActionHead(w: TinyWeights, noisy: ArrayLike<number>, tau: number, state: ArrayLike<number>, summary: ArrayLike<number>): Float64Array {
  const x = [...Array.from(noisy), tau, ...Array.from(state), ...Array.from(summary)];
  const h = linear(x, w.w1, w.dims.hidden, w.b1).map(Math.tanh);
  const A = w.dims.actionDim;
  return linear(h, w.w2, w.dims.horizon * A, w.b2).map((m, i) => {
    const d = i % A;
    return w.gain * (w.holdScale[d] * state[d] + w.holdBias[d] + w.offsetScale * Math.tanh(m) - noisy[i]);
  });
}

/** Largest absolute difference. */
export function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Infinity;
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}
