/**
 * `engram replay`: re-sends a recorded episode's commands to the sim twin (in-process, lock-step,
 * the scene re-created from the recorded task + seed) or onto the run config's bus (a robot, or a
 * sim on the bus): first the move to the episode's start pose through the safety filter at a
 * fraction of the velocity limits, then the recorded commands at their recorded offsets divided by
 * the rate factor; reports the tracking error against the recorded joint states and, in the sim,
 * whether the task succeeded.
 */
import { createBus } from "../bus/index.js";
import { SimClock } from "../bus/clock.js";
import { LocalBus } from "../bus/local.js";
import { RELIABLE_QOS, type Bus } from "../bus/types.js";
import type { LoadedRunConfig } from "../config/loaders.js";
import type { LoadedRobot } from "../robot/loadRobotProfile.js";
import { SimNode } from "../sim/node/SimNode.js";
import type { TaskEpisode } from "../sim/node/TaskEpisode.js";
import { getTask } from "../sim/tasks/index.js";
import { settle } from "../record/episodeWriter.js";
import {
  collectJointStates, moveToStart, readRecordedEpisode, restamped, startPose, trackingError,
  type RecordedEpisode, type TrackingError,
} from "../record/replayEpisode.js";

/** Options of `replayEpisode`. */
export interface ReplayOptions {
  run: LoadedRunConfig;
  robot: LoadedRobot;
  path: string;
  /** Timing factor: 2 = twice as fast (default 1). */
  rate?: number;
  to: "sim" | "bus";
  /** Fraction of the velocity limits for the move to the start pose (default 0.25). */
  startFraction?: number;
  signal?: AbortSignal;
  /** Wraps the replay's bus (`--view`: the live view taps it; src/bus/tappedBus.ts). Default: none. */
  tapBus?: (bus: Bus) => Bus;
}

/** What a replay reports (the CLI prints it). */
export interface ReplayReport {
  file: string;
  to: "sim" | "bus";
  task: string;
  seed: number;
  rate: number;
  commands: number;
  start_move: { reached: boolean; steps: number; residual_rad: number };
  tracking: TrackingError;
  /** Sim only: did the re-created task succeed, and in how many control steps. */
  sim: { success: boolean; steps: number } | null;
  /** Set when only a prefix of the episode was recorded (a file without its index). */
  warning: string | null;
}

/** Replays one episode; see the module note. */
export async function replayEpisode(o: ReplayOptions): Promise<ReplayReport> {
  const profile = o.robot.profile;
  const ep = await readRecordedEpisode(o.path, profile);
  const rate = o.rate ?? 1;
  if (!(rate > 0)) throw new Error(`replay: --rate must be > 0 (got ${rate})`);
  return o.to === "sim" ? replayToSim(o, ep, rate) : replayToBus(o, ep, rate);
}

async function replayToSim(o: ReplayOptions, ep: RecordedEpisode, rate: number): Promise<ReplayReport> {
  const id = ep.identity;
  const local = new LocalBus({ clock: new SimClock(1_700_000_000_000_000_000n) });
  const bus = o.tapBus ? o.tapBus(local) : local;
  const node = await SimNode.create({ bus, robot: o.robot, physicsHz: id.physics_hz ?? o.run.config.sim.physics_hz, controlHz: id.control_hz, cameras: false });
  try {
    const episode = node.reset({ task: getTask(id.task), seed: id.seed })!;
    const stepNs = node.world.stepTimeNs(node.physicsStepsPerControl);
    const target = startPose(ep);
    const names = node.world.jointNames(), q = node.world.jointPositions();
    const residual = Math.max(0, ...names.map((n, i) => (n in target ? Math.abs(q[i]! - target[n]!) : 0)));
    // The re-created scene starts at the recorded pose already (the sim resets to home, as it did when recording).
    const move = residual <= 0.01
      ? { reached: true, steps: 0, residualRad: residual }
      : await moveToStart({ bus, profile: o.robot.profile, controlHz: id.control_hz, target, fraction: o.startFraction, pace: (ns) => node.advanceTo(ns) });
    const report = await resend(bus, o, ep, rate, (ns) => node.advanceTo(ns), () => episode.done);
    // Let the robot finish the last command: run on until the task is done or past the recorded length.
    const recordedSteps = Math.ceil(Number(ep.durationNs) / Number(stepNs) / rate);
    while (!episode.done && episode.stepCount < recordedSteps + 2 * id.control_hz && !o.signal?.aborted) await node.advanceBy(stepNs);
    report.collector.stop();
    return finish(o, ep, rate, report.commands, move, trackingError(ep.jointStates, report.collector.samples, o.robot.profile, rate), simOutcome(episode));
  } finally {
    node.close();
    await bus.close();
  }
}

