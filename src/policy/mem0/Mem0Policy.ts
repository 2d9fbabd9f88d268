/**
 * Mem-0 execution module on onnxruntime-node. observe() runs every tick: encoder → memory write and
 * memory.onnx fusion (the memory rules live in a `MemoryStrategy`, src/memory/) → classifier logit →
 * debounce; act() samples an H x A chunk by flow matching through action_head.onnx from seeded noise,
 * denormalizes it and maps it to the robot layout. The memory ablations (anchor off, sliding window
 * off) are strategies (`mem0MemorySpec`); the subtask-end decision is an `EndDetector` passed in
 * (default: the manifest's debounce; the oracle ablation: `oracleDetector`).
 * NOTE: over 300 lines: a frame reaches memory by three paths (demonstration, stored history, live
 * tick) that share the encode, the input checks and the memory write kept here.
 */
import type { LayoutSpec, RobotProfile } from "../../robot/types.js";
import type { ActionChunk, EpisodeInfo, ObserveResult, Policy, PolicySpec, PreparedObservation } from "../types.js";
import { closeMem0Bundle, openMem0Bundle, type Mem0Bundle } from "./bundle.js";
import { chunkSeed, gaussianNoise, integrateFlow } from "./flowSampler.js";
import { chunkToRobotOrder } from "./layout.js";
import { getLayout, layoutNames } from "../../robot/layout.js";
import type { ModelKey, PolicyManifest } from "./manifest.js";
import {
  createMemoryStrategy, embedCamera, type FrameMeta, type MemoryOp, type MemoryStrategy,
} from "../../memory/index.js";
import { mem0MemorySpec, type Mem0Ablation, type MemoryChoice } from "./memorySpec.js";
import { denormalizeRows, normalize } from "./normalization.js";
import { f32, i64, type ExecutionProvider } from "./ortSession.js";
import { debounceDetector, type EndDetector } from "./endDetector.js";
import { tokenize } from "./tokenizer.js";
import type * as ort from "onnxruntime-node";

export { mem0MemorySpec, type Mem0Ablation, type MemoryChoice } from "./memorySpec.js";

/** Events for the control loop's event log. */
export type Mem0Event =
  | { kind: "memory"; op: MemoryOp; step: number }
  | { kind: "subtask_end"; source: "classifier" | "oracle"; step: number; logit: number; probability: number; positives: number };

/** Construction options. `robot` (or `actionJointNames`) names the action vector's joints. */
export interface Mem0Options {
  robot?: RobotProfile;
  /** Action vector names when no robot profile is given (policy layout order). */
  actionJointNames?: string[];
  provider?: ExecutionProvider;
  /** ORT intra-op threads per session (default 1). */
  threads?: number;
  ablation?: Mem0Ablation;
  /** The run's memory strategy (run config `memory`); absent or null: the manifest's. */
  memory?: MemoryChoice | null;
  /** Decides subtask ends from the classifier logit. Default: the manifest's debounce (threshold, switch_count, rearm). */
  endDetector?: EndDetector;
  onEvent?: (event: Mem0Event) => void;
  log?: (line: string) => void;
}

/** Opens a bundle (`policies/<name>` or its policy.yaml) and returns a ready policy. */
export async function loadMem0Policy(path: string, opts: Mem0Options = {}): Promise<Mem0Policy> {
  const bundle = await openMem0Bundle(path, { provider: opts.provider, log: opts.log, threads: opts.threads });
  try {
    return new Mem0Policy(bundle, opts);
  } catch (err) {
    await closeMem0Bundle(bundle);
    throw err;
  }
}

/** The Mem-0 policy. One instance per robot; not re-entrant (the loop awaits each call). */
export class Mem0Policy implements Policy {
  readonly spec: PolicySpec;
  private readonly m: PolicyManifest;
  private readonly where: string;
  private readonly layout: LayoutSpec;
  /** Robot joint order for joint layouts (undefined: layout order). */
  private readonly robotOrder: string[] | undefined;
  private readonly memory: MemoryStrategy;
  private readonly ends: EndDetector;
  private tokens: BigInt64Array | null = null;
  private seed = 0;
  private step = 0;
  private chunkIndex = 0;
  /** M(1) episodes keep their memory across declared ends (training never clears it inside one). */
  private keepMemoryOnEnd = false;
  /** Normalized state for the action head, the robot-units state chunks may be relative to, the summary. */
  private last: { state: Float32Array; robotState: Float64Array; summary: Float32Array } | null = null;
  /** Image features this episode's demonstration frames and ticks wrote to memory, in order (a history store's). */
  writtenFeatures: Float32Array[] = [];

