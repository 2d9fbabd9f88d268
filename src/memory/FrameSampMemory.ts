/**
 * RoboMME's FrameSamp perceptual memory: the whole history since the last reset is kept, and each
 * tick's memory is `frames` of it sampled evenly from frame 0 to the current one (frameSampling.ts),
 * oldest first, right-padded with a mask. The current frame is always in the sample, demonstration
 * frames are history like any other, and a subtask end clears nothing (RoboMME has no such clears).
 */
import { frameSamplingIndices } from "./frameSampling.js";
import type { MemoryInputs, MemoryOp, MemoryStrategy, ResetScope } from "./types.js";

export class FrameSampMemory implements MemoryStrategy {
  private history: Float32Array[] = [];

  /** Features of `featureDim` values; `frames` slots (the memory module's window K). */
  constructor(readonly featureDim: number, readonly frames: number) {
    if (!Number.isInteger(featureDim) || featureDim < 1) {
      throw new Error(`memory feature_dim ${featureDim}: expected an integer >= 1`);
    }
    if (!Number.isInteger(frames) || frames < 1) {
      throw new Error(`framesamp frames ${frames}: expected an integer >= 1`);
    }
  }

  write(feature: Float32Array): MemoryOp[] {
    if (feature.length !== this.featureDim) {
      throw new Error(`memory feature length ${feature.length}, expected ${this.featureDim}`);
    }
    this.history.push(Float32Array.from(feature));
    return [];
  }

  inputs(): MemoryInputs {
    const f = this.featureDim, k = this.frames;
    const window = new Float32Array(k * f);
    const windowMask = new Float32Array(k);
    if (this.history.length > 0) {
      frameSamplingIndices(this.history.length - 1, k).forEach((h, i) => {
        window.set(this.history[h]!, i * f);
        windowMask[i] = 1;
      });
    }
    return { window, windowMask, anchor: new Float32Array(f), anchorMask: new Float32Array(1) };
  }

  onSubtaskEnd(): MemoryOp[] {
    return [];
  }

  reset(_scope: ResetScope): MemoryOp[] {
    const dropped = this.history.length;
    this.history = [];
    return [{ kind: "history_clear", dropped }];
  }
}
