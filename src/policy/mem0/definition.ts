/** The Mem-0 policy family, as the policy registry finds it by the manifest's `kind: mem0`. */
import { loadMem0Policy, type Mem0Options } from "./Mem0Policy.js";

export type { Mem0Options } from "./Mem0Policy.js";

/** Registry entry for Mem-0 bundles. */
export const definition = {
  kind: "mem0",
  load: (bundlePath: string, opts: Mem0Options) => loadMem0Policy(bundlePath, opts),
};
