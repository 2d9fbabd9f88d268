/**
 * A rig that runs the real episode loop (src/trial/episodeLoop.ts) on a LocalBus in lock-step sim
 * time, with a real ONNX policy (an Add graph: actions = state + bias, biases chosen per chunk,
 * NaN and out-of-range included) and a stand-in arm.
 *
 * NOTE: the rig's arm is a stand-in (a perfect joint_trajectory_controller that follows every
 * received JointTrajectory exactly and publishes JointState and one rgb8 image each tick, unless a
 * fault silences them): fast and exact for per-tick checks. The same faults over the real sim twin
 * (rendered cameras, rapier arm, Mem-0 ONNX bundle) are in faultSimRig.ts / faultsSim.test.ts.
 */
import onnxProto from "onnx-proto";
import * as ort from "onnxruntime-node";
import { SimClock } from "../../src/bus/clock.js";
import { LocalBus } from "../../src/bus/local.js";
import { RELIABLE_QOS, SENSOR_QOS } from "../../src/bus/types.js";
import { ActionScheduler, SafetyFilter, StopLatch, Watchdog, createOutput, watchedTopics } from "../../src/control/index.js";
import { codecFor } from "../../src/msgs/codec.js";
import { nsFromTime, timeFromNs, type JointTrajectory } from "../../src/msgs/types.js";
import type { Planner } from "../../src/policy/planner/types.js";
import type { ActionChunk, EpisodeInfo, ObserveResult, Policy, PolicySpec, PreparedObservation } from "../../src/policy/types.js";
import { getLayout, loadRobotProfile } from "../../src/robot/index.js";
import type { RobotProfile } from "../../src/robot/types.js";
import { runEpisodeLoop, type EpisodeLoopResult } from "../../src/trial/episodeLoop.js";
import { EventLog, type EngramEvent } from "../../src/trial/eventLog.js";

const { onnx } = onnxProto;

/** actions[H, D] = state[1, D] + bias[H, D], serialized ONNX. */
export function addModel(bias: Float32Array, H: number, D: number): Uint8Array {
  const F = onnx.TensorProto.DataType.FLOAT;
  const info = (name: string, dims: number[]) => ({ name, type: { tensorType: { elemType: F, shape: { dim: dims.map((d) => ({ dimValue: d })) } } } });
  return onnx.ModelProto.encode(onnx.ModelProto.create({
    irVersion: 7, producerName: "engram-control-test", opsetImport: [{ domain: "", version: 13 }],
    graph: {
      name: "add", node: [{ opType: "Add", input: ["state", "bias"], output: ["actions"], name: "add" }],
      initializer: [{ name: "bias", dims: [H, D], dataType: F, floatData: Array.from(bias) }],
      input: [info("state", [1, D])], output: [info("actions", [H, D])],
    },
  })).finish();
}

/** A Policy whose act() runs an ONNX Add model on the last observed state; `biasFor(n)` picks chunk n's bias. */
class OnnxAddPolicy implements Policy {
  readonly spec: PolicySpec;
  private state: Float64Array = new Float64Array(0);
  private acts = 0;
  private readonly sessions = new Map<string, ort.InferenceSession>();

  constructor(private readonly names: string[], horizon: number, private readonly biasFor: (n: number) => Float32Array, private readonly vocabulary?: string[], private readonly actDelayMs?: (n: number) => number) {
    this.spec = { name: "onnx-add", cameras: ["head"], imageSize: { width: 32, height: 24 }, layout: "bimanual_16d", horizon };
  }
  async reset(_e: EpisodeInfo): Promise<void> { this.acts = 0; }
  async resetSession(): Promise<void> {}
  async observeDemonstration(): Promise<void> {}
  /** Like a closed-vocabulary tokenizer: an instruction outside `vocabulary` (when given) throws. */
  setInstruction(t: string): void {
    if (this.vocabulary && !this.vocabulary.includes(t)) throw new Error(`instruction ${JSON.stringify(t)} is not in the closed vocabulary; known: ${this.vocabulary.join(", ")}`);
  }
  async observe(obs: PreparedObservation): Promise<ObserveResult> {
    this.state = obs.state;
    return { logit: -5, subtaskEnded: false };
  }
  async act(): Promise<ActionChunk> {
    const H = this.spec.horizon, D = this.names.length;
    const delay = this.actDelayMs?.(this.acts) ?? 0;
    if (delay > 0) await new Promise((r) => setTimeout(r, delay)); // a slow server, in wall time
    const bias = this.biasFor(this.acts++);
    const key = Array.from(bias.subarray(0, 8)).join(",") + bias.length + bias.findIndex((v) => !Number.isFinite(v) || Math.abs(v) > 1);
    let s = this.sessions.get(key);
    if (!s) { s = await ort.InferenceSession.create(addModel(bias, H, D)); this.sessions.set(key, s); }
    const out = await s.run({ state: new ort.Tensor("float32", Float32Array.from(this.state), [1, D]) });
    return { jointNames: this.names, actions: Float64Array.from(out["actions"]!.data as Float32Array), horizon: H, dim: D };
  }
  async close(): Promise<void> { for (const s of this.sessions.values()) await s.release(); }
}

