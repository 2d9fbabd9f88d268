/** Builds a memory strategy from its spec; the one place that maps a `kind` to an implementation. */
import { Mem0Memory } from "./Mem0Memory.js";
import type { MemorySpec, MemoryStrategy } from "./types.js";

/** Every strategy kind this runtime implements (a test-vector case of another kind is skipped, by name). */
export const MEMORY_KINDS: readonly MemorySpec["kind"][] = ["mem0"];

/** A fresh, empty strategy for features of `featureDim` values. Throws naming a bad size. */
export function createMemoryStrategy(spec: MemorySpec, featureDim: number): MemoryStrategy {
  switch (spec.kind) {
    case "mem0": return new Mem0Memory(featureDim, spec.window, { anchor: spec.anchor, sliding: spec.sliding });
  }
}
