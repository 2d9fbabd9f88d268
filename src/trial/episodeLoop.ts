/**
 * The control loop of one episode (DESIGN.md §1): ticks run at `controlHz` on the injected pacing
 * (lock-step: the sim advances to each tick; real-time: the wall clock), one at a time, each a
 * sequence of named stages over one tick context (STYLE.md, "The control tick"): gate, preprocess,
 * episode start, observe, plan, act, publish. A stage returns a Hold instead of throwing; `runTick`
 * is the one place a tick holds. Every hold, intervention, subtask and planner call is an event.
 */
import { concatMap, defer, firstValueFrom, finalize, last, range, takeWhile } from "rxjs";
import { RELIABLE_QOS, SENSOR_QOS, type Bus, type Qos } from "../bus/types.js";
import { subscribeWitnessed } from "../bus/witness.js";
import { cameraSubscriptionQos } from "../observe/cameraStats.js";
import { decodeStopBool, type Outgoing, type OutputAdapter, type StopLatch } from "../control/index.js";
import { codecFor } from "../msgs/codec.js";
import type { RosTypeMap } from "../msgs/types.js";
import { imageType } from "../observe/latestSensors.js";
import { plan, start } from "./planStages.js";
import { act, gate, observe, preprocess, publish } from "./stages.js";
import type { EventLog } from "./eventLog.js";
import type { Pacing } from "./rig.js";
import {
  applyHold, createEpisode, newTick, timed, type ControlParts, type Episode, type EpisodeEnd, type EpisodeLoopResult,
  type PlanParts, type PolicyParts, type Stage, type StageName,
} from "./tick.js";

export type { EpisodeEnd, EpisodeLoopResult, TickTiming } from "./tick.js";

/** Where the loop runs: the bus, how ticks are paced, and the world's verdict after each tick. */
export interface LoopRig {
  bus: Bus;
  pacing: Pacing;
  /** The episode's end as the world judges it (the rig's verdict, the run's stop), or null: go on. */
  verdict(step: number): EpisodeEnd | null;
}

/** The loop's collaborators: the rig, the robot's control parts, the policy, the planning, the event sink. */
export interface EpisodeLoopParts {
  rig: LoopRig;
  control: ControlParts;
  policy: PolicyParts;
  planning: PlanParts;
  events: EventLog;
  /** The run's stop: a wall-clock wait or a planner call in flight is abandoned at once. */
  signal?: AbortSignal;
  controlHz: number;
  maxSteps: number;
}

/** The tick's stages in order, each timed under its name. */
export const STAGES: ReadonlyArray<readonly [StageName, Stage]> = [
  ["gate", gate], ["preprocess", preprocess], ["start", start], ["observe", observe], ["plan", plan], ["act", act], ["publish", publish],
];

