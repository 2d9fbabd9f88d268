/**
 * A Policy that writes what the policy it wraps did to an MCAP (behaviour added by wrapping): each
 * chunk act() returned, every observed tick's classifier logit, and each declared subtask end. The
 * replay through a policy (replayPolicy.ts) writes `<name>.policy.mcap` with it.
 */
import { RELIABLE_QOS } from "../bus/types.js";
import { encode } from "../msgs/codec.js";
import { timeFromNs } from "../msgs/types.js";
import type { McapRecorder } from "../record/mcapRecorder.js";
import type { ActionChunk, EpisodeInfo, ObserveResult, Policy, PreparedObservation } from "../policy/types.js";

const CHUNK_TOPIC = "/engram/policy/chunk";
const LOGIT_TOPIC = "/engram/policy/logit";
const SUBTASK_END_TOPIC = "/engram/policy/subtask_end";

/** Wraps a policy; its counts are of the calls that returned. */
export class PolicyTap implements Policy {
  /** Chunks act() returned. */
  chunks = 0;
  /** Ticks observed. */
  observed = 0;
  /** Demonstration frames observed (observeDemonstration). */
  demonstrated = 0;
  private lastStampNs = 0n;

  /**
   * `startNs` and `periodNs` turn an observation's stamp into its control step (tick k runs at
   * start + (k+1) periods, as the lock-step loop paces it).
   */
  constructor(
    private readonly inner: Policy, private readonly recorder: McapRecorder,
    private readonly startNs: bigint, private readonly periodNs: bigint,
  ) {}

  /** Adds the three topics to `recorder` (before the first write). */
  static async addTopics(recorder: McapRecorder): Promise<void> {
    await recorder.addTopic(CHUNK_TOPIC, "trajectory_msgs/msg/JointTrajectory", RELIABLE_QOS);
    await recorder.addTopic(LOGIT_TOPIC, "std_msgs/msg/Float32", RELIABLE_QOS);
    await recorder.addTopic(SUBTASK_END_TOPIC, "std_msgs/msg/String", RELIABLE_QOS);
  }

  get spec(): Policy["spec"] { return this.inner.spec; }

  reset(episode: EpisodeInfo): Promise<void> { return this.inner.reset(episode); }
  resetSession(): Promise<void> { return this.inner.resetSession(); }

  setInstruction(text: string): void { this.inner.setInstruction(text); }

  /** Passes the demonstration through (the episode's MCAP holds its frames: trial/demonstration.ts). */
  async observeDemonstration(frames: readonly PreparedObservation[]): Promise<void> {
    await this.inner.observeDemonstration(frames);
    this.demonstrated += frames.length;
  }

  async observe(obs: PreparedObservation): Promise<ObserveResult> {
    const r = await this.inner.observe(obs);
    this.observed++;
    this.lastStampNs = obs.stampNs;
    await this.recorder.write(LOGIT_TOPIC, encode("std_msgs/msg/Float32", { data: r.logit }), obs.stampNs);
    if (r.subtaskEnded) {
      const step = Number((obs.stampNs - this.startNs) / this.periodNs) - 1;
      const data = JSON.stringify({ step, logit: r.logit });
      await this.recorder.write(SUBTASK_END_TOPIC, encode("std_msgs/msg/String", { data }), obs.stampNs);
    }
    return r;
  }

  async act(): Promise<ActionChunk> {
    const chunk = await this.inner.act();
    this.chunks++;
    const stampNs = this.lastStampNs;
    const points = Array.from({ length: chunk.horizon }, (_, h) => ({
      positions: chunk.actions.slice(h * chunk.dim, (h + 1) * chunk.dim), velocities: [], accelerations: [], effort: [],
      time_from_start: timeFromNs(BigInt(h + 1) * this.periodNs),
    }));
    const msg = { header: { stamp: timeFromNs(stampNs), frame_id: "" }, joint_names: chunk.jointNames, points };
    await this.recorder.write(CHUNK_TOPIC, encode("trajectory_msgs/msg/JointTrajectory", msg), stampNs);
    return chunk;
  }
}
