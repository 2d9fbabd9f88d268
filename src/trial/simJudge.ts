/**
 * The judge of a trial whose robot is the sim twin running as its own node (`engram sim` over
 * ROS 2): it asks the twin for each episode's scene over the bus and takes the twin's own success
 * check as the verdict.
 */
import { randomUUID } from "node:crypto";
import type { Bus } from "../bus/types.js";
import { SIM_EPISODE, type SimEpisodeMsg } from "../msgs/simTopics.js";
import { SIM_RESET, SIM_RESET_DONE, type SimResetReply } from "../msgs/simReset.js";
import type { EpisodeScene, OperatorOutcome, TrialJudge } from "./operator.js";

/** Options of a SimJudge. */
export interface SimJudgeOptions {
  /** Prompt and notice lines (default: stderr). */
  write?: (line: string) => void;
  /** How long to wait for the twin's reply to a reset request, ms (default 15 000). */
  resetTimeoutMs?: number;
}

interface Waiter { id: string; timer: NodeJS.Timeout; resolve: (reply: SimResetReply) => void }

/**
 * Before each episode, publishes the scene (task, seed, a request id unique to this run and
 * episode) on the latched `/sim/reset` and waits for `/sim/reset_done` to carry the same id: the
 * twin has set that scene and its sensors publish from it. No reply within the timeout, or a
 * refusal, rejects naming the topics, the request and the twin's reason. The verdict is the twin's
 * latched `/sim/episode` (std_msgs/msg/String JSON, `done: true` with `success`); only a message
 * about the episode's own task and seed, received while it runs, counts. At the step limit without
 * a verdict the episode is a failure, as in the in-process sim.
 */
export class SimJudge implements TrialJudge {
  private running = false;
  private simVerdict: OperatorOutcome | null = null;
  private scene: EpisodeScene | null = null;
  private waiter: Waiter | null = null;
  private readonly runId = randomUUID().slice(0, 8);
  private readonly requestReset: (cdr: Uint8Array) => void;
  private readonly offs: Array<() => void>;
  private readonly write: (line: string) => void;
  private readonly resetTimeoutMs: number;
  readonly stopRequested = false;

  constructor(bus: Bus, options: SimJudgeOptions | ((line: string) => void) = {}) {
    const o = typeof options === "function" ? { write: options } : options;
    this.write = o.write ?? ((l) => process.stderr.write(l + "\n"));
    this.resetTimeoutMs = o.resetTimeoutMs ?? 15_000;
    this.requestReset = bus.advertise(SIM_RESET.topic, SIM_RESET.type, SIM_RESET.qos);
    this.offs = [
      bus.subscribe(SIM_EPISODE.topic, SIM_EPISODE.type, SIM_EPISODE.qos, (cdr) => {
        if (!this.running) return;
        let msg: SimEpisodeMsg;
        try { msg = SIM_EPISODE.decode(cdr); } catch (err) {
          this.write(`[judge] ${(err as Error).message}`);
          return;
        }
        if (this.scene && (msg.task !== this.scene.task || msg.seed !== this.scene.seed)) return;
        if (!msg.done || this.simVerdict !== null) return;
        this.simVerdict = msg.success ? "success" : "failure";
      }),
      bus.subscribe(SIM_RESET_DONE.topic, SIM_RESET_DONE.type, SIM_RESET_DONE.qos, (cdr) => this.onReply(cdr)),
    ];
  }

  private onReply(cdr: Uint8Array): void {
    let reply: SimResetReply;
    try {
      reply = SIM_RESET_DONE.decode(cdr);
    } catch (err) {
      this.write(`[judge] ${(err as Error).message}`);
      return;
    }
    if (this.waiter?.id === reply.id) this.waiter.resolve(reply);
  }

  get verdict(): OperatorOutcome | null { return this.simVerdict; }

  /** Asks the twin for `scene` and resolves "start" once it replies that the scene is set. */
  async awaitReset(episode: number, _total: number, scene: EpisodeScene): Promise<"start" | "stop"> {
    const id = `${this.runId}-${episode}`;
    const reply = await new Promise<SimResetReply | null>((resolve) => {
      const timer = setTimeout(() => { this.waiter = null; resolve(null); }, this.resetTimeoutMs);
      this.waiter = { id, timer, resolve: (r) => { clearTimeout(timer); this.waiter = null; resolve(r); } };
      this.requestReset(SIM_RESET.encode({ id, ...scene }));
    });
    const what = `reset request "${id}" (task ${scene.task} seed ${scene.seed}) on ${SIM_RESET.topic}`;
    if (reply === null) {
      throw new Error(`sim twin: no reply on ${SIM_RESET_DONE.topic} to ${what} within ${this.resetTimeoutMs} ms; `
        + `is \`engram sim\` running on this ROS domain? check with \`ros2 topic echo ${SIM_RESET_DONE.topic}\``);
    }
    if (!reply.ok) throw new Error(`sim twin refused ${what}: ${reply.error ?? "no reason given"}`);
    if (reply.task !== scene.task || reply.seed !== scene.seed) {
      throw new Error(`sim twin answered ${what} with task ${reply.task} seed ${reply.seed}`);
    }
    this.scene = { ...scene };
    return "start";
  }

  beginEpisode(): void { this.simVerdict = null; this.running = true; }

  awaitOutcome(): Promise<OperatorOutcome> { return Promise.resolve(this.simVerdict ?? "failure"); }

  endEpisode(): void { this.running = false; }

  /** Unsubscribes from /sim/episode and /sim/reset_done; a reset still awaited (the run stopped) is dropped. */
  close(): void {
    if (this.waiter) clearTimeout(this.waiter.timer);
    this.waiter = null;
    for (const off of this.offs.splice(0)) off();
  }
}