/** Runs one episode; resolves when it ends (success, failure, step limit, or abort). Never leaves the robot commanded after an error: holds first. */
export async function runEpisodeLoop(o: EpisodeLoopParts): Promise<EpisodeLoopResult> {
  const { bus, pacing } = o.rig;
  const periodNs = BigInt(Math.round(1e9 / o.controlHz));
  const parts = { control: o.control, policy: o.policy, planning: o.planning, events: o.events, signal: o.signal };
  const ep = createEpisode({ ...parts, verdict: (k) => o.rig.verdict(k) }, bus.clock, publisherOf(bus, o.control.output));
  const unsubscribe = subscribeInputs(bus, ep);
  const realtime = pacing.kind === "wall", wallPaced = pacing.kind === "lockstep" && pacing.wallPaced === true;
  const pace = pacing.kind === "lockstep"
    ? (ns: bigint) => pacing.advanceTo(ns)
    : (ns: bigint) => sleepUntil(bus, ns, o.signal);
  const res = ep.result;
  const periodMs = 1000 / o.controlHz;
  const wall0 = performance.now();
  const startNs = bus.clock.nowNs();
  // Tick k is due at base + (k - baseTick) periods. Until the policy's first chunk is in, the arm is
  // at rest and the episode's tick clock has not started: the tick that waited for it is not late,
  // and the next one is due a period after the first command went out (its wait is the
  // `first_chunk` event). In lock-step the sim base does not move: the sim stood still while waiting.
  let base = bus.clock.nowNs() + periodNs, wallBase = wall0 + periodMs, baseTick = 0;
  // concatMap: one tick at a time and in order; a slow tick delays the next (counted late), never overlaps it.
  const ticks$ = range(0, o.maxSteps).pipe(
    concatMap((k) => defer(async () => {
      const w0 = performance.now();
      await pace(base + BigInt(k - baseTick) * periodNs);
      const wallDue = wallBase + (k - baseTick) * periodMs;
      if (wallPaced) await sleepMs(wallDue - performance.now());
      const tickNs = bus.clock.nowNs();
      const waiting = res.firstChunk === null;
      const end = await runTick(ep, k, tickNs, performance.now() - w0);
      if (waiting && res.firstChunk !== null) {
        res.firstChunk.waitMs = performance.now() - wall0;
        o.events.emit({ event: "first_chunk", step: k, wait_ms: Math.round(res.firstChunk.waitMs * 10) / 10 });
        base = bus.clock.nowNs() + periodNs;
        wallBase = performance.now() + periodMs;
        baseTick = k + 1;
      } else if (!waiting && (wallPaced ? performance.now() > wallDue + periodMs : realtime && bus.clock.nowNs() > tickNs + periodNs)) {
        res.lateTicks++;
        // Late from waiting on the policy: on time but for this tick's observe + act wait.
        const t = res.timings[res.timings.length - 1]!;
        const overMs = wallPaced ? performance.now() - (wallDue + periodMs) : Number(bus.clock.nowNs() - tickNs - periodNs) / 1e6;
        if (overMs <= t.observeMs + t.actMs) res.lateOnPolicy++;
      }
      return { k, end };
    })),
    takeWhile(({ end }) => end === null, true),
    last(),
    finalize(unsubscribe),
  );
  try {
    const { end } = await firstValueFrom(ticks$);
    if (end) res.end = end;
    if (res.end.kind === "aborted") applyHold(ep, { kind: "hold", reason: "shutdown", details: res.end.reason }, ep.sensors.measuredPositions(), bus.clock.nowNs(), res.steps);
  } catch (err) {
    const reason = (err as Error).message;
    applyHold(ep, { kind: "hold", reason: "error", details: reason }, ep.sensors.measuredPositions(), bus.clock.nowNs(), res.steps);
    o.events.emit({ event: "fault", reason });
    res.end = { kind: "aborted", reason };
  }
  res.interventions = ep.counter.snapshot().total;
  res.cameras = ep.cameraTally.receipts(bus.clock.nowNs() - startNs);
  return res;
}

/**
 * One tick: the stages in order, each timed by name on every exit. A Hold from a stage is applied
 * here (hold command, event, then the end check); an Ended stage ends the episode.
 */
export async function runTick(ep: Episode, k: number, tickNs: bigint, waitMs: number, stages = STAGES): Promise<EpisodeEnd | null> {
  const t = newTick(k, tickNs, waitMs);
  ep.result.timings.push(t.timing);
  ep.result.steps = k + 1;
  for (const [name, stage] of stages) {
    const exit = await timed(t.timing, name, () => stage(ep, t));
    if (!exit) continue;
    const hold = exit.kind === "hold" ? exit : exit.hold;
    if (hold) applyHold(ep, hold, t.measured, t.tickNs, k);
    return exit.kind === "ended" ? exit.end : ep.verdict(k);
  }
  return ep.verdict(k);
}

/**
 * Subscribes the sensors (bytes only: rclnodejs runs callbacks on the main thread) and the stop
 * topics; returns the unsubscribe. A malformed stop message (undecodable, or not a canonical Bool:
 * decodeStopBool) is a fault event and fails safe (StopLatch.onMalformed: a malformed e-stop
 * latches, a malformed deadman counts as released, a malformed resume resumes nothing).
 */
function subscribeInputs(bus: Bus, ep: Episode): () => void {
  const { profile, stops, watchdog } = ep.control;
  const unsubscribes: Array<() => void> = [];
  const cameraTopics = new Set(ep.cameras.map((c) => c.topic));
  const keep = (topic: string, type: string, qos: Qos) =>
    unsubscribes.push(bus.subscribe(topic, type, qos, (cdr, receivedNs) => {
      ep.sensors.keep(topic, cdr, receivedNs);
      watchdog.seen(topic, receivedNs);
      if (cameraTopics.has(topic)) ep.cameraTally.frame(topic);
    }));
  keep(profile.joint_state.topic, "sensor_msgs/msg/JointState", SENSOR_QOS);
  for (const cam of ep.cameras) {
    keep(cam.topic, imageType(cam), cameraSubscriptionQos(bus.offeredQos?.(cam.topic) ?? []));
  }
  const { estop, resume, deadman } = stops.topics;
  const stopTopics = [estop, resume, deadman].filter((t): t is string => !!t);
  for (const topic of stopTopics) unsubscribes.push(subscribeStopTopic(bus, stops, ep.events, topic));
  if (bus.publishersOf) unsubscribes.push(watchStopPublishers(bus, stops, ep.events, stopTopics));
  return () => { for (const u of unsubscribes) u(); };
}

