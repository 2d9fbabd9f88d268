/**
 * Mem-0 memory state owned by the runtime (pure, no ONNX): the anchor is the first feature written
 * after a reset or a declared subtask end; the sliding window keeps the last K features written
 * BEFORE the current one (the current feature is handed to memory.onnx separately).
 */

/** Memory bank contents; features are copied in, never aliased. */
export interface MemoryBank {
  readonly featureDim: number;
  readonly windowSize: number;
  anchor: Float32Array | null;
  /** Oldest first, at most `windowSize` entries. */
  window: Float32Array[];
}

/** What a write did, for the event log (`anchor_set` only when the anchor was empty). */
export type MemoryOp = { kind: "anchor_set" } | { kind: "window_clear"; dropped: number; anchorCleared: boolean };

/** Tensors fed to memory.onnx for one tick, batch 1. */
export interface MemoryInputs {
  /** [1, K, F], zero-padded at the end. */
  window: Float32Array;
  /** [1, K]: 1 for a valid slot, 0 for padding. */
  windowMask: Float32Array;
  /** [1, 1, F]; zeros when absent. */
  anchor: Float32Array;
  /** [1, 1]: 1 when the anchor is valid. */
  anchorMask: Float32Array;
}

/** Creates an empty bank for features of `featureDim` and a window of `windowSize` (K >= 1). */
export function createMemoryBank(featureDim: number, windowSize: number): MemoryBank {
  if (!Number.isInteger(windowSize) || windowSize < 1) throw new Error(`memory window K=${windowSize}: expected an integer >= 1`);
  return { featureDim, windowSize, anchor: null, window: [] };
}

/**
 * Tensors for memory.onnx given the bank as it is BEFORE writing the current feature.
 * `useAnchor=false` / `useWindow=false` (ablations) mask the slot out entirely.
 */
export function memoryInputs(bank: MemoryBank, useAnchor = true, useWindow = true): MemoryInputs {
  const { featureDim: f, windowSize: k } = bank;
  const window = new Float32Array(k * f);
  const windowMask = new Float32Array(k);
  if (useWindow) {
    bank.window.forEach((feat, i) => {
      window.set(feat, i * f);
      windowMask[i] = 1;
    });
  }
  const anchor = new Float32Array(f);
  const anchorMask = new Float32Array(1);
  if (useAnchor && bank.anchor) {
    anchor.set(bank.anchor);
    anchorMask[0] = 1;
  }
  return { window, windowMask, anchor, anchorMask };
}

/**
 * Sets the anchor when empty. Called with the current feature before memory.onnx runs, so the
 * first tick after a reset already attends to its own anchor. Returns the op performed, if any.
 */
export function setAnchorIfEmpty(bank: MemoryBank, feature: Float32Array): MemoryOp | null {
  checkDim(bank, feature);
  if (bank.anchor) return null;
  bank.anchor = Float32Array.from(feature);
  return { kind: "anchor_set" };
}

/** Appends the current feature to the window after memory.onnx ran, dropping the oldest past K. */
export function pushWindow(bank: MemoryBank, feature: Float32Array): void {
  checkDim(bank, feature);
  bank.window.push(Float32Array.from(feature));
  while (bank.window.length > bank.windowSize) bank.window.shift();
}

/** Clears anchor and window (reset or declared subtask end). */
export function clearMemory(bank: MemoryBank): MemoryOp {
  const op: MemoryOp = { kind: "window_clear", dropped: bank.window.length, anchorCleared: bank.anchor !== null };
  bank.anchor = null;
  bank.window = [];
  return op;
}

function checkDim(bank: MemoryBank, feature: Float32Array): void {
  if (feature.length !== bank.featureDim) {
    throw new Error(`memory feature length ${feature.length}, expected ${bank.featureDim}`);
  }
}
