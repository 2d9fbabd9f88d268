/**
 * Memory contracts (DESIGN.md §3): a `MemoryStrategy` owns what a policy remembers. The policy
 * writes one feature per control tick, then reads the inputs for its memory module; a declared
 * subtask end and the episode / session resets clear what the strategy says they clear.
 * Semantics of each kind, pinned by test/vectors/memory.json: src/memory/README.md.
 */

/** What a reset clears: one episode's memory, or everything including what outlives episodes. */
export type ResetScope = "episode" | "session";

/** One camera image as TokenDrop scores it: CHW float32, pixels in [-1, 1]. */
export interface ViewPixels {
  width: number;
  height: number;
  channels: number;
  data: Float32Array;
}

/** About the frame a feature came from (strategies that sample or retrieve by time read it). */
export interface FrameMeta {
  /** The observation's stamp, bus clock (ns). */
  stampNs: bigint;
  /**
   * The frame's images in the policy's camera order; only strategies that score pixels (TokenDrop)
   * need them. The strategy may keep them: the caller must not change them after the write.
   */
  views?: readonly ViewPixels[];
  /**
   * The frame's fixed image embedding (imageEmbedding.ts), given where the strategy `readsEmbedding`:
   * what retrieval splits the history and finds the nearest session on.
   */
  embedding?: Float32Array;
  /**
   * True for a frame from before the episode's own ticks (its demonstration prompt, stored sessions):
   * written to memory, never acted on. Retrieval searches these; the episode's own frames follow them.
   */
  history?: boolean;
}

/**
 * A memory operation, recorded in the event log as `{event: "memory", op, step}`:
 * `anchor_set` when a write fills the empty anchor; `window_clear` on a declared subtask end, with
 * the features the window held (`dropped`, counting the tick's own write) and whether an anchor went;
 * `history_clear` when a reset empties a strategy that keeps the whole history (`dropped` frames);
 * `history_split` on the episode's first own frame, from retrieval: how it split the `frames` history
 * frames (each session's first index) and the session it retrieved for that frame ([from, to)).
 */
export type MemoryOp =
  | { kind: "anchor_set" }
  | { kind: "window_clear"; dropped: number; anchorCleared: boolean }
  | { kind: "history_clear"; dropped: number }
  | { kind: "history_split"; frames: number; starts: number[]; retrieved: [number, number] };

/** Tensors fed to Mem-0's memory.onnx for one tick, batch 1 (the current feature goes in separately). */
export interface MemoryInputs {
  /** [1, K, F], oldest first, zero-padded at the end. */
  window: Float32Array;
  /** [1, K]: 1 for a valid slot, 0 for padding. */
  windowMask: Float32Array;
  /** [1, 1, F]; zeros when absent. */
  anchor: Float32Array;
  /** [1, 1]: 1 when the anchor is valid. */
  anchorMask: Float32Array;
  /** TokenDrop's kept patch tokens (absent for the frame strategies, whose memory is the window). */
  tokens?: TokenInputs;
}

/** Patch tokens for a token memory module, batch 1, B = the token budget, right-padded. */
export interface TokenInputs {
  /** [1, B, D]: each token's patch pixels, (channel, row, column) order, in [-1, 1]. */
  features: Float32Array;
  /** [1, B, 3]: (memory step, view, patch) of each token, sorted; padding is zero. */
  positions: Int32Array;
  /** [1, B]: 1 for a kept token, 0 for padding. */
  mask: Float32Array;
  /** D: values per token. */
  dim: number;
}

/**
 * Which strategy to build, as a run names it (and as test/vectors/memory.json spells it).
 * `mem0`: anchor + sliding window of `window` (K >= 1) features; `anchor: false` / `sliding: false`
 * are the "no anchor" / "no window" ablations (that part is left out and its inputs stay masked).
 * `framesamp`: RoboMME's frame sampling, `frames` slots (its 512-token budget / 16 tokens per frame = 32).
 * `tokendrop`: RoboMME's token dropping: a `budget` of patch tokens out of at most `kept` scored ones,
 * scored every `stride` steps over a `grid` x `grid` patch grid per view.
 * `none`: no history (the baseline): every memory input masked.
 * `retrieval`: the session of a long history nearest the current frame, then the current session,
 * fed to `inner`; sessions split where an adjacent-frame step exceeds `drop` times the median step.
 */
export type MemorySpec =
  | { kind: "mem0"; window: number; anchor: boolean; sliding: boolean }
  | { kind: "framesamp"; frames: number }
  | { kind: "tokendrop"; budget: number; stride: number; kept: number; grid: number }
  | { kind: "none" }
  | { kind: "retrieval"; inner: RetrievalInnerSpec; drop: number };

/** What retrieval feeds its retrieved session to: a strategy over features alone. */
export type RetrievalInnerSpec =
  | { kind: "framesamp"; frames: number }
  | { kind: "mem0"; window: number }
  | { kind: "none" };

/**
 * What a policy remembers, behind one seam. Per tick the policy calls `write` with the tick's
 * feature, THEN `inputs()`: a write may become the tick's own anchor (the first tick after a clear
 * attends to itself), while the window it shows excludes that write (it holds the writes before it).
 * Not re-entrant; features are copied in, never aliased. Every method returns the ops it performed.
 */
export interface MemoryStrategy {
  /** True when every write must carry `meta.embedding` (the policy computes it only then). */
  readonly readsEmbedding?: boolean;
  /** True when every write must carry `meta.views`, the camera pixels it scores (TokenDrop). */
  readonly readsViews?: boolean;
  /** Stores the feature of the tick at `step` (called once per tick, before `inputs()`). Throws on a wrong length. */
  write(feature: Float32Array, step: number, meta: FrameMeta): MemoryOp[];
  /** The memory module's inputs on the tick of the latest write. */
  inputs(): MemoryInputs;
  /** A declared subtask end (Mem-0 clears anchor and window). Not called where a task keeps memory across ends. */
  onSubtaskEnd(): MemoryOp[];
  /** Before each episode ("episode"), or when a session ends ("session": what outlives episodes goes too). */
  reset(scope: ResetScope): MemoryOp[];
}