  constructor(private readonly bundle: Mem0Bundle, private readonly opts: Mem0Options = {}) {
    this.m = bundle.loaded.manifest;
    this.where = bundle.loaded.path;
    const m = this.m;
    this.layout = actionLayout(m, opts, this.where);
    this.robotOrder = robotOrder(this.layout, opts.robot);
    const spec = mem0MemorySpec(m.memory, opts.ablation, opts.memory, this.where);
    this.memory = createMemoryStrategy(spec, m.memory.feature_dim, m.memory.window);
    const { threshold, switch_count: switchCount, rearm } = m.classifier;
    this.ends = opts.endDetector ?? debounceDetector({ threshold, switchCount, rearm });
    this.spec = {
      name: m.name, cameras: [...m.cameras], imageSize: { width: m.image.width, height: m.image.height },
      layout: m.layout.action, horizon: m.horizon, controlHz: m.control_hz,
      pixelNormalization: { mean: [...m.image.pixel_normalization.mean], std: [...m.image.pixel_normalization.std] },
    };
  }

  /** Values per image feature (what encodeFrames and writtenFeatures hold). */
  get featureDim(): number { return this.m.memory.feature_dim; }

  /** SHA-256 of the encoder.onnx that computes those features (checked against the bytes when the bundle opened). */
  get encoderSha256(): string { return this.m.models.encoder.sha256!; }

  /** Execution provider the sessions actually run on. */
  get provider(): ExecutionProvider {
    return this.bundle.sessions.encoder.provider;
  }

  /** Clears the episode's memory (not logged: the episode_start event marks it) and the debounce. */
  async reset(episode: EpisodeInfo): Promise<void> {
    this.memory.reset("episode");
    this.ends.reset();
    this.seed = episode.seed;
    this.step = 0;
    this.chunkIndex = 0;
    this.last = null;
    this.writtenFeatures = [];
    this.tokens = null;
    this.keepMemoryOnEnd = episode.complexity === "M(1)";
    // M(1) tasks run on the global instruction, so it must tokenize. M(n) ones (the default) get
    // theirs from the planner; their global task may lie outside a closed vocabulary.
    if (this.keepMemoryOnEnd) this.setInstruction(episode.instruction);
    else try { this.setInstruction(episode.instruction); } catch { /* replaced by the planner's subtask */ }
  }

  /** Clears all memory; Mem-0 keeps none beyond an episode, so that is the memory reset() clears. */
  async resetSession(): Promise<void> {
    this.memory.reset("session");
  }

  setInstruction(text: string): void {
    this.tokens = tokenize(text, {
      kind: "closed_vocabulary", maxLength: this.m.tokenizer.max_length, padId: this.m.tokenizer.pad_id, vocabulary: this.m.tokenizer.vocabulary,
    }, `${this.where}: tokenizer`);
  }

  /**
   * Encodes each frame and writes it to memory as steps 0..n-1 (no memory.onnx, no classifier, no
   * debounce): the episode's first tick is step n. NOTE: an M(n) episode has no instruction before the
   * planner's first answer (the first tick); its demonstration is encoded with the all-pad tokens.
   */
  async observeDemonstration(frames: readonly PreparedObservation[]): Promise<void> {
    if (this.step !== 0) {
      throw new Error(`${this.where}: observeDemonstration() after the episode's step ${this.step} (call it right after reset)`);
    }
    const m = this.m;
    const tokens = this.tokens ?? new BigInt64Array(m.tokenizer.max_length).fill(BigInt(m.tokenizer.pad_id));
    for (const [i, obs] of frames.entries()) {
      const { state } = this.inputsOf(obs, `demonstration frame ${i}`);
      const enc = await this.encode(obs, state, tokens, `demonstration frame ${i}`);
      this.emitOps(this.memory.write(enc.image_feature!, this.step, this.metaOf(obs, true)));
      this.writtenFeatures.push(enc.image_feature!);
      this.step++;
    }
  }

  /**
   * Stored frames (a history store's sessions: RoboMME-Interference's distractors) written to memory
   * as the next history steps, as they were stored (no encoder, no classifier): after reset() and any
   * demonstration, before the first observe(). A strategy that `readsEmbedding` needs each frame's embedding.
   */
  async observeHistory(frames: readonly { feature: Float32Array; embedding?: Float32Array }[]): Promise<void> {
    if (this.last) throw new Error(`${this.where}: observeHistory() after the episode's first tick (step ${this.step})`);
    if (this.memory.readsViews && frames.length > 0) {
      const why = "memory.strategy tokendrop scores camera pixels; stored sessions keep features only";
      throw new Error(`${this.where}: ${why}`);
    }
    for (const { feature, embedding } of frames) {
      this.emitOps(this.memory.write(feature, this.step, { stampNs: 0n, embedding, history: true }));
      this.step++;
    }
  }

