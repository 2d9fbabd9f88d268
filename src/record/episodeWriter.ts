/**
 * One recorded episode = one ros2-profile MCAP: every configured topic (BusRecorder), the events,
 * the episode's identity (Metadata `engram_episode`, written first so a killed recorder keeps it)
 * and the subtask annotations, each published on /engram/annotations as it completes and all of
 * them again as Metadata `engram_annotations` at close. Chunks are small (256 KiB, 500 ms), so a
 * crash or kill -9 loses at most the open chunk (see McapRecorder).
 */
import { rmSync } from "node:fs";
import { RELIABLE_QOS, SENSOR_QOS, type Bus, type Qos } from "../bus/types.js";
import type { LocalBus } from "../bus/local.js";
import { encode } from "../msgs/codec.js";
import { ENGRAM_EVENTS } from "../msgs/events.js";
import { SIM_CHECKPOINTS, SIM_EPISODE, SIM_SUBTASK, SIM_SUBTASK_END } from "../msgs/simTopics.js";
import type { TopicContract } from "../msgs/topicContract.js";
import type { RosType } from "../msgs/types.js";
import type { LoadedRobot } from "../robot/loadRobotProfile.js";
import { SIM_SENSOR_QOS } from "../msgs/qos.js";
import { BusRecorder, type RecordedTopicSpec } from "./busRecorder.js";
import { FULL_CAMERA_RECORDING, type CameraRecording } from "./cameraRecording.js";
import type { ChunkCompression } from "./chunkCompression.js";
import type { RecorderSummary } from "./mcapRecorder.js";
import { McapSource } from "../bus/mcapReader.js";

/** Subtask annotations topic (std_msgs/msg/String, one JSON `EpisodeAnnotation` per message). */
export const ANNOTATIONS_TOPIC = "/engram/annotations";
/** Annotations are few and must all arrive. */
const ANNOTATIONS_QOS: Qos = { ...RELIABLE_QOS, depth: 100 };
/** Mem-0's subtask-end label: the last this-many frames of each segment are positives. */
export const END_LABEL_FRAMES = 8;
/** Chunk size of episode recordings: what a kill may lose at most. */
export const EPISODE_CHUNK_BYTES = 256 * 1024;

/** How episode MCAPs are written (`--compression`, `--camera-rate`, `--image-format`, `--jpeg-quality`). */
export interface EpisodeRecordingOptions { compression: ChunkCompression; cameras: CameraRecording }
/** zstd chunks, every camera frame as published. */
export const DEFAULT_EPISODE_RECORDING: EpisodeRecordingOptions = { compression: "zstd", cameras: FULL_CAMERA_RECORDING };

/** One language segment (RMBench style), with Mem-0's subtask-end labels. Times as decimal ns strings. */
export interface EpisodeAnnotation {
  text: string;
  /** First and last control step of the segment (inclusive). */
  start_step: number;
  end_step: number;
  /** Bus time of the start of `start_step` and of the end of `end_step`, ns. */
  start_ns: string;
  end_ns: string;
  /** The frames labelled "subtask ends here": the last END_LABEL_FRAMES steps of the segment. */
  end_label_steps: number[];
}

/** What identifies an episode (Metadata `engram_episode`; replay re-creates the sim scene from task + seed). */
export interface EpisodeIdentity {
  episode: number;
  robot: string;
  task: string;
  seed: number;
  source: string;
  control_hz: number;
  physics_hz: number | null;
  /** Bus time of step 0's start, ns (decimal string). */
  start_ns: string;
  /** Measured joint positions by name when the episode started (replay moves here first); null when unknown. */
  start_pose: Record<string, number> | null;
}

/** Builds one annotation from a segment; step k spans [start + k·period, start + (k+1)·period). */
export function annotationOf(seg: { text: string; startStep: number; endStep: number }, episodeStartNs: bigint, controlHz: number): EpisodeAnnotation {
  const periodNs = BigInt(Math.round(1e9 / controlHz));
  const first = Math.max(seg.startStep, seg.endStep - END_LABEL_FRAMES + 1);
  return {
    text: seg.text,
    start_step: seg.startStep,
    end_step: seg.endStep,
    start_ns: (episodeStartNs + BigInt(seg.startStep) * periodNs).toString(),
    end_ns: (episodeStartNs + BigInt(seg.endStep + 1) * periodNs).toString(),
    end_label_steps: Array.from({ length: seg.endStep - first + 1 }, (_, i) => first + i),
  };
}

