/**
 * The control tick's shared shapes (STYLE.md, "The control tick"): the episode context the stages
 * share, the per-tick context they fill in, stage timing by name, and the one way a tick holds.
 */
import { CameraTally, type CameraReceipt } from "../observe/cameraStats.js";
import type { Clock } from "../bus/types.js";
import {
  InterventionCounter, type ActionScheduler, type Gate, type Hold, type JointPositions, type OutputAdapter, type Outgoing,
  type SafetyFilter, type StopLatch, type Verdict, type Watchdog,
} from "../control/index.js";
import { LatestSensors } from "../observe/latestSensors.js";
import type { ImageSpec } from "../observe/preprocess.js";
import type { MemoryComplexity } from "../policy/planner/gating.js";
import type { FinishedSubtask, Planner } from "../policy/planner/types.js";
import type { ObserveResult, Policy } from "../policy/types.js";
import type { CameraSpec, LayoutSpec, RobotProfile } from "../robot/types.js";
import type { EventLog } from "./eventLog.js";

/** How an episode ended, as the world's verdict or the loop itself decides. */
export type EpisodeEnd =
  | { kind: "success" }
  /** `planComplete`: the planner answered "done" (the policy's own plan ended the episode, not the world). */
  | { kind: "failure"; reason: string; planComplete?: true }
  /** `plannerDown`: the planner server failed (not an answer the policy cannot use); the next episode may try again. */
  | { kind: "aborted"; reason: string; plannerDown?: true };

/** The stages of one tick, in the order they run. */
export const STAGE_NAMES = ["gate", "preprocess", "start", "observe", "plan", "act", "publish"] as const;
export type StageName = (typeof STAGE_NAMES)[number];

/** Per-tick wall time, ms: the pacing wait, then each stage by name (0 for stages the tick did not reach). */
export type TickTiming = { waitMs: number } & Record<`${StageName}Ms`, number>;

/** The robot side of one episode: the profile and action layout, and fresh control parts (trialParts.episodeParts). */
export interface ControlParts {
  profile: RobotProfile;
  layout: LayoutSpec;
  scheduler: ActionScheduler;
  safety: SafetyFilter;
  output: OutputAdapter;
  stops: StopLatch;
  watchdog: Watchdog;
  /** policy.act() deadline on the bus clock; past it the robot holds (default 1000 ms). */
  actTimeoutMs?: number;
}

/** The policy and how each of its cameras' frames is prepared for it. */
export interface PolicyParts {
  policy: Policy;
  /** Policy camera name → preprocessing spec. */
  imageSpecs: Record<string, ImageSpec>;
}

/** What the planner stages use: the memory class, the global task and the planner (null: none). */
export interface PlanParts {
  complexity: MemoryComplexity;
  globalTask: string;
  planner: Planner | null;
  keyMemory: boolean;
  /** Camera whose JPEG the planner sees (initial and subtask-end images). Default: the first policy camera. */
  plannerCamera?: string;
}

/** What the stages of one episode are given; the loop adds the bus and the pacing. */
export interface StageParts {
  control: ControlParts;
  policy: PolicyParts;
  planning: PlanParts;
  events: EventLog;
  /**
   * The episode's end as the world judges it (the rig's verdict, the run's stop), or null: go on.
   * Asked after each tick, and by the planner stage when a plan is complete.
   */
  verdict: (step: number) => EpisodeEnd | null;
  /**
   * The run's stop (SIGINT/SIGTERM): a planner call in flight is abandoned at once, so shutdown
   * never waits for a slow or hung planner server. Ticks see the stop through `verdict`.
   */
  signal?: AbortSignal;
}

export interface EpisodeLoopResult {
  end: EpisodeEnd;
  steps: number;
  timings: TickTiming[];
  /** Ticks that finished after the next one was due, counted from the first chunk on (real-time and wall-paced loops only). */
  lateTicks: number;
  /** Of those, the ticks that would have been on time but for their own observe + act wait on the policy. */
  lateOnPolicy: number;
  /**
   * The tick whose act() returned the policy's first chunk and the wall time from the loop's start
   * until that tick ended (the arm at rest meanwhile; the episode's tick clock starts after it). Null: no chunk yet.
   */
  firstChunk: { step: number; waitMs: number } | null;
  declaredEnds: number[];
  plannerLatenciesMs: number[];
  logits: number[];
  /** Safety interventions and holds (a lasting hold counts once). */
  interventions: number;
  /** Per policy camera: frames received, their rate, the stale holds it caused. */
  cameras: CameraReceipt[];
}

/** One episode's context, shared by its ticks: its parts, the sensors, the outputs and what carries over between ticks. */
export interface Episode {
  readonly control: ControlParts;
  readonly policy: Policy;
  readonly imageSpecs: Record<string, ImageSpec>;
  readonly planning: PlanParts;
  readonly events: EventLog;
  readonly verdict: (step: number) => EpisodeEnd | null;
  readonly signal: AbortSignal | undefined;
  readonly clock: Clock;
  readonly sensors: LatestSensors;
  /** Frames and stale-hold onsets per policy camera this episode. */
  readonly cameraTally: CameraTally;
  /** The policy's cameras, in policy order. */
  readonly cameras: CameraSpec[];
  readonly plannerCamera: CameraSpec | undefined;
  /** The action layout's joint (or end-effector dim) order, which chunks are reordered to. */
  readonly layoutNames: string[];
  /** Encodes and publishes one outgoing command (the only way a stage moves the robot). */
  readonly send: (out: Outgoing) => void;
  readonly counter: InterventionCounter;
  readonly result: EpisodeLoopResult;
  readonly finished: FinishedSubtask[];
  /** The reason of the hold in force, null while commands flow. */
  holding: string | null;
  /** The subtask the policy is working on (the global task until a planner answers). */
  subtask: string;
  /** The planner camera's JPEG at episode start. */
  initialJpeg: Uint8Array | null;
  /** True once the episode-start step has run (on the first tick that passes preprocessing). */
  started: boolean;
}

