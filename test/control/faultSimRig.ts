/**
 * Fault injection over the real sim twin: SimNode (rapier world, rendered cameras) on a LocalBus in
 * lock-step, the real episode loop (src/trial/episodeLoop.ts), a real Mem-0 ONNX bundle
 * (policies/test-tiny or a variant built into a temp dir), the real safety filter and output.
 * Faults: sensor topics silenced for the loop (test/fakes/faultBus.ts stands for a dead driver),
 * std_msgs/Bool messages published at chosen steps (e-stop, resume, deadman), a planner that
 * fails, a model that returns NaN or out-of-range values. The rig watches the bus from outside the
 * loop: every JointTrajectory on the command topic and every measured JointState.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SimClock } from "../../src/bus/clock.js";
import { LocalBus } from "../../src/bus/local.js";
import { RELIABLE_QOS } from "../../src/bus/types.js";
import { ActionScheduler, SafetyFilter, StopLatch, Watchdog, createOutput, watchedTopics } from "../../src/control/index.js";
import { angleDelta, type DimLimit } from "../../src/control/limits.js";
import { codecFor } from "../../src/msgs/codec.js";
import type { JointState, JointTrajectory, PoseStamped } from "../../src/msgs/types.js";
import { loadMem0Policy } from "../../src/policy/mem0/Mem0Policy.js";
import { OnnxGraph } from "../../src/policy/mem0/onnxGraph.js";
import { replaceModel, tinyModels, writeTestBundle } from "../../src/policy/mem0/testBundle.js";
import type { Planner } from "../../src/policy/planner/types.js";
import type { Policy } from "../../src/policy/types.js";
import { getLayout, layoutDim, loadRobotProfile, type LoadedRobot, type RobotProfile } from "../../src/robot/index.js";
import { SimNode } from "../../src/sim/node/SimNode.js";
import { getTask } from "../../src/sim/tasks/index.js";
import { runEpisodeLoop, type EpisodeLoopResult } from "../../src/trial/episodeLoop.js";
import { EventLog, type EngramEvent } from "../../src/trial/eventLog.js";
import { FaultBus } from "../fakes/faultBus.js";

export interface SimFaultOptions {
  /** Control ticks to run (10 Hz: 30 = 3 s of sim time). */
  steps: number;
  /** Robot profile file (default robots/x-one.yaml). */
  robot?: string;
  /** Edits the loaded profile in memory (e.g. the pose command interface). */
  patchProfile?: (p: RobotProfile) => RobotProfile;
  /** Task id (default put-back-block, M(1)). */
  task?: string;
  /** Policy bundle folder (default policies/test-tiny). */
  bundle?: string;
  /** A policy to drive instead of the bundle's (e.g. a RemotePolicy); the rig closes it. */
  policy?: Policy & { close(): Promise<void> };
  /** A topic the loop stops receiving from tick `fromStep` on (the outside watchers still do). */
  silence?: { topic: string; fromStep: number };
  /**
   * From tick `fromStep` on, the loop receives every JointState rewritten by `lie` (a driver that
   * lies: a joint missing or out of range); the arm and the outside watchers are unchanged.
   */
  lie?: { fromStep: number; rewrite: (js: JointState) => JointState };
  /** std_msgs/Bool messages published just before tick `step` runs. */
  bools?: (step: number) => Array<{ topic: string; data: boolean }>;
  /** A copy of x-one with `safety.deadman_topic` set to this topic. */
  deadmanTopic?: string;
  planner?: Planner;
  /** The run's stop (SIGINT in `engram run`): ends the episode as the driver's verdict does. */
  signal?: AbortSignal;
}

/** One JointTrajectory seen on the command topic, with the arm's measured joints when it arrived. */
export interface SeenCommand { atNs: bigint; from: Record<string, number>; traj: JointTrajectory }

export interface SimFaultResult {
  robot: LoadedRobot;
  limits: DimLimit[];
  events: EngramEvent[];
  commands: SeenCommand[];
  /** Every PoseStamped on command.pose_topic (pose interface), with the measured joints when it arrived. */
  poses: Array<{ atNs: bigint; from: Record<string, number>; msg: PoseStamped }>;
  /** Every measured JointState: stamp and positions by name. */
  measured: Array<{ atNs: bigint; positions: Record<string, number> }>;
  result: EpisodeLoopResult;
  startNs: bigint;
  periodNs: bigint;
}

const ROBOT = "robots/x-one.yaml";

