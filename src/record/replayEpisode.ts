/**
 * Reading a recorded episode for replay, and the pieces replay shares: the recorded commands (the
 * leader arm and the command interface topics, with their offsets from the episode start), the
 * recorded joint states, the annotations, the slow move to the start pose through the safety
 * filter, and the tracking error between recorded and replayed joint states.
 */
import { RELIABLE_QOS, type Bus } from "../bus/types.js";
import { codecFor, decode, encode } from "../msgs/codec.js";
import { type RosType } from "../msgs/types.js";
import type { RobotProfile } from "../robot/types.js";
import { identityOf, readMcapMetadata, ANNOTATIONS_TOPIC, type EpisodeAnnotation, type EpisodeIdentity } from "./episodeWriter.js";
import { McapSource } from "../bus/mcapReader.js";
import { LeaderForwarder } from "./teleop/leaderForwarder.js";

/** One recorded command: re-sent on `topic` at `offsetNs` after the episode start. */
export interface RecordedCommand { topic: string; type: RosType; offsetNs: bigint; cdr: Uint8Array }

/** A joint-state sample, offset from the episode start. */
export interface JointSample { offsetNs: bigint; names: string[]; positions: Float64Array }

/** What replay needs from an episode MCAP. */
export interface RecordedEpisode {
  path: string;
  identity: EpisodeIdentity;
  commands: RecordedCommand[];
  jointStates: JointSample[];
  annotations: EpisodeAnnotation[];
  /** Offset of the last message, ns. */
  durationNs: bigint;
  /** Set when the file has no usable index (cut or killed): only the recorded prefix is replayed. */
  prefixWarning: string | null;
}

/** The warning for replaying a file read without its index: it holds a prefix of the episode. */
export function prefixWarning(path: string, fallbackReason: string | undefined, durationNs: bigint): string | null {
  if (!fallbackReason) return null;
  return `${path} has no usable index (it was cut or its recorder killed): replaying only its first ${(Number(durationNs) / 1e9).toFixed(2)} s; ${fallbackReason}`;
}

/** Topics whose messages are commands to the robot: the leader arm and the profile's command interface. */
function commandTopics(profile: RobotProfile): string[] {
  const c = profile.command;
  return [profile.teleop.leader_topic, c.joint_topic, ...(c.gripper_topic ? [c.gripper_topic] : []), ...(c.pose_topic ? [c.pose_topic] : [])];
}

/** Reads an episode recorded by `engram record` (complete or recovered). Throws naming the file when it lacks `engram_episode`. */
export async function readRecordedEpisode(path: string, profile: RobotProfile): Promise<RecordedEpisode> {
  const identity = identityOf(await readMcapMetadata(path));
  if (!identity) throw new Error(`${path}: no engram_episode metadata: not an episode recorded by engram record`);
  if (identity.robot !== profile.name) throw new Error(`${path}: recorded on robot "${identity.robot}", the config's robot is "${profile.name}"`);
  const start = BigInt(identity.start_ns);
  const cmdTopics = new Set(commandTopics(profile));
  const source = await McapSource.open(path);
  const out: RecordedEpisode = { path, identity, commands: [], jointStates: [], annotations: [], durationNs: 0n, prefixWarning: null };
  try {
    for await (const m of source.messages()) {
      const offsetNs = m.logTimeNs - start;
      if (offsetNs > out.durationNs) out.durationNs = offsetNs;
      if (cmdTopics.has(m.topic)) out.commands.push({ topic: m.topic, type: m.type, offsetNs, cdr: m.cdr });
      else if (m.topic === profile.joint_state.topic) {
        const js = decode("sensor_msgs/msg/JointState", m.cdr);
        out.jointStates.push({ offsetNs, names: js.name, positions: Float64Array.from(js.position) });
      } else if (m.topic === ANNOTATIONS_TOPIC) {
        out.annotations.push(JSON.parse(decode("std_msgs/msg/String", m.cdr).data) as EpisodeAnnotation);
      }
    }
  } finally {
    await source.close();
  }
  out.prefixWarning = prefixWarning(path, source.fallbackReason, out.durationNs);
  out.commands.sort((a, b) => (a.offsetNs < b.offsetNs ? -1 : a.offsetNs > b.offsetNs ? 1 : 0));
  return out;
}

/**
 * A command re-stamped for replay: JointTrajectory stamps become 0 ("start on receipt", as the
 * joint_trajectory_controller reads it), since the recorded absolute stamps are in the past.
 * Other messages are re-sent byte for byte.
 */
export function restamped(cmd: RecordedCommand): Uint8Array {
  if (cmd.type !== "trajectory_msgs/msg/JointTrajectory") return cmd.cdr;
  const m = decode("trajectory_msgs/msg/JointTrajectory", cmd.cdr);
  return encode("trajectory_msgs/msg/JointTrajectory", { ...m, header: { ...m.header, stamp: { sec: 0, nanosec: 0 } } });
}

/** Per-joint tracking error between recorded and replayed joint states (rad; grippers in m). */
export interface TrackingError {
  joints: Record<string, { rms: number; max: number }>;
  /** Worst per-joint RMS and max over revolute joints, rad. */
  rmsRad: number;
  maxRad: number;
  samples: number;
}

/**
 * Pairs each recorded sample with the replayed sample nearest in offset (both from their episode
 * start; replayed offsets are divided back by `rate`) and summarizes the difference per joint.
 */