/** One tick's context: filled in stage by stage. */
export interface Tick {
  k: number;
  tickNs: bigint;
  /** The newest joint state, decoded by the gate; null when missing or malformed (the gate holds). */
  measured: JointPositions | null;
  /** Policy camera name → CHW tensor (preprocess). */
  images: Record<string, Float32Array>;
  /** The policy's state vector (preprocess). */
  state: Float64Array;
  /** The policy's answer to this tick's observation (observe). */
  observed: ObserveResult | null;
  timing: TickTiming;
}

/** A stage ends the episode; `hold` (if any) is applied first. */
export interface Ended { kind: "ended"; end: EpisodeEnd; hold?: Hold }

/** A stage of the tick: nothing to go on, a Hold for the driver to apply (then the end check), or the episode's end. */
export type Stage = (ep: Episode, t: Tick) => Promise<Hold | Ended | void>;

/** Builds the context of one episode. `send` publishes an outgoing command (the loop's bus, or a test's list). */
export function createEpisode(parts: StageParts, clock: Clock, send: (out: Outgoing) => void): Episode {
  const { control, planning } = parts;
  const { profile, layout } = control;
  const cameras = parts.policy.policy.spec.cameras.map((name) => cameraOf(profile, name));
  const plannerCamera = planning.plannerCamera ?? cameras[0]?.name;
  return {
    control, planning, clock, send, cameras,
    policy: parts.policy.policy, imageSpecs: parts.policy.imageSpecs, events: parts.events, verdict: parts.verdict,
    signal: parts.signal,
    sensors: new LatestSensors(profile.joint_state.topic, profile.joints),
    plannerCamera: cameras.find((c) => c.name === plannerCamera),
    layoutNames: layout.kind === "joint" ? layout.names : [...layout.dims],
    counter: new InterventionCounter(),
    result: {
      end: { kind: "failure", reason: "step limit" }, steps: 0, timings: [], lateTicks: 0, lateOnPolicy: 0, firstChunk: null,
      declaredEnds: [], plannerLatenciesMs: [], logits: [], interventions: 0, cameras: [],
    },
    cameraTally: new CameraTally(cameras),
    finished: [],
    holding: null,
    subtask: planning.globalTask,
    initialJpeg: null,
    started: false,
  };
}

/** A fresh tick context at `tickNs`, with every stage's time at 0. */
export function newTick(k: number, tickNs: bigint, waitMs: number): Tick {
  const timing = { waitMs } as TickTiming;
  for (const name of STAGE_NAMES) timing[`${name}Ms`] = 0;
  return { k, tickNs, measured: null, images: {}, state: new Float64Array(0), observed: null, timing };
}

/** Runs `work`, adding its wall time to `timing[name]` on every exit, thrown or returned. */
export async function timed<T>(timing: TickTiming, name: StageName, work: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  try {
    return await work();
  } finally {
    timing[`${name}Ms`] += performance.now() - t0;
  }
}

/** The tick's busy time, ms: every stage, without the pacing wait. */
export function tickBusyMs(timing: TickTiming): number {
  return STAGE_NAMES.reduce((sum, name) => sum + timing[`${name}Ms`], 0);
}

/**
 * The robot holds: the scheduler drops its chunk, the safety filter ramps the next command, a hold
 * command goes out at `measured` (or the last joint state that passed the profile check when the
 * newest did not; with none ever, nothing is published: no command of this episode has moved the
 * robot yet), and the hold is reported once per onset. Never throws: a hold command that cannot
 * be built or sent is a `fault` event, and the hold is still reported.
 */
export function applyHold(ep: Episode, h: Hold, measured: JointPositions | null, stampNs: bigint, step: number): void {
  ep.control.scheduler.clear();
  ep.control.safety.noteHold();
  const at = measured ?? ep.sensors.lastGoodPositions();
  if (at) sendHold(ep, at, stampNs, step);
  report(ep, h, step);
  ep.holding = h.reason;
}

function sendHold(ep: Episode, at: JointPositions, stampNs: bigint, step: number): void {
  try {
    for (const out of ep.control.output.buildHold(at, stampNs)) ep.send(out);
  } catch (err) {
    ep.events.emit({ event: "fault", step, reason: `hold command not sent: ${(err as Error).message}` });
  }
}

/** Writes the events a verdict implies (a clamp, a hold's onset) at `step`. */
export function report<T>(ep: Episode, verdict: Verdict<T> | Gate, step: number): void {
  for (const e of ep.counter.observe(verdict)) {
    if (e.event === "safety_hold" && e.reason === "stale" && e.topic !== undefined) ep.cameraTally.staleHold(e.topic);
    ep.events.emit({ ...e, step });
  }
}

function cameraOf(profile: RobotProfile, name: string): CameraSpec {
  const cam = profile.cameras.find((c) => c.name === name);
  if (!cam) throw new Error(`policy camera "${name}" is not in robot ${profile.name} (cameras: ${profile.cameras.map((c) => c.name).join(", ")})`);
  return cam;
}