/** How often the graph is asked for publishers of another type on the stop topics. */
const GRAPH_CHECK_MS = 1000;

/**
 * Asks the graph now and every GRAPH_CHECK_MS for publishers of another type on the stop topics
 * (DDS never matches them, so nothing would be heard): each change is a warning event and on
 * stderr, and the latch holds while any is listed (StopLatch.onForeignPublishers).
 */
function watchStopPublishers(bus: Bus, stops: StopLatch, events: EventLog, topics: string[]): () => void {
  const check = (): void => {
    for (const topic of topics) {
      const foreign = bus.publishersOf!(topic)
        .filter((p) => p.type !== "std_msgs/msg/Bool")
        .map((p) => `${p.node} (${p.type})`);
      if (!stops.onForeignPublishers(topic, foreign)) continue;
      const reason = foreign.length > 0
        ? `safety topic ${topic} has publishers of another type: ${foreign.join(", ")}; `
          + "expected std_msgs/msg/Bool; holding"
        : `safety topic ${topic}: no publisher of another type any more`;
      events.emit({ event: "warning", topic, reason });
      process.stderr.write(`[run] WARNING: ${reason}\n`);
    }
  };
  check();
  const timer = setInterval(check, GRAPH_CHECK_MS);
  return () => clearInterval(timer);
}

/**
 * One stop topic, reliable and watched (subscribeWitnessed): a reader that stops delivering (one
 * zero-length message does that over Fast DDS) is re-created and counts as a broken wire, as a
 * malformed message does (StopLatch.onMalformed).
 */
function subscribeStopTopic(bus: Bus, stops: StopLatch, events: EventLog, topic: string): () => void {
  const malformed = (reason: string, receivedNs: bigint): void => {
    const change = stops.onMalformed(topic, receivedNs);
    events.emit({ event: "fault", topic, reason, ...(change && { latched: change }) });
    if (change) events.emit({ event: change, topic, data: null, malformed: true });
  };
  return subscribeWitnessed(bus, topic, "std_msgs/msg/Bool", {
    onMessage: (cdr, receivedNs) => {
      let data: boolean;
      try { data = decodeStopBool(cdr); } catch (err) {
        malformed(`malformed Bool: ${(err as Error).message}`, receivedNs);
        return;
      }
      const change = stops.onMessage(topic, data, receivedNs);
      if (change) events.emit({ event: change === "resume" ? "estop_resumed" : change, topic, data });
    },
    onStall: (_cdr, receivedNs) => malformed(
      `the reliable subscription to ${topic} stopped delivering while a best-effort one still heard it `
        + "(a message it could not take?); subscription re-created", receivedNs),
  });
}

/** A wall-paced tick's wait on the bus clock, cut short by the run's stop (the verdict then ends the episode). */
function sleepUntil(bus: Bus, ns: bigint, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return bus.clock.sleepUntil(ns);
  if (signal.aborted) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const off = () => resolve();
    signal.addEventListener("abort", off, { once: true });
    bus.clock.sleepUntil(ns).then(
      () => { signal.removeEventListener("abort", off); resolve(); },
      (e: unknown) => { signal.removeEventListener("abort", off); reject(e); },
    );
  });
}

function sleepMs(ms: number): Promise<void> {
  return ms > 0 ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve();
}

/** Advertises the output adapter's topics; returns the function that encodes and publishes one command. */
function publisherOf(bus: Bus, output: OutputAdapter): (out: Outgoing) => void {
  const publishers = new Map<string, (cdr: Uint8Array) => void>();
  for (const a of output.advertisements) publishers.set(a.topic, bus.advertise(a.topic, a.type, RELIABLE_QOS));
  return (out) => {
    const codec = codecFor(out.type as keyof RosTypeMap) as { encode(m: unknown): Uint8Array };
    publishers.get(out.topic)!(codec.encode(out.message));
  };
}