export function trackingError(recorded: readonly JointSample[], replayed: readonly JointSample[], profile: RobotProfile, rate = 1): TrackingError {
  const acc = new Map<string, { sq: number; max: number; n: number }>();
  let j = 0, samples = 0;
  const scaled = replayed.map((s) => BigInt(Math.round(Number(s.offsetNs) * rate)));
  const lastReplayed = scaled[scaled.length - 1] ?? -1n;
  for (const r of recorded) {
    if (r.offsetNs > lastReplayed) break;
    while (j + 1 < scaled.length && abs(scaled[j + 1]! - r.offsetNs) <= abs(scaled[j]! - r.offsetNs)) j++;
    const p = replayed[j];
    if (!p) break;
    samples++;
    r.names.forEach((name, i) => {
      const k = p.names.indexOf(name);
      if (k < 0) return;
      const d = Math.abs(r.positions[i]! - p.positions[k]!);
      const a = acc.get(name) ?? { sq: 0, max: 0, n: 0 };
      a.sq += d * d; a.n++; a.max = Math.max(a.max, d);
      acc.set(name, a);
    });
  }
  const joints: TrackingError["joints"] = {};
  let rmsRad = 0, maxRad = 0;
  for (const [name, a] of acc) {
    const rms = Math.sqrt(a.sq / Math.max(1, a.n));
    joints[name] = { rms: round6(rms), max: round6(a.max) };
    if (profile.joints.find((x) => x.name === name)?.kind === "revolute") { rmsRad = Math.max(rmsRad, rms); maxRad = Math.max(maxRad, a.max); }
  }
  return { joints, rmsRad: round6(rmsRad), maxRad: round6(maxRad), samples };
}

/** Collects joint states from the bus with offsets from `startNs()` (read when each arrives). */
export function collectJointStates(bus: Bus, profile: RobotProfile, startNs: () => bigint): { samples: JointSample[]; stop(): void } {
  const samples: JointSample[] = [];
  const codec = codecFor("sensor_msgs/msg/JointState");
  const stop = bus.subscribe(profile.joint_state.topic, "sensor_msgs/msg/JointState", { ...RELIABLE_QOS, history: "keep_all" }, (cdr, receivedNs) => {
    const m = codec.decode(cdr);
    samples.push({ offsetNs: receivedNs - startNs(), names: m.name, positions: Float64Array.from(m.position) });
  });
  return { samples, stop };
}

/** Options of `moveToStart`. */
export interface MoveToStartOptions {
  bus: Bus;
  profile: RobotProfile;
  controlHz: number;
  /** Start pose by joint name. */
  target: Readonly<Record<string, number>>;
  /** Fraction of the velocity / step limits the move uses (default 0.25). */
  fraction?: number;
  /** Resolves at bus time `ns` (lock-step: the sim advancing; hardware: a sleep). */
  pace: (ns: bigint) => Promise<void>;
  /** Done when every joint is within this of the target (default 0.01 rad / m). */
  toleranceRad?: number;
  timeoutS?: number;
}

/**
 * Moves the robot to `target` slowly through a SafetyFilter whose velocity and step limits are
 * scaled by `fraction`, publishing on the profile's command interface once per control tick.
 * Resolves with how far it got; never throws on a hold (it just keeps waiting for the robot).
 */
export async function moveToStart(o: MoveToStartOptions): Promise<{ reached: boolean; steps: number; residualRad: number }> {
  const f = o.fraction ?? 0.25;
  const scaled: RobotProfile = {
    ...o.profile,
    joints: o.profile.joints.map((j) => ({ ...j, velocity_limit: j.velocity_limit * f })),
    safety: { ...o.profile.safety, max_step_rad: o.profile.safety.max_step_rad * f, gripper_max_step_m: o.profile.safety.gripper_max_step_m * f },
  };
  const fwd = new LeaderForwarder({ bus: o.bus, profile: scaled, controlHz: o.controlHz, followLeader: false });
  const periodNs = BigInt(Math.round(1e9 / o.controlHz));
  const tol = o.toleranceRad ?? 0.01;
  const maxSteps = Math.ceil((o.timeoutS ?? 60) * o.controlHz);
  let residual = Infinity, steps = 0;
  try {
    for (; steps < maxSteps; steps++) {
      await o.pace(o.bus.clock.nowNs() + periodNs);
      const m = fwd.measuredPositions;
      if (m) {
        residual = Math.max(0, ...Object.keys(o.target).filter((n) => n in m).map((n) => Math.abs(m[n]! - o.target[n]!)));
        if (residual <= tol) return { reached: true, steps, residualRad: residual };
      }
      fwd.forward(o.target, o.bus.clock.nowNs());
    }
    return { reached: false, steps, residualRad: residual };
  } finally {
    fwd.close();
  }
}

/** The recorded start pose: the measured pose stored at episode start, else the first recorded joint state. */
export function startPose(ep: RecordedEpisode): Record<string, number> {
  if (ep.identity.start_pose) return { ...ep.identity.start_pose };
  const first = ep.jointStates[0];
  if (!first) throw new Error(`${ep.path}: no joint states on the joint-state topic: cannot find the start pose`);
  return Object.fromEntries(first.names.map((n, i) => [n, first.positions[i]!]));
}

function abs(x: bigint): bigint { return x < 0n ? -x : x; }
function round6(x: number): number { return Math.round(x * 1e6) / 1e6; }
