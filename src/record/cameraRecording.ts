/**
 * Lean camera recording (`--camera-rate HZ`, `--image-format raw|jpeg`, `--jpeg-quality Q` of
 * `record` and `run`): camera frames are written at most at a given rate, and raw rgb8 frames are
 * written as JPEG sensor_msgs/msg/CompressedImage on `<topic>/compressed` with format
 * "rgb8; jpeg compressed bgr8", exactly what ROS image_transport's compressed plugin publishes
 * beside a raw camera topic (a camera that already publishes JPEG is written as it is). The
 * control loop still sees every raw frame: only the recording is thinned.
 */
import { decode, encode } from "../msgs/codec.js";
import type { RosType } from "../msgs/types.js";
import type { RobotProfile } from "../robot/types.js";
import { compressedImageFromRgb } from "../msgs/image.js";
import type { RecordedTopicSpec } from "./busRecorder.js";

/** How cameras are recorded. */
export interface CameraRecording {
  /** Frames (and camera infos) are written at most this often; null = every frame. */
  rateHz: number | null;
  /** raw: as published; jpeg: rgb8 frames become CompressedImage on `<topic>/compressed`. */
  format: "raw" | "jpeg";
  /** JPEG quality 1..100 (format jpeg). */
  jpegQuality: number;
}

/** Every frame, as published: what `record` and `run` write unless told otherwise. */
export const FULL_CAMERA_RECORDING: CameraRecording = { rateHz: null, format: "raw", jpegQuality: 90 };

/** The topic ROS image_transport publishes JPEG frames of a raw topic on. */
export function compressedTopicOf(topic: string): string {
  return topic.endsWith("/compressed") ? topic : `${topic}/compressed`;
}

/**
 * The topic a camera's frames were recorded on in a file with these `recorded` topics: its own
 * topic, else its `/compressed` twin (recorded with --image-format jpeg); undefined when neither.
 */
export function recordedCameraTopic(cam: { topic: string }, recorded: ReadonlySet<string>): string | undefined {
  if (recorded.has(cam.topic)) return cam.topic;
  const jpeg = compressedTopicOf(cam.topic);
  return recorded.has(jpeg) ? jpeg : undefined;
}

/** Checks flag values whole, naming the flag: rate > 0 and finite, format raw|jpeg, quality 1..100. */
export function checkCameraRecording(c: CameraRecording): CameraRecording {
  if (c.rateHz !== null && !(Number.isFinite(c.rateHz) && c.rateHz > 0 && c.rateHz <= 1000)) throw new Error(`--camera-rate expects a rate in Hz in (0, 1000], got ${c.rateHz}`);
  if (c.format !== "raw" && c.format !== "jpeg") throw new Error(`--image-format expects raw or jpeg, got "${String(c.format)}"`);
  if (!(Number.isInteger(c.jpegQuality) && c.jpegQuality >= 1 && c.jpegQuality <= 100)) throw new Error(`--jpeg-quality expects an integer 1..100, got ${c.jpegQuality}`);
  return c;
}

/**
 * Keeps a message when at least ~one period has passed since the last kept one (5 % slack for
 * timestamp jitter: a 30 Hz camera capped at 10 Hz keeps every third frame).
 */
export function rateGate(rateHz: number): (receivedNs: bigint) => boolean {
  const minGapNs = BigInt(Math.round((1e9 / rateHz) * 0.95));
  let last: bigint | undefined;
  return (ns) => {
    if (last !== undefined && ns - last < minGapNs) return false;
    last = ns;
    return true;
  };
}

/**
 * The episode topics with the profile's cameras (and their infos) recorded as `c` says: a rate
 * gate, and for raw rgb8 cameras with format jpeg a rewrite to CompressedImage on `<topic>/compressed`.
 */
export function leanCameraTopics(topics: readonly RecordedTopicSpec[], profile: RobotProfile, c: CameraRecording): RecordedTopicSpec[] {
  if (c.rateHz === null && c.format === "raw") return [...topics];
  return topics.map((t) => {
    const cam = profile.cameras.find((x) => x.topic === t.topic);
    const info = profile.cameras.find((x) => x.info_topic === t.topic);
    if (!cam && !info) return t;
    const keep = c.rateHz === null ? () => true : rateGate(c.rateHz);
    if (info || c.format === "raw" || t.type !== "sensor_msgs/msg/Image") {
      return { ...t, rewrite: { topic: t.topic, type: t.type, rewrite: (cdr: Uint8Array, ns: bigint) => (keep(ns) ? cdr : null) } };
    }
    const type: RosType = "sensor_msgs/msg/CompressedImage";
    return { ...t, rewrite: { topic: compressedTopicOf(t.topic), type, rewrite: (cdr: Uint8Array, ns: bigint) => (keep(ns) ? jpegOf(cdr, c.jpegQuality, t.topic) : null) } };
  });
}

/** A raw Image's CDR as a CompressedImage's CDR (same header); an encoding other than rgb8 is an error naming the topic. */
async function jpegOf(cdr: Uint8Array, quality: number, topic: string): Promise<Uint8Array> {
  const img = decode("sensor_msgs/msg/Image", cdr);
  if (img.encoding !== "rgb8") throw new Error(`--image-format jpeg: ${topic} publishes ${img.encoding} frames, only rgb8 is converted (record it with --image-format raw)`);
  return encode("sensor_msgs/msg/CompressedImage", await compressedImageFromRgb(img.data, img.width, img.height, img.header, quality));
}
