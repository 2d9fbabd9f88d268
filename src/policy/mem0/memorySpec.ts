/** Which memory strategy a Mem-0 bundle runs with: the manifest's, the run's choice, Mem-0's ablations. */
import type { MemorySpec } from "../../memory/index.js";
import type { PolicyManifest } from "./manifest.js";

/** Ablation switches (run config `policy.anchor` / `policy.sliding`). Defaults: anchor from the manifest, window on. */
export interface Mem0Ablation {
  anchor?: boolean;
  slidingWindow?: boolean;
}

/** A run's choice of memory strategy (run config `memory`); absent: the bundle's own. */
export type MemoryChoice =
  | { strategy: "mem0" | "none" }
  | { strategy: "framesamp"; frames?: number }
  | { strategy: "tokendrop"; budget: number; stride: number; kept: number; grid: number }
  | { strategy: "retrieval"; inner: "framesamp" | "mem0" | "none"; drop: number };

/**
 * The memory strategy a bundle runs with: the run's choice, else the manifest's strategy; Mem-0's
 * anchor and window switches come from the run's ablations. A frame strategy's memory.onnx takes a
 * window of K features, so a frame strategy must fill exactly K slots; a tokendrop bundle's reads
 * TokenDrop's K patch tokens, scored as its manifest says. Neither family runs the other's module.
 */
export function mem0MemorySpec(
  memory: PolicyManifest["memory"], ablation: Mem0Ablation = {}, choice?: MemoryChoice | null, where = "policy.yaml",
): MemorySpec {
  const strategy = choice?.strategy ?? memory.strategy ?? "mem0";
  if (memory.strategy === "tokendrop" && strategy !== "tokendrop") {
    const reads = "memory.onnx reads TokenDrop's patch tokens, not a window of features";
    throw new Error(`memory.strategy ${strategy}: ${where} ${reads}`);
  }
  switch (strategy) {
    case "mem0": {
      const anchor = ablation.anchor ?? memory.anchor;
      return { kind: "mem0", window: memory.window, anchor, sliding: ablation.slidingWindow ?? true };
    }
    case "framesamp": {
      const frames = (choice?.strategy === "framesamp" ? choice.frames : undefined) ?? memory.window;
      if (frames !== memory.window) {
        throw new Error(`memory.frames ${frames}: ${where} memory.onnx reads memory.window K=${memory.window} frames`);
      }
      return { kind: "framesamp", frames };
    }
    case "none": return { kind: "none" };
    case "retrieval": {
      const inner = choice?.strategy === "retrieval" ? choice : { inner: "framesamp" as const, drop: 5 };
      const window = memory.window;
      const spec = inner.inner === "framesamp" ? { kind: "framesamp" as const, frames: window }
        : inner.inner === "mem0" ? { kind: "mem0" as const, window } : { kind: "none" as const };
      return { kind: "retrieval", inner: spec, drop: inner.drop };
    }
    case "tokendrop": {
      const td = memory.tokendrop;
      if (memory.strategy !== "tokendrop" || !td) {
        throw new Error(`memory.strategy tokendrop: ${where} memory.onnx reads a window of K=${memory.window} features, `
          + "not patch tokens (this bundle runs mem0, framesamp or none)");
      }
      const { stride, kept, grid } = td;
      const spec = { kind: "tokendrop" as const, budget: memory.window, stride, kept, grid };
      if (choice?.strategy === "tokendrop") {
        for (const key of ["budget", "stride", "kept", "grid"] as const) {
          if (choice[key] !== spec[key]) {
            const trained = `memory.onnx was trained on TokenDrop's ${key} ${spec[key]}`;
            throw new Error(`memory.${key} ${choice[key]}: ${where} ${trained}`);
          }
        }
      }
      return spec;
    }
  }
}