/** What a fault does on a tick: silence a sensor, publish a Bool, or fail the planner. */
export interface Fault {
  silence?: { joints?: boolean; camera?: boolean };
  /** Joint states still arrive, but with a NaN position (a broken driver or encoder). */
  nanJoints?: boolean;
  /**
   * Rewrites the JointState the arm publishes (a driver that lies: a joint missing, repeated, or
   * beyond its limits); the arm itself stays where it is.
   */
  lie?: (js: { name: string[]; position: number[] }) => { name: string[]; position: number[] };
  bools?: Array<{ topic: string; data: boolean }>;
  /** Raw bytes published as std_msgs/msg/Bool on a topic (a message that does not decode). */
  rawBools?: Array<{ topic: string; bytes: Uint8Array }>;
}

export interface RigOptions {
  ticks: number;
  horizon: number;
  /** Bias of chunk n (H x 16, robot units). */
  biasFor: (n: number) => Float32Array;
  /** Faults by tick index. */
  faults?: (tick: number) => Fault | undefined;
  planner?: Planner;
  /** The policy's closed vocabulary (default: any instruction). */
  vocabulary?: string[];
  deadman?: boolean;
  /** Drive the arm through the `stream` interface (JointState targets) instead of x-one's trajectory. */
  stream?: boolean;
  /** Wall-clock ms act() n takes before answering (a remote policy's round trip). */
  actDelayMs?: (n: number) => number;
  /** Pace the lock-step ticks at wall speed too (the loop's `wallPaced`). */
  wallPaced?: boolean;
}

/** One command the rig's arm received, with the position it was at when it arrived. */
export interface ReceivedCommand { atNs: bigint; from: Record<string, number>; traj: JointTrajectory }

export interface RigResult {
  profile: RobotProfile;
  filter: SafetyFilter;
  events: EngramEvent[];
  commands: ReceivedCommand[];
  /** Where the arm really was at each tick (what it published, before any `lie`), by tick index. */
  truth: Array<Record<string, number>>;
  result: EpisodeLoopResult;
}

