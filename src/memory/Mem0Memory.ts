/**
 * Mem-0's memory (RMBench): an anchor, the first feature written since the last clear, and a
 * sliding window of the K features written before the current one. A declared subtask end and
 * either reset clear both (Mem-0 keeps nothing beyond an episode). The ablations leave a part out.
 */
import type { MemoryInputs, MemoryOp, MemoryStrategy, ResetScope } from "./types.js";

/** The anchor slot: filled by the first write after a clear, then fixed until the next clear. */
class AnchorSlot {
  private feature: Float32Array | null = null;

  /** Takes `feature` as the anchor when empty; returns whether it did. */
  write(feature: Float32Array): boolean {
    if (this.feature) return false;
    this.feature = Float32Array.from(feature);
    return true;
  }

  /** The anchor, or null when empty. */
  get value(): Float32Array | null {
    return this.feature;
  }

  /** Empties the slot; returns whether it held an anchor. */
  clear(): boolean {
    const had = this.feature !== null;
    this.feature = null;
    return had;
  }
}

/**
 * The sliding window: shows the K writes before the latest one, oldest first. The latest write is
 * the tick's current feature (memory.onnx takes it separately) and joins the window at the next write.
 */
class SlidingWindow {
  private before: Float32Array[] = [];
  private latest: Float32Array | null = null;

  constructor(private readonly size: number) {}

  write(feature: Float32Array): void {
    if (this.latest) {
      this.before.push(this.latest);
      if (this.before.length > this.size) this.before.shift();
    }
    this.latest = Float32Array.from(feature);
  }

  /** Valid slots for the tick of the latest write, oldest first (at most K). */
  get slots(): readonly Float32Array[] {
    return this.before;
  }

  /** Empties the window; returns how many features it held once the latest write had joined it. */
  clear(): number {
    const held = Math.min(this.size, this.before.length + (this.latest ? 1 : 0));
    this.before = [];
    this.latest = null;
    return held;
  }
}

/** Mem-0's anchor + sliding window; built by `createMemoryStrategy` from a `mem0` spec. */
export class Mem0Memory implements MemoryStrategy {
  private readonly anchor: AnchorSlot | null;
  private readonly window: SlidingWindow | null;

  /**
   * Features of `featureDim` values, a window of `windowSize` (K >= 1) slots; `parts` leaves the
   * anchor or the window out (the ablations), their inputs then stay zero and masked.
   */
  constructor(readonly featureDim: number, readonly windowSize: number, parts: { anchor: boolean; sliding: boolean }) {
    if (!Number.isInteger(featureDim) || featureDim < 1) {
      throw new Error(`memory feature_dim ${featureDim}: expected an integer >= 1`);
    }
    if (!Number.isInteger(windowSize) || windowSize < 1) {
      throw new Error(`memory window K=${windowSize}: expected an integer >= 1`);
    }
    this.anchor = parts.anchor ? new AnchorSlot() : null;
    this.window = parts.sliding ? new SlidingWindow(windowSize) : null;
  }

  write(feature: Float32Array): MemoryOp[] {
    if (feature.length !== this.featureDim) {
      throw new Error(`memory feature length ${feature.length}, expected ${this.featureDim}`);
    }
    const ops: MemoryOp[] = [];
    if (this.anchor?.write(feature)) ops.push({ kind: "anchor_set" });
    this.window?.write(feature);
    return ops;
  }

  inputs(): MemoryInputs {
    const f = this.featureDim, k = this.windowSize;
    const window = new Float32Array(k * f);
    const windowMask = new Float32Array(k);
    this.window?.slots.forEach((feat, i) => {
      window.set(feat, i * f);
      windowMask[i] = 1;
    });
    const anchor = new Float32Array(f);
    const anchorMask = new Float32Array(1);
    const value = this.anchor?.value;
    if (value) {
      anchor.set(value);
      anchorMask[0] = 1;
    }
    return { window, windowMask, anchor, anchorMask };
  }

  onSubtaskEnd(): MemoryOp[] {
    return [this.clear()];
  }

  /** Both scopes clear anchor and window: Mem-0 has no memory that outlives an episode. */
  reset(_scope: ResetScope): MemoryOp[] {
    return [this.clear()];
  }

  private clear(): MemoryOp {
    const dropped = this.window?.clear() ?? 0;
    const anchorCleared = this.anchor?.clear() ?? false;
    return { kind: "window_clear", dropped, anchorCleared };
  }
}