/** Runs one lock-step episode of the sim twin with the given faults. */
export async function runSimFault(o: SimFaultOptions): Promise<SimFaultResult> {
  const file = loadRobotProfile(o.robot ?? ROBOT);
  const loaded = o.patchProfile ? { ...file, profile: o.patchProfile(file.profile) } : file;
  // NOTE: the deadman variant is the loaded profile with one field changed (in memory), not a YAML copy.
  const robot: LoadedRobot = o.deadmanTopic ? { ...loaded, profile: { ...loaded.profile, safety: { ...loaded.profile.safety, deadman_topic: o.deadmanTopic } } } : loaded;
  const profile = robot.profile;
  const clock = new SimClock(1_700_000_000_000_000_000n);
  const bus = new LocalBus({ clock });
  const controlHz = profile.control_hz;
  const periodNs = BigInt(Math.round(1e9 / controlHz));
  const node = await SimNode.create({ bus, robot, physicsHz: 240, controlHz, log: () => {} });
  const policy = o.policy ?? await loadMem0Policy(o.bundle ?? "policies/test-tiny", { robot: profile });
  const layout = getLayout(profile, policy.spec.layout);
  const safety = new SafetyFilter({ profile, layout, controlHz });

  // Outside watchers, on the real bus: what the arm was told and where it really was.
  const measured: SimFaultResult["measured"] = [];
  const commands: SeenCommand[] = [];
  let last: Record<string, number> = {};
  const jsCodec = codecFor("sensor_msgs/msg/JointState");
  const trajCodec = codecFor("trajectory_msgs/msg/JointTrajectory");
  const keepAll = { ...RELIABLE_QOS, history: "keep_all" as const, reliability: "best_effort" as const };
  bus.subscribe(profile.joint_state.topic, "sensor_msgs/msg/JointState", keepAll, (cdr, atNs) => {
    const js = jsCodec.decode(cdr);
    const positions: Record<string, number> = {};
    js.name.forEach((n, i) => { positions[n] = js.position[i]!; });
    measured.push({ atNs, positions });
    last = positions;
  });
  bus.subscribe(profile.command.joint_topic, "trajectory_msgs/msg/JointTrajectory", keepAll, (cdr, atNs) => {
    commands.push({ atNs, from: { ...last }, traj: trajCodec.decode(cdr) });
  });
  const poses: SimFaultResult["poses"] = [];
  const poseTopic = profile.command.pose_topic;
  if (profile.command.interface === "pose" && poseTopic) {
    const poseCodec = codecFor("geometry_msgs/msg/PoseStamped");
    bus.subscribe(poseTopic, "geometry_msgs/msg/PoseStamped", keepAll, (cdr, atNs) => {
      poses.push({ atNs, from: { ...last }, msg: poseCodec.decode(cdr) });
    });
  }

  const events: EngramEvent[] = [];
  const log = new EventLog({ nowNs: () => clock.nowNs() });
  log.onEvent((e) => events.push(e));
  const task = getTask(o.task ?? "put-back-block");
  const episode = node.reset({ task, seed: 0 })!;
  await policy.reset({ task: task.id, episode: 0, seed: 0, instruction: episode.instruction });
  if (task.tmc === "M1") policy.setInstruction(episode.instruction);
  const startNs = clock.nowNs();
  const silence = o.silence;
  const lie = o.lie;
  const lying = lie && ((topic: string, cdr: Uint8Array, ns: bigint) =>
    (topic === profile.joint_state.topic && ns > startNs + BigInt(lie.fromStep) * periodNs ? jsCodec.encode(lie.rewrite(jsCodec.decode(cdr))) : cdr));
  const loopBus = silence || lying
    ? new FaultBus(bus, (topic, ns) => !!silence && topic === silence.topic && ns > startNs + BigInt(silence.fromStep) * periodNs, lying)
    : bus;
  const bools = new Map<string, (cdr: Uint8Array) => void>();
  const boolCodec = codecFor("std_msgs/msg/Bool");
  const flush = async () => { for (let i = 0; i < 4; i++) await new Promise<void>((r) => setImmediate(r)); };
  const pace = async (ns: bigint) => {
    await flush(); // the last tick's commands reach the sim before time moves on
    await node.advanceTo(ns);
    const step = Number((ns - startNs) / periodNs) - 1;
    for (const b of o.bools?.(step) ?? []) {
      if (!bools.has(b.topic)) bools.set(b.topic, bus.advertise(b.topic, "std_msgs/msg/Bool", RELIABLE_QOS));
      bools.get(b.topic)!(boolCodec.encode({ data: b.data }));
    }
    await flush(); // sensor and Bool messages reach the loop before its tick reads them
  };
  try {
    const result = await runEpisodeLoop({
      rig: { bus: loopBus, pacing: { kind: "lockstep", advanceTo: pace }, verdict: () => (o.signal?.aborted ? { kind: "aborted", reason: "interrupted" } : null) },
      control: {
        profile, layout,
        scheduler: new ActionScheduler({ dim: layoutDim(layout) }),
        safety, output: createOutput(profile, layout, { controlHz }),
        stops: new StopLatch({ safety: profile.safety }),
        watchdog: new Watchdog(watchedTopics(profile, policy.spec.cameras)),
      },
      policy: {
        policy,
        imageSpecs: Object.fromEntries(policy.spec.cameras.map((c) => [c, { ...policy.spec.imageSize, mean: [0.5, 0.5, 0.5], std: [0.5, 0.5, 0.5] }])),
      },
      planning: { complexity: task.tmc === "M1" ? "M(1)" : "M(n)", globalTask: episode.instruction, planner: o.planner ?? null, keyMemory: true },
      events: log, signal: o.signal, controlHz, maxSteps: o.steps,
    });
    await flush();
    return { robot, limits: safety.limits, events, commands, poses, measured, result, startNs, periodNs };
  } finally {
    await policy.close();
    node.close();
    await bus.close();
  }
}