async function replayToBus(o: ReplayOptions, ep: RecordedEpisode, rate: number): Promise<ReplayReport> {
  const cfg = o.run.config;
  const opened = await createBus(cfg.bus as Parameters<typeof createBus>[0], { root: o.run.dir });
  const bus = o.tapBus ? o.tapBus(opened) : opened;
  // A sim twin in the same process stands in for the robot when the config asks for it (local bus).
  const node = cfg.sim.enabled && opened instanceof LocalBus
    ? await SimNode.create({
      bus, robot: o.robot, physicsHz: cfg.sim.physics_hz, controlHz: ep.identity.control_hz, cameras: false,
    })
    : null;
  const stopSim = new AbortController();
  const simLoop = node ? node.runRealtime(stopSim.signal) : Promise.resolve();
  let episode: TaskEpisode | null = null;
  try {
    if (node) episode = node.reset({ task: getTask(ep.identity.task), seed: ep.identity.seed });
    const pace = (ns: bigint) => bus.clock.sleepUntil(ns);
    const move = await moveToStart({ bus, profile: o.robot.profile, controlHz: ep.identity.control_hz, target: startPose(ep), fraction: o.startFraction, pace });
    const report = await resend(bus, o, ep, rate, pace, () => episode?.done ?? false);
    await pace(bus.clock.nowNs() + 1_000_000_000n);
    report.collector.stop();
    return finish(o, ep, rate, report.commands, move, trackingError(ep.jointStates, report.collector.samples, o.robot.profile, rate), episode ? simOutcome(episode) : null);
  } finally {
    stopSim.abort();
    await simLoop;
    node?.close();
    await bus.close();
  }
}

/** Re-sends every recorded command at base + offset / rate, collecting joint states from base. */
async function resend(bus: Bus, o: ReplayOptions, ep: RecordedEpisode, rate: number, pace: (ns: bigint) => Promise<void>, done: () => boolean) {
  const base = bus.clock.nowNs();
  const collector = collectJointStates(bus, o.robot.profile, () => base);
  const publishers = new Map<string, (cdr: Uint8Array) => void>();
  let commands = 0;
  for (const c of ep.commands) {
    if (o.signal?.aborted || done()) break;
    let pub = publishers.get(c.topic);
    if (!pub) { pub = bus.advertise(c.topic, c.type, RELIABLE_QOS); publishers.set(c.topic, pub); }
    await pace(base + BigInt(Math.round(Number(c.offsetNs) / rate)));
    pub(restamped(c));
    commands++;
    await settle(bus, [{ topic: c.topic }]);
  }
  return { collector, commands };
}

function simOutcome(e: TaskEpisode): { success: boolean; steps: number } {
  return { success: e.success, steps: e.stepCount };
}

function finish(o: ReplayOptions, ep: RecordedEpisode, rate: number, commands: number, move: { reached: boolean; steps: number; residualRad: number }, tracking: TrackingError, sim: ReplayReport["sim"]): ReplayReport {
  return {
    file: o.path, to: o.to, task: ep.identity.task, seed: ep.identity.seed, rate, commands,
    start_move: { reached: move.reached, steps: move.steps, residual_rad: Math.round(move.residualRad * 1e6) / 1e6 },
    tracking, sim, warning: ep.prefixWarning,
  };
}
