/** Memory layer public surface: the MemoryStrategy seam, its spec and factory, Mem-0's anchor + window. */
export type { FrameMeta, MemoryInputs, MemoryOp, MemorySpec, MemoryStrategy, ResetScope } from "./types.js";
export { createMemoryStrategy, MEMORY_KINDS } from "./createMemoryStrategy.js";
export { Mem0Memory } from "./Mem0Memory.js";
