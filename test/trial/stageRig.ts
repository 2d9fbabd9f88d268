/**
 * An episode context for testing the tick's stages alone, without a Bus: the real control parts
 * (scheduler, safety filter, output adapter, stop latch, watchdog) of robots/x-one.yaml, a sim
 * clock, sensors fed directly with CDR bytes, and outgoing commands collected in a list.
 */
import { SimClock } from "../../src/bus/clock.js";
import { ActionScheduler, SafetyFilter, StopLatch, Watchdog, createOutput, watchedTopics, type Outgoing } from "../../src/control/index.js";
import { codecFor } from "../../src/msgs/codec.js";
import type { Planner } from "../../src/policy/planner/types.js";
import type { ActionChunk, ObserveResult, Policy, PreparedObservation } from "../../src/policy/types.js";
import { getLayout, loadRobotProfile } from "../../src/robot/index.js";
import { EventLog, type EngramEvent } from "../../src/trial/eventLog.js";
import { createEpisode, newTick, type Episode, type Tick } from "../../src/trial/tick.js";

export const T0 = 1_000_000_000n;
export const W = 32, H = 24;

/** A scripted policy: `act` answers what `nextChunk` returns (a promise that never settles: a hung server). */
export class ScriptedPolicy implements Policy {
  readonly spec = { name: "scripted", cameras: ["head"], imageSize: { width: W, height: H }, layout: "bimanual_16d", horizon: 4 };
  observed: PreparedObservation[] = [];
  instructions: string[] = [];
  acts = 0;
  constructor(readonly names: string[], public nextResult: ObserveResult = { logit: -3, subtaskEnded: false }, public nextChunk?: () => Promise<ActionChunk>) {}
  async reset(): Promise<void> {}
  async resetSession(): Promise<void> {}
  /** Demonstration frames seen, in order. */
  demonstrated: PreparedObservation[] = [];
  async observeDemonstration(frames: readonly PreparedObservation[]): Promise<void> { this.demonstrated.push(...frames); }
  setInstruction(text: string): void { this.instructions.push(text); }
  async observe(obs: PreparedObservation): Promise<ObserveResult> { this.observed.push(obs); return this.nextResult; }
  async act(): Promise<ActionChunk> { this.acts++; return this.nextChunk ? this.nextChunk() : this.chunkAt(0.01); }
  /** Every joint `step` rad further per point from the rig's home pose. */
  chunkAt(step: number, home: Record<string, number> = rigProfile().home): ActionChunk {
    const D = this.names.length, Hh = this.spec.horizon;
    const actions = new Float64Array(Hh * D);
    for (let h = 0; h < Hh; h++) this.names.forEach((n, d) => { actions[h * D + d] = home[n]! + (n.includes("gripper") ? 0 : step * (h + 1)); });
    return { jointNames: this.names, actions, horizon: Hh, dim: D };
  }
}

export function rigProfile() {
  return loadRobotProfile("robots/x-one.yaml").profile;
}

export interface StageRig {
  ep: Episode;
  clock: SimClock;
  policy: ScriptedPolicy;
  sent: Outgoing[];
  events: EngramEvent[];
  /** Delivers a message as the bus callback would: stored bytes, and the watchdog sees it. */
  feed(topic: string, cdr: Uint8Array, atNs?: bigint): void;
  /** Fresh joint state (home pose, or `positions`) and head image at `atNs`. */
  feedGood(atNs?: bigint, positions?: Record<string, number>): void;
  tick(k: number): Tick;
  ends: number[];
}

export function stageRig(o: { planner?: Planner; complexity?: "M(1)" | "M(n)"; policy?: (names: string[]) => ScriptedPolicy } = {}): StageRig {
  const profile = rigProfile();
  const layout = getLayout(profile, "bimanual_16d");
  if (layout.kind !== "joint") throw new Error("bimanual_16d must be a joint layout");
  const clock = new SimClock(T0);
  const policy = o.policy?.(layout.names) ?? new ScriptedPolicy(layout.names);
  const events: EngramEvent[] = [];
  const log = new EventLog({ nowNs: () => clock.nowNs() });
  log.onEvent((e) => events.push(e));
  const sent: Outgoing[] = [];
  const watchdog = new Watchdog(watchedTopics(profile, ["head"]));
  const ends: number[] = [];
  const ep = createEpisode({
    control: {
      profile, layout,
      scheduler: new ActionScheduler({ dim: layout.names.length }),
      safety: new SafetyFilter({ profile, layout }), output: createOutput(profile, layout),
      stops: new StopLatch({ safety: profile.safety }), watchdog,
    },
    policy: { policy, imageSpecs: { head: { width: W, height: H, mean: [0.5, 0.5, 0.5], std: [0.5, 0.5, 0.5] } } },
    planning: { complexity: o.complexity ?? "M(1)", globalTask: "put back the block", planner: o.planner ?? null, keyMemory: true },
    events: log,
    verdict: (step) => { ends.push(step); return null; },
  }, clock, (out) => sent.push(out));
  const head = profile.cameras.find((c) => c.name === "head")!;
  const feed = (topic: string, cdr: Uint8Array, atNs = clock.nowNs()) => {
    ep.sensors.keep(topic, cdr, atNs);
    watchdog.seen(topic, atNs);
  };
  const feedGood = (atNs = clock.nowNs(), positions: Record<string, number> = profile.home) => {
    const names = Object.keys(positions);
    feed(profile.joint_state.topic, codecFor("sensor_msgs/msg/JointState").encode({ header: { stamp: { sec: 1, nanosec: 0 }, frame_id: "" }, name: names, position: names.map((n) => positions[n]!), velocity: [], effort: [] }), atNs);
    const pixels = new Uint8Array(W * H * 3).map((_, i) => (i * 7) & 255);
    feed(head.topic, codecFor("sensor_msgs/msg/Image").encode({ header: { stamp: { sec: 1, nanosec: 0 }, frame_id: head.frame_id }, height: H, width: W, encoding: "rgb8", is_bigendian: 0, step: W * 3, data: pixels }), atNs);
  };
  return { ep, clock, policy, sent, events, feed, feedGood, tick: (k) => newTick(k, clock.nowNs(), 0), ends };
}