/** Who publishes a robot's camera topics: the sim twin (in process or as `engram sim`), or its drivers. */
export type SensorPublisher = "twin" | "drivers";

/**
 * The QoS a robot's camera and camera-info publishers offer, written to their channels'
 * offered_qos_profiles (what `ros2 bag play` republishes with): the twin's SIM_SENSOR_QOS
 * (reliable); on hardware the best-effort sensor-data profile ROS camera drivers publish with,
 * the SENSOR_QOS the control loop subscribes to cameras with (the recorder cannot see the
 * drivers' own offer, and a reliable replay of frames a driver sent best-effort would misstate it).
 */
export function cameraPublisherQos(publisher: SensorPublisher): Qos {
  switch (publisher) {
    case "twin": return SIM_SENSOR_QOS;
    case "drivers": return SENSOR_QOS;
  }
}

/** What `episodeTopics` records besides the profile's topics. */
export interface EpisodeTopicOptions {
  /** Who publishes the cameras: sets their offered QoS (cameraPublisherQos). */
  sensors: SensorPublisher;
  /** Record the cameras (default true). */
  cameras?: boolean;
}

/**
 * Every topic a run uses, for the episode recorder: joint states, cameras (+ infos), the command
 * topics given, the leader arm, events, annotations and the sim's ground truth (absent on hardware:
 * such channels just stay empty). `cameras: false` leaves the cameras out.
 */
export function episodeTopics(
  robot: LoadedRobot, commands: ReadonlyArray<{ topic: string; type: string }>, opts: EpisodeTopicOptions,
): RecordedTopicSpec[] {
  const p = robot.profile;
  const cameras = opts.cameras ?? true;
  const cameraQos = cameraPublisherQos(opts.sensors);
  const out: RecordedTopicSpec[] = [
    { topic: p.joint_state.topic, type: "sensor_msgs/msg/JointState", qos: RELIABLE_QOS },
    ...(cameras ? p.cameras.flatMap((c) => [
      { topic: c.topic, type: imageTypeOf(c), qos: cameraQos },
      { topic: c.info_topic, type: "sensor_msgs/msg/CameraInfo", qos: cameraQos },
    ]) : []),
    ...commands.map((c) => ({ topic: c.topic, type: c.type, qos: RELIABLE_QOS })),
    { topic: p.teleop.leader_topic, type: "sensor_msgs/msg/JointState", qos: RELIABLE_QOS },
    recorded(ENGRAM_EVENTS),
    { topic: ANNOTATIONS_TOPIC, type: "std_msgs/msg/String", qos: ANNOTATIONS_QOS },
    ...[SIM_SUBTASK_END, SIM_SUBTASK, SIM_CHECKPOINTS, SIM_EPISODE].map(recorded),
  ];
  const seen = new Set<string>();
  return out.filter((t) => !seen.has(t.topic) && seen.add(t.topic));
}

/** A contract's topic as the recorder subscribes to it: with the QoS its publisher offers. */
function recorded(c: Pick<TopicContract<unknown>, "topic" | "type" | "qos">): RecordedTopicSpec {
  return { topic: c.topic, type: c.type, qos: c.qos };
}

function imageTypeOf(c: { encoding: string }): RosType {
  return c.encoding === "jpeg" ? "sensor_msgs/msg/CompressedImage" : "sensor_msgs/msg/Image";
}

/** Messages the bus dropped so far for keep-all (recorder) subscriptions on `topics` (0 when the bus keeps no stats). */
function recorderDrops(bus: Bus, topics: ReadonlyArray<{ topic: string }>): number {
  const stats = (bus as Partial<Pick<LocalBus, "stats">>).stats;
  if (typeof stats !== "function") return 0;
  const names = new Set(topics.map((t) => t.topic));
  return stats.call(bus).filter((s) => names.has(s.topic) && s.qos.history === "keep_all").reduce((n, s) => n + s.dropped, 0);
}

/**
 * Writes an episode's identity as Metadata `engram_episode` (what replay re-creates the scene
 * from, and export reads), into a teleop recording or a policy run's episode MCAP alike.
 */
export function identifyRecording(recorder: BusRecorder, identity: EpisodeIdentity): Promise<void> {
  return recorder.recorder.addMetadata("engram_episode", new Map(Object.entries(identity).map(([k, v]) => [k, typeof v === "object" ? JSON.stringify(v) : String(v)])));
}

