/**
 * An episode MCAP (from `engram record` or `engram run`) sampled at the control rate, for the
 * exporters: frame k is the state at the end of control step k (bus time start + (k+1)/control_hz,
 * the control loop's tick) and the action issued right after it. One streaming pass; camera
 * messages are handed to the caller frame by frame and not kept.
 */
import { join, resolve } from "node:path";
import { decode } from "../msgs/codec.js";
import { SIM_EPISODE, SIM_SUBTASK, episodeInstruction } from "../msgs/simTopics.js";
import type { RobotProfile } from "../robot/types.js";
import { recordedCameraTopic } from "./cameraRecording.js";
import { readEpisodeIndex } from "./episodeIndex.js";
import { ANNOTATIONS_TOPIC, annotationOf, identityOf, readMcapMetadata, type EpisodeAnnotation, type EpisodeIdentity } from "./episodeWriter.js";
import { McapSource } from "../bus/mcapReader.js";

/** Joint positions with their names (order as recorded). */
export interface NamedPositions { names: readonly string[]; positions: ArrayLike<number> }

/** The latest message of a camera at a tick: sensor_msgs Image or CompressedImage CDR. */
export interface CameraMessage { type: string; cdr: Uint8Array }

/** One control-rate frame. */
export interface EpisodeFrame {
  index: number;
  /** Bus time of the tick, ns. */
  timeNs: bigint;
  /** Measured joint state. */
  state: NamedPositions;
  /** The joint-state message it was decoded from (sensor_msgs/msg/JointState CDR, as recorded). */
  stateCdr: Uint8Array;
  /** The action issued after the tick: the leader command, else the running trajectory's point for the next step, else the state. */
  action: NamedPositions;
  /** Latest frame of each recorded profile camera, by camera name (absent before its first frame). */
  cameras: Map<string, CameraMessage>;
}

/** What an episode holds besides its frames. */
export interface EpisodeSummary {
  mcap: string;
  identity: EpisodeIdentity;
  frames: number;
  /** The task instruction (the sim's /sim/episode, else the task id). */
  instruction: string;
  /** Subtask segments: /engram/annotations (engram record), else the sim's /sim/subtask changes (engram run). */
  annotations: EpisodeAnnotation[];
  /** Profile cameras the file holds, by name → recorded topic. */
  cameras: Map<string, string>;
}

/** One saved episode of a run folder. */
export interface RunEpisode { episode: number; mcap: string; outcome: string }

/**
 * The recorded episodes of a folder written by `engram record` (episodes.jsonl `file`) or
 * `engram run` (episodes.jsonl `mcap`; null with --no-record). Throws naming the folder when none.
 */
export function runEpisodes(runDir: string): RunEpisode[] {
  const lines = readEpisodeIndex(runDir) as Array<{ episode: number; outcome: string; file?: string | null; mcap?: string | null }>;
  const out = lines.flatMap((l) => {
    const file = l.file ?? l.mcap;
    return file ? [{ episode: l.episode, mcap: resolve(runDir, file), outcome: l.outcome }] : [];
  });
  if (out.length === 0) {
    const why = lines.length === 0 ? "lists no saved episodes" : `lists ${lines.length} episode(s) without a recording (run with --no-record?)`;
    throw new Error(`export: ${join(runDir, "episodes.jsonl")} ${why}`);
  }
  return out;
}

/** Reads `engram_episode` of a recording, throwing naming the file when it is absent. */
export async function episodeIdentity(mcapPath: string): Promise<EpisodeIdentity> {
  const id = identityOf(await readMcapMetadata(mcapPath));
  if (!id) throw new Error(`${mcapPath}: no engram_episode metadata: not an episode recorded by engram record or engram run`);
  return id;
}