/**
 * Every violation in what the arm was told and did: a trajectory point outside the joint limits
 * or more than one tick's step from the previous point (the first: from the measured position),
 * and a measured joint outside its limits. Empty when safe.
 */
export function limitViolations(r: SimFaultResult): string[] {
  const out: string[] = [];
  const lim = new Map(r.limits.map((l) => [l.name, l]));
  const outside = (l: DimLimit, v: number) => !(v >= l.lower - 1e-9 && v <= l.upper + 1e-9);
  for (const c of r.commands) {
    let prev = c.traj.joint_names.map((n) => c.from[n]);
    c.traj.points.forEach((p, k) => {
      c.traj.joint_names.forEach((n, i) => {
        const l = lim.get(n);
        const v = p.positions[i]!;
        if (!l) { out.push(`command names unknown joint ${n}`); return; }
        if (outside(l, v)) out.push(`command t=${c.atNs} ${n}=${v} outside [${l.lower}, ${l.upper}] point ${k}`);
        const before = prev[i];
        if (before !== undefined) {
          const step = l.angular ? angleDelta(v, before) : v - before;
          if (Math.abs(step) > l.maxStep + 1e-6) out.push(`command t=${c.atNs} ${n} step ${step.toFixed(4)} > ${l.maxStep.toFixed(4)} point ${k}`);
        }
      });
      prev = Array.from(p.positions);
    });
  }
  for (const m of r.measured) {
    for (const [n, v] of Object.entries(m.positions)) {
      const l = lim.get(n);
      if (l && outside(l, v)) out.push(`measured t=${m.atNs} ${n}=${v} outside [${l.lower}, ${l.upper}]`);
    }
  }
  return out;
}

/** Largest joint movement (rad or m) measured between sim times `fromNs` and `toNs`. */
export function movementBetween(r: SimFaultResult, fromNs: bigint, toNs: bigint): number {
  const span = r.measured.filter((m) => m.atNs >= fromNs && m.atNs <= toNs);
  if (span.length === 0) return 0;
  const first = span[0]!.positions;
  let max = 0;
  for (const m of span) for (const [n, v] of Object.entries(m.positions)) max = Math.max(max, Math.abs(v - first[n]!));
  return max;
}

/** A copy of the test-tiny bundle in a temp dir; `patch` edits its weights before the models are written. */
export function bundleVariant(name: string, opts: { classifierBias?: number; patch?: (w: ReturnType<typeof writeTestBundle>) => void; actionHead?: Uint8Array } = {}): string {
  const dir = mkdtempSync(join(tmpdir(), `engram-${name}-`));
  const w = writeTestBundle(dir, { name, classifierBias: opts.classifierBias });
  if (opts.patch) {
    opts.patch(w);
    replaceModel(dir, "action_head", tinyModels(w).action_head);
  }
  if (opts.actionHead) replaceModel(dir, "action_head", opts.actionHead);
  return dir;
}

/**
 * An action head whose ONNX run fails inside act(): it gathers index round(100·τ) from a
 * one-element table, so the first flow step (τ = 0) runs and the second (τ = 1/N) throws an
 * out-of-bounds error in onnxruntime. Same inputs and output as the tiny head.
 */
export function failingActionHead(horizon = 8, actionDim = 16, stateDim = 16, summaryTokens = 3, featureDim = 32): Uint8Array {
  const g = new OnnxGraph("action_head");
  const noisy = g.input("noisy_actions", "float32", [1, horizon, actionDim]);
  const tau = g.input("tau", "float32", [1, 1]);
  g.input("state", "float32", [1, stateDim]);
  g.input("summary", "float32", [1, summaryTokens, featureDim]);
  const index = g.op("Cast", [g.op("Reshape", [g.op("Mul", [tau, g.constF([100], [])]), g.constI([1])])], { to: 7 });
  const picked = g.op("Gather", [g.constF([0], [1]), index], { axis: 0 });
  g.output("velocity", "float32", [1, horizon, actionDim], g.op("Add", [g.op("Mul", [noisy, g.constF([0], [])]), picked]));
  return g.toBytes();
}
