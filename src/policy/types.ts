/** Policy contracts (DESIGN.md §3). The runtime calls observe() every tick and act() when the scheduler needs a chunk. */
import type { MemoryComplexity } from "./planner/gating.js";

/** What reset() (the episode reset) gets about the episode about to start. */
export interface EpisodeInfo {
  task: string;
  episode: number;
  seed: number;
  /** Global instruction text (M(1) tasks run on it; M(n) tasks hand it to the planner). */
  instruction: string;
  /** M(1): one instruction segment, so the memory spans the whole episode; M(n) (default): a declared subtask end clears it. */
  complexity?: MemoryComplexity;
}

/** What the policy sees on one tick, already preprocessed (resized, normalized). */
export interface PreparedObservation {
  stampNs: bigint;
  /** Camera name → CHW float32 image, the manifest's size and pixel normalization. */
  images: Record<string, Float32Array>;
  /** State in the policy layout, robot units (normalization happens inside the policy). */
  state: Float64Array;
}

/** Result of one observe() tick. */
export interface ObserveResult {
  /** Classifier logit for "the current subtask has ended". */
  logit: number;
  /** True when the debounce declared a subtask end on this tick (memory already cleared). */
  subtaskEnded: boolean;
}

/** H x D actions in robot units, in the order of `jointNames` (robot layout). */
export interface ActionChunk {
  jointNames: string[];
  /** Row-major H x D. */
  actions: Float64Array;
  horizon: number;
  dim: number;
}

/** What the runtime must know to feed a policy: cameras, image size, layout, horizon, rates. */
export interface PolicySpec {
  name: string;
  cameras: string[];
  imageSize: { width: number; height: number };
  /** Layout name in the robot profile the state/action vectors use. */
  layout: string;
  horizon: number;
  controlHz?: number;
  /** Applied by observation preprocessing to RGB in [0, 1]: (p - mean[c]) / std[c]. Absent: none. */
  pixelNormalization?: { mean: number[]; std: number[] };
}

/** A policy the control loop drives (DESIGN.md §3). Wrap to add behaviour (logging, remote). */
export interface Policy {
  readonly spec: PolicySpec;
  /** Clears the episode's memory; session memory (what outlives episodes) stays. Called before each episode. */
  reset(episode: EpisodeInfo): Promise<void>;
  /**
   * Clears session memory as well: everything the policy remembers. Called when a session ends (a new
   * one starts empty; a fresh policy already is); reset(episode) still comes before the next episode.
   */
  resetSession(): Promise<void>;
  /**
   * A demonstration prompt (README, "Demonstration prompts"): called after reset(), before the
   * episode's first observe(), at most once per episode. The frames enter memory as history steps
   * 0..n-1 (the episode's ticks follow them); no classifier decision is made and no action comes of it.
   */
  observeDemonstration(frames: readonly PreparedObservation[]): Promise<void>;
  /** Called on every control tick: writes memory, returns the classifier logit. */
  observe(obs: PreparedObservation): Promise<ObserveResult>;
  /** Called only when the scheduler needs a chunk. H x D, robot units, robot layout. */
  act(): Promise<ActionChunk>;
  /** Subtask from the planner (M(n)) or the global task (M(1)). */
  setInstruction(text: string): void;
}