  /** The encoder's image feature of each frame (all-pad tokens), memory untouched: what a history store keeps. */
  async encodeFrames(frames: readonly PreparedObservation[]): Promise<Float32Array[]> {
    const m = this.m;
    const tokens = new BigInt64Array(m.tokenizer.max_length).fill(BigInt(m.tokenizer.pad_id));
    const out: Float32Array[] = [];
    for (const [i, obs] of frames.entries()) {
      const { state } = this.inputsOf(obs, `frame ${i}`);
      out.push((await this.encode(obs, state, tokens, `frame ${i}`)).image_feature!);
    }
    return out;
  }

  async observe(obs: PreparedObservation): Promise<ObserveResult> {
    const m = this.m;
    if (!this.tokens) throw new Error(`${this.where}: observe() before an instruction was set (setInstruction)`);
    const { state } = this.inputsOf(obs, "observation");
    const enc = await this.encode(obs, state, this.tokens, "observation");
    const feature = enc.image_feature!;
    this.writtenFeatures.push(feature);
    // Write first: the first tick after a clear attends to its own feature as the anchor.
    this.emitOps(this.memory.write(feature, this.step, this.metaOf(obs, false)));
    const mem = this.memory.inputs();
    const F = m.memory.feature_dim, K = m.memory.window;
    const current = f32(feature, [1, F]), text = f32(enc.text_feature, [1, F]);
    const { summary } = mem.tokens
      ? await this.run("memory", {
        current, token_pixels: f32(mem.tokens.features, [1, K, mem.tokens.dim]),
        token_positions: f32(Float32Array.from(mem.tokens.positions), [1, K, 3]),
        token_mask: f32(mem.tokens.mask, [1, K]),
        step: f32(Float32Array.of(this.step), [1, 1]), text,
      })
      : await this.run("memory", {
        current, window: f32(mem.window, [1, K, F]), window_mask: f32(mem.windowMask, [1, K]),
        anchor: f32(mem.anchor, [1, 1, F]), anchor_mask: f32(mem.anchorMask, [1, 1]), text,
      });
    const summaryT = f32(summary, [1, m.memory.summary_tokens, F]);
    // A classifier that reads the proprioceptive state gets it normalized, as the action head does.
    const { logit: logitT } = await this.run("classifier", m.models.classifier.inputs.state
      ? { summary: summaryT, state: f32(state, [1, m.state_dim]) } : { summary: summaryT });
    const logit = logitT[0];
    this.last = { state, robotState: Float64Array.from(obs.state), summary };

    const d = this.ends.decide(logit);
    if (d.ended) {
      this.emit({ kind: "subtask_end", source: d.source, step: this.step, logit, probability: d.probability, positives: d.positives });
      if (!this.keepMemoryOnEnd) this.emitOps(this.memory.onSubtaskEnd());
    }
    this.step++;
    return { logit, subtaskEnded: d.ended };
  }

  async act(): Promise<ActionChunk> {
    const m = this.m;
    if (!this.last) throw new Error(`${this.where}: act() before observe() (no memory summary yet)`);
    const { state, robotState, summary } = this.last;
    const H = m.horizon, A = m.action_dim;
    const noise = gaussianNoise(H * A, chunkSeed(this.seed, this.chunkIndex++));
    const scale = m.flow_noise_scale ?? 1;
    if (scale !== 1) for (let i = 0; i < noise.length; i++) noise[i] *= scale;
    const x = await integrateFlow(noise, m.flow_steps, async (xk, tau) => (await this.run("action_head", {
      noisy_actions: f32(xk, [1, H, A]), tau: f32(Float32Array.of(tau), [1, 1]), state: f32(state, [1, m.state_dim]),
      summary: f32(summary, [1, m.memory.summary_tokens, m.memory.feature_dim]),
    })).velocity);
    const robotUnits = denormalizeRows(x, A, m.normalization.action);
    if (m.action_reference === "state") {
      for (let r = 0; r < H; r++) for (let d = 0; d < A; d++) robotUnits[r * A + d] += robotState[d];
    }
    const { jointNames, actions } = chunkToRobotOrder(this.layout, robotUnits, H, this.robotOrder);
    return { jointNames, actions, horizon: H, dim: jointNames.length };
  }

