/** No history (RoboMME's baseline): the memory module sees only the current frame; every memory input is masked. */
import type { MemoryInputs, MemoryOp, MemoryStrategy } from "./types.js";

export class NoMemory implements MemoryStrategy {
  /** Inputs shaped for a memory module with `windowSize` slots of `featureDim` values. */
  constructor(readonly featureDim: number, readonly windowSize: number) {}

  write(feature: Float32Array): MemoryOp[] {
    if (feature.length !== this.featureDim) {
      throw new Error(`memory feature length ${feature.length}, expected ${this.featureDim}`);
    }
    return [];
  }

  inputs(): MemoryInputs {
    const f = this.featureDim;
    return {
      window: new Float32Array(this.windowSize * f), windowMask: new Float32Array(this.windowSize),
      anchor: new Float32Array(f), anchorMask: new Float32Array(1),
    };
  }

  onSubtaskEnd(): MemoryOp[] {
    return [];
  }

  reset(): MemoryOp[] {
    return [];
  }
}
