/**
 * The sim twin's ground truth as another process publishes it over the bus (`engram sim` as its
 * own ROS 2 node): checkpoints reached (/sim/checkpoints) and subtask ends (/sim/subtask_end), so a
 * trial against the twin scores checkpoint rates and the classifier as the in-process one does.
 * The twin counts its own steps from its one scene set-up; here each message's receive time on the
 * bus clock (the sim's /clock) is turned into the runtime episode's control step.
 */
import type { Bus } from "../bus/types.js";
import { SIM_CHECKPOINTS, SIM_SUBTASK_END } from "../msgs/simTopics.js";
import type { EpisodeRecord } from "./summary.js";

type Reached = EpisodeRecord["checkpoints"][number];

/** Subscribed once per run; `begin` at each episode start, `checkpoints`/`trueEnds` at its end. */
export class GroundTruthFeed {
  private startNs = 0n;
  private active = false;
  private reached: Reached[] = [];
  private ends: number[] = [];
  private readonly unsubscribes: Array<() => void>;

  constructor(bus: Bus, private readonly periodNs: bigint) {
    // Volatile subscriptions: the twin's latched history belongs to earlier episodes. Both queues
    // keep 20, so a burst of ends and checkpoints on one step waits for the feed undropped.
    const live = { durability: "volatile", depth: 20 } as const;
    const checkpoints = SIM_CHECKPOINTS, ends = SIM_SUBTASK_END;
    this.unsubscribes = [
      bus.subscribe(checkpoints.topic, checkpoints.type, { ...checkpoints.qos, ...live }, (cdr, receivedNs) => {
        if (!this.active) return;
        const c = checkpoints.decode(cdr);
        if (!this.reached.some((r) => r.id === c.id)) this.reached.push({ id: c.id, label: c.label, step: this.stepAt(receivedNs) });
      }),
      bus.subscribe(ends.topic, ends.type, { ...ends.qos, ...live }, (cdr, receivedNs) => {
        if (this.active && ends.decode(cdr)) this.ends.push(this.stepAt(receivedNs));
      }),
    ];
  }

  /** Starts collecting for an episode whose step 0 begins at `startNs` (bus clock). */
  begin(startNs: bigint): void {
    this.startNs = startNs;
    this.active = true;
    this.reached = [];
    this.ends = [];
  }

  /** Checkpoints reached since `begin`, first time each, with the runtime step. */
  get checkpoints(): Reached[] {
    return this.reached.map((r) => ({ ...r }));
  }

  /** Ground-truth subtask ends since `begin`, as runtime steps. */
  get trueEnds(): number[] {
    return [...this.ends];
  }

  close(): void {
    for (const u of this.unsubscribes.splice(0)) u();
  }

  /** Control step k runs at start + (k+1) periods (the episode loop's pacing); a late delivery stays in its step. */
  private stepAt(ns: bigint): number {
    return Math.max(0, Math.floor(Number(ns - this.startNs) / Number(this.periodNs)) - 1);
  }
}
