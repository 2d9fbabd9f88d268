/**
 * RoboMME-Interference runs (run config `interference: {k, pool}`): before each episode's first tick,
 * after its demonstration, k sessions of other task families from a history store (the pool) enter
 * the policy's memory, each trimmed to `frames` stored frames (FrameSamp's rule over the session), so
 * the episode's buffer is its demonstration, then k distractors, then its own frames. The sessions are
 * drawn by the episode's seed (the same seed, the same distractors); the `interference` event names
 * them and how many frames each gave (the true session boundaries a report scores retrieval's split
 * on). Only an in-process Mem-0 policy takes stored features: a remote one is refused by name.
 */
import { frameSamplingIndices, HistoryStore, imageEmbedding } from "../memory/index.js";
import { rgbFromJpeg } from "../msgs/image.js";
import { mulberry32 } from "../policy/mem0/flowSampler.js";
import { Mem0Policy } from "../policy/mem0/Mem0Policy.js";
import type { Policy } from "../policy/types.js";
import type { EventLog } from "./eventLog.js";

export class DistractorFeed {
  private constructor(
    private readonly pool: HistoryStore, private readonly policy: Mem0Policy,
    readonly k: number, readonly frames: number,
  ) {}

  /**
   * Opens the pool to read, before the run's first episode. Throws naming a policy without features, a
   * missing store, one of other features (another length, or sessions another encoder computed: its
   * features mean nothing to this policy's memory), or a pool with fewer than k sessions of tasks other
   * than `task`.
   */
  static async open(
    o: { pool: string; k: number; frames: number }, policy: Policy, task: string,
  ): Promise<DistractorFeed> {
    if (!(policy instanceof Mem0Policy)) {
      throw new Error(`interference: policy ${policy.spec.name} is not an in-process Mem-0 bundle `
        + "(stored features cannot reach its memory)");
    }
    const pool = await HistoryStore.openToRead(o.pool, policy.featureDim);
    const foreign = pool.sessions().filter((s) => s.encoder !== policy.encoderSha256);
    if (foreign.length > 0) {
      pool.close();
      const s = foreign[0]!;
      throw new Error(`interference: the pool ${o.pool} holds ${foreign.length} session(s) whose features `
        + `another encoder computed (${s.id}: ${s.encoder === null ? "stored before sessions named their encoder"
          : `encoder ${s.encoder.slice(0, 12)}`}; this policy's encoder.onnx is ${policy.encoderSha256.slice(0, 12)}); `
        + `store a pool with this bundle (engram run --history DIR)`);
    }
    const others = pool.sessions().filter((s) => s.task !== task).length;
    if (others < o.k) {
      throw new Error(`interference k=${o.k}: the pool ${o.pool} holds ${others} session(s) `
        + `of tasks other than ${task}`);
    }
    return new DistractorFeed(pool, policy, o.k, o.frames);
  }

  /**
   * Feeds the episode's k distractors (none of `task`'s family), drawn by `seed`: each kept frame's
   * stored feature, and the image embedding of its stored thumbnail (what retrieval splits on).
   */
  async feed(events: EventLog, task: string, seed: number): Promise<void> {
    const others = this.pool.sessions().filter((s) => s.task !== task);
    const rand = mulberry32(seed);
    const order = others.map((s) => ({ s, key: rand() })).sort((a, b) => a.key - b.key)
      .slice(0, this.k).map((x) => x.s);
    const frames: Array<{ feature: Float32Array; embedding: Float32Array }> = [];
    const sessionFrames: number[] = [];
    for (const s of order) {
      const features = this.pool.features(s.id), thumbnails = await this.pool.thumbnails(s.id);
      const kept = frameSamplingIndices(features.length - 1, this.frames);
      sessionFrames.push(kept.length);
      for (const i of kept) {
        const what = `${this.pool.dir} session ${s.id} thumbnail ${i}`;
        const { rgb, width, height } = await rgbFromJpeg(thumbnails[i]!, what);
        frames.push({ feature: features[i]!, embedding: imageEmbedding(rgb, width, height, what) });
      }
    }
    await this.policy.observeHistory(frames);
    events.emit({
      event: "interference", k: this.k, sessions: order.map((s) => s.id), frames: frames.length,
      session_frames: sessionFrames,
    });
  }

  close(): void {
    this.pool.close();
  }
}