/** Runs one episode of `ticks` ticks on x-one.yaml with the given faults. */
export async function runRig(o: RigOptions): Promise<RigResult> {
  const loaded = loadRobotProfile("robots/x-one.yaml").profile;
  const profile: RobotProfile = {
    ...loaded,
    safety: o.deadman ? { ...loaded.safety, deadman_topic: "/engram/deadman" } : loaded.safety,
    command: o.stream ? { ...loaded.command, interface: "stream" } : loaded.command,
  };
  const layout = getLayout(profile, "bimanual_16d");
  if (layout.kind !== "joint") throw new Error("bimanual_16d must be a joint layout");
  const clock = new SimClock(1_000_000_000n);
  const bus = new LocalBus({ clock });
  const periodNs = BigInt(Math.round(1e9 / profile.control_hz));
  const head = profile.cameras.find((c) => c.name === "head")!;

  // The stand-in arm.
  const position: Record<string, number> = { ...profile.home };
  let running: { startNs: bigint; traj: JointTrajectory } | null = null;
  const commands: ReceivedCommand[] = [];
  const truth: Array<Record<string, number>> = [];
  const trajCodec = codecFor("trajectory_msgs/msg/JointTrajectory");
  const received = (traj: JointTrajectory, receivedNs: bigint) => {
    commands.push({ atNs: receivedNs, from: { ...position }, traj });
    running = traj.points.length === 0 ? null : { startNs: receivedNs, traj };
  };
  if (o.stream) {
    // A streamed JointState target is reached by the next tick: a one-point trajectory of 1/hz.
    const stateCodec = codecFor("sensor_msgs/msg/JointState");
    bus.subscribe(profile.command.joint_topic, "sensor_msgs/msg/JointState", RELIABLE_QOS, (cdr, receivedNs) => {
      const js = stateCodec.decode(cdr);
      const point = { positions: js.position, velocities: [], accelerations: [], effort: [], time_from_start: timeFromNs(periodNs) };
      received({ header: js.header, joint_names: js.name, points: [point] }, receivedNs);
    });
  } else {
    bus.subscribe(profile.command.joint_topic, "trajectory_msgs/msg/JointTrajectory", RELIABLE_QOS, (cdr, receivedNs) => received(trajCodec.decode(cdr), receivedNs));
  }
  const follow = (nowNs: bigint) => {
    if (!running) return;
    let point = null;
    for (const p of running.traj.points) if (running.startNs + nsFromTime(p.time_from_start) <= nowNs) point = p;
    if (point) running.traj.joint_names.forEach((n, i) => { position[n] = point!.positions[i]!; });
  };
  const pubJoints = bus.advertise(profile.joint_state.topic, "sensor_msgs/msg/JointState", SENSOR_QOS);
  const pubImage = bus.advertise(head.topic, "sensor_msgs/msg/Image", SENSOR_QOS);
  const bools = new Map<string, (cdr: Uint8Array) => void>();
  const boolPub = (topic: string) => {
    if (!bools.has(topic)) bools.set(topic, bus.advertise(topic, "std_msgs/msg/Bool", RELIABLE_QOS));
    return bools.get(topic)!;
  };
  const W = 32, Hh = 24;
  const pixels = new Uint8Array(W * Hh * 3).map((_, i) => (i * 7) & 255);
  let tick = 0;
  const flush = async () => { for (let i = 0; i < 4; i++) await new Promise<void>((r) => setImmediate(r)); };
  const pace = async (ns: bigint) => {
    await flush(); // the commands of the last tick reach the arm before time moves on
    await clock.advanceTo(ns);
    follow(ns);
    const fault = o.faults?.(tick) ?? {};
    const stamp = timeFromNs(ns);
    truth.push({ ...position });
    if (!fault.silence?.joints) {
      const names = Object.keys(position);
      const positions = names.map((n, i) => (fault.nanJoints && i === 2 ? Number.NaN : position[n]!));
      const js = fault.lie ? fault.lie({ name: names, position: positions }) : { name: names, position: positions };
      pubJoints(codecFor("sensor_msgs/msg/JointState").encode({ header: { stamp, frame_id: "" }, ...js, velocity: [], effort: [] }));
    }
    if (!fault.silence?.camera) {
      pubImage(codecFor("sensor_msgs/msg/Image").encode({ header: { stamp, frame_id: head.frame_id }, height: Hh, width: W, encoding: "rgb8", is_bigendian: 0, step: W * 3, data: pixels }));
    }
    if (o.deadman && ![...fault.bools ?? [], ...fault.rawBools ?? []].some((b) => b.topic === "/engram/deadman")) boolPub("/engram/deadman")(codecFor("std_msgs/msg/Bool").encode({ data: true }));
    for (const b of fault.bools ?? []) boolPub(b.topic)(codecFor("std_msgs/msg/Bool").encode({ data: b.data }));
    for (const b of fault.rawBools ?? []) boolPub(b.topic)(b.bytes);
    tick++;
    await flush(); // sensor messages reach the loop before its tick reads them
  };

  const names = layout.names;
  const policy = new OnnxAddPolicy(names, o.horizon, o.biasFor, o.vocabulary, o.actDelayMs);
  const events: EngramEvent[] = [];
  const log = new EventLog({ nowNs: () => clock.nowNs() });
  log.onEvent((e) => events.push(e));
  const filter = new SafetyFilter({ profile, layout });
  try {
    const result = await runEpisodeLoop({
      rig: { bus, pacing: { kind: "lockstep", advanceTo: pace, wallPaced: o.wallPaced }, verdict: () => null },
      control: {
        profile, layout,
        scheduler: new ActionScheduler({ dim: names.length }),
        safety: filter, output: createOutput(profile, layout),
        stops: new StopLatch({ safety: profile.safety, deadmanStaleAfterMs: 300 }),
        watchdog: new Watchdog(watchedTopics(profile, ["head"])),
      },
      policy: { policy, imageSpecs: { head: { width: 32, height: 24, mean: [0.5, 0.5, 0.5], std: [0.5, 0.5, 0.5] } } },
      planning: { complexity: o.planner ? "M(n)" : "M(1)", globalTask: "put back the block", planner: o.planner ?? null, keyMemory: true },
      events: log, controlHz: profile.control_hz, maxSteps: o.ticks,
    });
    return { profile, filter, events, commands, truth, result };
  } finally {
    await policy.close();
    await bus.close();
  }
}

/** Bias of a well-behaved chunk: every joint drifts +0.01 rad per step, grippers stay. */
export function gentleBias(H: number, names: string[]): Float32Array {
  const b = new Float32Array(H * names.length);
  for (let k = 0; k < H; k++) names.forEach((n, j) => { b[k * names.length + j] = n.endsWith("gripper") ? 0 : 0.01 * (k + 1); });
  return b;
}

/** Every trajectory point within joint limits, within one tick's step of the previous point (the first: of the arm's position). Returns violations. */
export function violations(r: RigResult): string[] {
  const out: string[] = [];
  const lim = new Map(r.filter.limits.map((l) => [l.name, l]));
  for (const c of r.commands) {
    let prev = c.traj.joint_names.map((n) => c.from[n]!);
    c.traj.points.forEach((p, k) => {
      c.traj.joint_names.forEach((n, i) => {
        const l = lim.get(n)!;
        const v = p.positions[i]!;
        if (!(v >= l.lower && v <= l.upper)) out.push(`${n}=${v} outside [${l.lower}, ${l.upper}] point ${k}`);
        if (Math.abs(v - prev[i]!) > l.maxStep + 1e-9) out.push(`${n} step ${v - prev[i]!} > ${l.maxStep} point ${k}`);
      });
      prev = Array.from(p.positions);
    });
  }
  return out;
}