/** Streams the frames of one episode to `onFrame` (awaited in order) and returns the summary. */
export async function readEpisodeFrames(mcapPath: string, profile: RobotProfile, onFrame: (f: EpisodeFrame) => Promise<void> | void): Promise<EpisodeSummary> {
  const identity = await episodeIdentity(mcapPath);
  const periodNs = BigInt(Math.round(1e9 / identity.control_hz));
  const start = BigInt(identity.start_ns);
  const source = await McapSource.open(mcapPath);
  const recorded = new Set((await source.topics()).map((t) => t.topic));
  const cameras = new Map(profile.cameras.flatMap((c) => {
    const topic = recordedCameraTopic(c, recorded);
    return topic ? [[c.name, topic] as const] : [];
  }));
  const latest = new Map<string, { type: string; cdr: Uint8Array; logTimeNs: bigint }>();
  const annotations: EpisodeAnnotation[] = [];
  const subtaskAt: Array<string | null> = [];
  let instruction: string | null = null;
  let tick = 0;
  const sample = async () => {
    const js = latest.get(profile.joint_state.topic);
    if (!js) return;
    const m = decode("sensor_msgs/msg/JointState", js.cdr);
    const state = { names: m.name, positions: m.position };
    const timeNs = start + BigInt(tick + 1) * periodNs;
    const frameCams = new Map<string, CameraMessage>();
    for (const [name, topic] of cameras) { const f = latest.get(topic); if (f) frameCams.set(name, f); }
    const sub = latest.get(SIM_SUBTASK.topic);
    subtaskAt.push(sub ? SIM_SUBTASK.decode(sub.cdr) : null);
    await onFrame({ index: subtaskAt.length - 1, timeNs, state, stateCdr: js.cdr, action: actionAt(latest, profile, timeNs, periodNs) ?? state, cameras: frameCams });
  };
  try {
    for await (const msg of source.messages()) {
      while (msg.logTimeNs > start + BigInt(tick + 1) * periodNs) { await sample(); tick++; }
      if (msg.topic === ANNOTATIONS_TOPIC) annotations.push(JSON.parse(decode("std_msgs/msg/String", msg.cdr).data) as EpisodeAnnotation);
      else if (msg.topic === SIM_EPISODE.topic && instruction === null) {
        instruction = episodeInstruction(SIM_EPISODE.decode(msg.cdr));
      }
      latest.set(msg.topic, { type: msg.type, cdr: msg.cdr, logTimeNs: msg.logTimeNs });
    }
    await sample();
  } finally {
    await source.close();
  }
  return {
    mcap: mcapPath, identity, frames: subtaskAt.length, instruction: instruction ?? identity.task, cameras,
    annotations: annotations.length > 0 ? annotations : segmentsOf(subtaskAt, start, identity.control_hz),
  };
}

/** Subtask segments from the subtask current at each frame (runs of the same text). */
function segmentsOf(subtaskAt: ReadonlyArray<string | null>, startNs: bigint, controlHz: number): EpisodeAnnotation[] {
  const out: EpisodeAnnotation[] = [];
  let from = 0;
  for (let k = 1; k <= subtaskAt.length; k++) {
    if (k < subtaskAt.length && subtaskAt[k] === subtaskAt[from]) continue;
    const text = subtaskAt[from];
    if (text) out.push(annotationOf({ text, startStep: from, endStep: k - 1 }, startNs, controlHz));
    from = k;
  }
  return out;
}

/**
 * The action after the tick at `timeNs`: the leader command when one was recorded, else the
 * point of the latest JointTrajectory that targets the next step (point j of a chunk published at
 * P targets P + (j+1)·period), else null.
 */
function actionAt(latest: Map<string, { type: string; cdr: Uint8Array; logTimeNs: bigint }>, profile: RobotProfile, timeNs: bigint, periodNs: bigint): NamedPositions | null {
  const leader = latest.get(profile.teleop.leader_topic);
  if (leader) {
    const m = decode("sensor_msgs/msg/JointState", leader.cdr);
    return { names: m.name, positions: m.position };
  }
  const traj = latest.get(profile.command.joint_topic);
  if (traj?.type !== "trajectory_msgs/msg/JointTrajectory") return null;
  const m = decode("trajectory_msgs/msg/JointTrajectory", traj.cdr);
  if (m.points.length === 0) return null;
  const j = Math.min(m.points.length - 1, Math.max(0, Math.round(Number(timeNs - traj.logTimeNs) / Number(periodNs))));
  return { names: m.joint_names, positions: m.points[j]!.positions };
}