/** Recording of one episode; `finish` keeps it, `discard` deletes it. */
export class EpisodeWriter {
  private readonly annotations: EpisodeAnnotation[] = [];
  private readonly publishAnnotation: (cdr: Uint8Array) => void;
  private readonly drops0: number;

  private constructor(private readonly bus: Bus, readonly path: string, private readonly recorder: BusRecorder, readonly topics: readonly RecordedTopicSpec[]) {
    this.publishAnnotation = bus.advertise(ANNOTATIONS_TOPIC, "std_msgs/msg/String", ANNOTATIONS_QOS);
    this.drops0 = recorderDrops(bus, topics);
  }

  /** Opens `path` and subscribes `topics` (call `identify` once the episode has started). */
  static async start(bus: Bus, path: string, topics: readonly RecordedTopicSpec[], compression?: ChunkCompression): Promise<EpisodeWriter> {
    const recorder = await BusRecorder.start(bus, path, topics, { chunkSizeBytes: EPISODE_CHUNK_BYTES, maxChunkAgeMs: 500, compression });
    return new EpisodeWriter(bus, path, recorder, topics);
  }

  /** Writes the identity metadata `engram_episode` (right away: a killed recorder keeps it). */
  identify(identity: EpisodeIdentity): Promise<void> {
    return identifyRecording(this.recorder, identity);
  }

  /** Messages written so far. */
  get messageCount(): number { return this.recorder.messageCount; }
  /** Messages the bus dropped for this recording so far. */
  get dropped(): number { return recorderDrops(this.bus, this.topics) - this.drops0; }
  /** Annotations published so far. */
  get annotationCount(): number { return this.annotations.length; }

  /** Publishes one completed segment on /engram/annotations (recorded like any topic). */
  annotate(a: EpisodeAnnotation): void {
    this.annotations.push(a);
    this.publishAnnotation(encode("std_msgs/msg/String", { data: JSON.stringify(a) }));
  }

  /** Lets queued deliveries reach the recorder, writes `engram_annotations`, closes the file. */
  async finish(outcome: "success" | "failure"): Promise<RecorderSummary> {
    await settle(this.bus, this.topics);
    await this.recorder.recorder.addMetadata("engram_annotations", new Map([
      ["outcome", outcome],
      ["annotations", JSON.stringify(this.annotations)],
    ]));
    return this.recorder.stop();
  }

  /** Closes and deletes the file (`r`: discard and re-record). */
  async discard(): Promise<void> {
    await this.recorder.stop();
    rmSync(this.path, { force: true });
  }
}

/**
 * Waits until the bus has delivered what is queued for `topics` (LocalBus delivers on setImmediate);
 * over a middleware, also until what this process published there came back (Bus.drained, at most 1 s).
 */
export async function settle(bus: Bus, topics: ReadonlyArray<{ topic: string }>): Promise<void> {
  const stats = (bus as Partial<Pick<LocalBus, "stats">>).stats;
  const names = new Set(topics.map((t) => t.topic));
  await bus.drained?.([...names], 1000);
  for (let i = 0; i < 1000; i++) {
    await new Promise<void>((r) => setImmediate(r));
    if (i >= 2 && (typeof stats !== "function" || stats.call(bus).every((s) => !names.has(s.topic) || s.queued === 0))) return;
  }
}

/** Reads the Metadata records of an MCAP (complete, or truncated: then by a streaming pass) by name. */
export async function readMcapMetadata(path: string): Promise<Map<string, Map<string, string>>> {
  const source = await McapSource.open(path);
  try {
    return await source.metadata();
  } finally {
    await source.close();
  }
}

/** The identity of a recorded episode (Metadata `engram_episode`), or null when absent. */
export function identityOf(meta: Map<string, Map<string, string>>): EpisodeIdentity | null {
  const m = meta.get("engram_episode");
  if (!m) return null;
  const num = (k: string) => Number(m.get(k));
  return {
    episode: num("episode"), robot: m.get("robot") ?? "", task: m.get("task") ?? "", seed: num("seed"),
    source: m.get("source") ?? "", control_hz: num("control_hz"),
    physics_hz: m.get("physics_hz") === "null" ? null : num("physics_hz"), start_ns: m.get("start_ns") ?? "0",
    start_pose: m.has("start_pose") ? JSON.parse(m.get("start_pose")!) as Record<string, number> | null : null,
  };
}
