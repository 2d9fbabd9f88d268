/** Memory layer public surface: the MemoryStrategy seam, its spec and factory, and the strategies. */
export type {
  FrameMeta, MemoryInputs, MemoryOp, MemorySpec, MemoryStrategy, ResetScope, RetrievalInnerSpec, TokenInputs,
  ViewPixels,
} from "./types.js";
export { createMemoryStrategy, MEMORY_KINDS } from "./createMemoryStrategy.js";
export { frameSamplingIndices } from "./frameSampling.js";
export { FrameSampMemory } from "./FrameSampMemory.js";
export { FrameIndex, type Nearest } from "./frameIndex.js";
export { embedCamera, IMAGE_EMBEDDING_DIM, imageEmbedding, THUMBNAIL, thumbnailRgb } from "./imageEmbedding.js";
export { HistoryStore, SessionWriter, type SessionInfo, type StoredFrame } from "./historyStore.js";
export { Mem0Memory } from "./Mem0Memory.js";
export { NoMemory } from "./NoMemory.js";
export { boundaryScores, RetrievalMemory } from "./RetrievalMemory.js";
export { TokenDropMemory } from "./TokenDropMemory.js";
