/** Builds a memory strategy from its spec; the one place that maps a `kind` to an implementation. */
import { FrameSampMemory } from "./FrameSampMemory.js";
import { Mem0Memory } from "./Mem0Memory.js";
import { NoMemory } from "./NoMemory.js";
import { RetrievalMemory } from "./RetrievalMemory.js";
import { TokenDropMemory } from "./TokenDropMemory.js";
import type { MemorySpec, MemoryStrategy } from "./types.js";

/** Every strategy kind this runtime implements (a test-vector case of another kind is skipped, by name). */
export const MEMORY_KINDS: readonly MemorySpec["kind"][] = ["mem0", "framesamp", "tokendrop", "none", "retrieval"];

/**
 * A fresh, empty strategy for features of `featureDim` values. `moduleWindow`: the memory module's
 * window slots, the shape `none` fills with padding. Throws naming a bad size.
 */
export function createMemoryStrategy(spec: MemorySpec, featureDim: number, moduleWindow = 1): MemoryStrategy {
  switch (spec.kind) {
    case "mem0": return new Mem0Memory(featureDim, spec.window, { anchor: spec.anchor, sliding: spec.sliding });
    case "framesamp": return new FrameSampMemory(featureDim, spec.frames);
    case "tokendrop": return new TokenDropMemory(spec);
    case "none": return new NoMemory(featureDim, moduleWindow);
    case "retrieval": return new RetrievalMemory(featureDim, spec.inner, spec.drop, moduleWindow);
  }
}