  /** What memory gets with a frame: its stamp, whether it is history, its image embedding or its pixels where read. */
  private metaOf(obs: PreparedObservation, history: boolean): FrameMeta {
    if (this.memory.readsViews) {
      const { width, height } = this.m.image;
      const views = this.m.memory.tokendrop!.cameras
        .map((cam) => ({ width, height, channels: 3, data: obs.images[cam]! }));
      return { stampNs: obs.stampNs, history, views };
    }
    if (!this.memory.readsEmbedding) return { stampNs: obs.stampNs, history };
    const { imageSize: { width, height }, cameras, pixelNormalization } = this.spec;
    const embedding = embedCamera(obs.images[cameras[0]!]!, width, height, pixelNormalization);
    return { stampNs: obs.stampNs, history, embedding };
  }

  /** Checks an observation's images and state against the manifest; returns the normalized state. */
  private inputsOf(obs: PreparedObservation, what: string): { state: Float32Array } {
    const m = this.m;
    if (obs.state.length !== m.state_dim) {
      const expected = `expected ${m.state_dim} (layout ${m.layout.state})`;
      throw new Error(`${this.where}: ${what} state has ${obs.state.length} values, ${expected}`);
    }
    return { state: normalize(obs.state, m.normalization.state) };
  }

  /** encoder.onnx over the observation's camera images (checked whole), its normalized state and `tokens`. */
  private async encode(
    obs: PreparedObservation, state: Float32Array, tokens: BigInt64Array, what: string,
  ): Promise<Record<string, Float32Array>> {
    const m = this.m;
    const { width, height } = m.image;
    const plane = 3 * width * height;
    const images = new Float32Array(m.cameras.length * plane);
    m.cameras.forEach((cam, i) => {
      const img = obs.images[cam];
      if (!img) throw new Error(`${this.where}: ${what} has no image for camera "${cam}" (has: ${Object.keys(obs.images).join(", ") || "none"})`);
      if (img.length !== plane) throw new Error(`${this.where}: camera "${cam}" image has ${img.length} values, expected 3x${height}x${width}=${plane}`);
      images.set(img, i * plane);
    });
    return this.run("encoder", {
      images: f32(images, [1, m.cameras.length, 3, height, width]), state: f32(state, [1, m.state_dim]), tokens: i64(tokens, [1, m.tokenizer.max_length]),
    });
  }

  /** Releases the ONNX sessions. */
  async close(): Promise<void> {
    await closeMem0Bundle(this.bundle);
  }

  private async run(key: ModelKey, byRole: Record<string, ort.Tensor>): Promise<Record<string, Float32Array>> {
    const spec = this.m.models[key];
    const feeds: Record<string, ort.Tensor> = {};
    for (const [role, t] of Object.entries(byRole)) feeds[(spec.inputs as Record<string, { name: string }>)[role].name] = t;
    const out = await this.bundle.sessions[key].session.run(feeds);
    const result: Record<string, Float32Array> = {};
    for (const [role, o] of Object.entries(spec.outputs as Record<string, { name: string }>)) result[role] = out[o.name].data as Float32Array;
    return result;
  }

  private emit(event: Mem0Event): void {
    this.opts.onEvent?.(event);
  }

  private emitOps(ops: MemoryOp[]): void {
    for (const op of ops) this.emit({ kind: "memory", op, step: this.step });
  }
}

function actionLayout(m: PolicyManifest, opts: Mem0Options, where: string): LayoutSpec {
  let layout: LayoutSpec;
  if (opts.robot) {
    try {
      layout = getLayout(opts.robot, m.layout.action);
    } catch (err) {
      throw new Error(`${where}: layout.action: ${(err as Error).message}`);
    }
  } else if (opts.actionJointNames) {
    layout = { kind: "joint", names: opts.actionJointNames };
  } else {
    throw new Error(`${where}: Mem0Policy needs a robot profile or actionJointNames to name the ${m.action_dim} action dims`);
  }
  const n = layoutNames(layout).length;
  if (n !== m.action_dim) throw new Error(`${where}: layout "${m.layout.action}" has ${n} dims, manifest action_dim is ${m.action_dim}`);
  return layout;
}

/** Joint layouts come out in the robot's own joint order; end-effector layouts keep theirs. */
function robotOrder(layout: LayoutSpec, robot?: RobotProfile): string[] | undefined {
  if (!robot || layout.kind !== "joint") return undefined;
  return robot.joints.map((j) => j.name).filter((n) => layout.names.includes(n));
}
