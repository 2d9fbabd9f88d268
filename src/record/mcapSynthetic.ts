/**
 * A deterministic synthetic robot recording (cameras + joint states), for the recorder benchmark
 * and the round-trip tests: the same spec always yields the same messages, byte for byte, so a
 * reader's output can be compared against a fresh generator instead of holding hundreds of MB.
 */
import { encode } from "../msgs/codec.js";
import { sampleImage, sampleJointState } from "../msgs/samples.js";
import type { RosType } from "../msgs/types.js";
import { RELIABLE_QOS, SENSOR_QOS } from "../bus/types.js";
import type { Qos } from "../bus/types.js";
import { McapRecorder, type RecorderOptions, type RecorderSummary } from "./mcapRecorder.js";

/** What to generate. Defaults: 10 s, 3 cameras 640x480 rgb8 at 30 Hz, 16 joints at 200 Hz. */
export interface SyntheticSpec {
  seconds?: number;
  cameras?: number;
  width?: number;
  height?: number;
  cameraHz?: number;
  joints?: number;
  jointHz?: number;
  startNs?: bigint;
}

/** One generated message. */
export interface SyntheticMessage {
  topic: string;
  type: RosType;
  logTimeNs: bigint;
  publishTimeNs: bigint;
  cdr: Uint8Array;
}

/** The topics a spec produces, with the QoS a driver would offer. */
export function syntheticTopics(spec: SyntheticSpec = {}): { topic: string; type: RosType; qos: Qos }[] {
  const cams = spec.cameras ?? 3;
  return [
    ...Array.from({ length: cams }, (_, c) => ({ topic: `/camera_${c}/image_raw`, type: "sensor_msgs/msg/Image", qos: SENSOR_QOS })),
    { topic: "/joint_states", type: "sensor_msgs/msg/JointState", qos: RELIABLE_QOS },
  ];
}

/** One scheduled message: its time and topic, with the payload built on demand. */
export interface SyntheticEvent {
  topic: string;
  type: RosType;
  logTimeNs: bigint;
  publishTimeNs: bigint;
  build(): Uint8Array;
}

/**
 * The messages' schedule in logTime order, payloads not yet built. Every logTime is unique
 * (cameras are staggered by 0.1 ms, ties are broken by +1 ns); publishTime is 1 ms before logTime.
 */
export function syntheticSchedule(spec: SyntheticSpec = {}): SyntheticEvent[] {
  const seconds = spec.seconds ?? 10;
  const cams = spec.cameras ?? 3;
  const width = spec.width ?? 640;
  const height = spec.height ?? 480;
  const cameraHz = spec.cameraHz ?? 30;
  const jointHz = spec.jointHz ?? 200;
  const joints = spec.joints ?? 16;
  const t0 = spec.startNs ?? 1_700_000_000_000_000_000n;
  const events: { t: bigint; cam: number; i: number }[] = [];
  for (let i = 0; i < Math.round(seconds * cameraHz); i++) {
    for (let c = 0; c < cams; c++) events.push({ t: t0 + BigInt(Math.round((i * 1e9) / cameraHz)) + BigInt(c * 100_000), cam: c, i });
  }
  for (let j = 0; j < Math.round(seconds * jointHz); j++) {
    events.push({ t: t0 + BigInt(Math.round((j * 1e9) / jointHz)) + 50_000n, cam: -1, i: j });
  }
  events.sort((a, b) => (a.t < b.t ? -1 : a.t > b.t ? 1 : a.cam - b.cam));
  let prev = -1n;
  return events.map((e) => {
    const t = e.t > prev ? e.t : prev + 1n;
    prev = t;
    const stamp = t - 1_000_000n;
    if (e.cam >= 0) {
      return {
        topic: `/camera_${e.cam}/image_raw`, type: "sensor_msgs/msg/Image", logTimeNs: t, publishTimeNs: stamp,
        build: () => encode("sensor_msgs/msg/Image", sampleImage(width, height, stamp, e.i * 7 + e.cam, `camera_${e.cam}_optical_frame`)),
      };
    }
    return {
      topic: "/joint_states", type: "sensor_msgs/msg/JointState", logTimeNs: t, publishTimeNs: stamp,
      build: () => encode("sensor_msgs/msg/JointState", sampleJointState(joints, stamp, e.i)),
    };
  });
}

/** Yields the messages of `syntheticSchedule` with their payloads, one at a time. */
export function* syntheticMessages(spec: SyntheticSpec = {}): Generator<SyntheticMessage> {
  for (const e of syntheticSchedule(spec)) {
    yield { topic: e.topic, type: e.type, logTimeNs: e.logTimeNs, publishTimeNs: e.publishTimeNs, cdr: e.build() };
  }
}

/** What `writeSyntheticRecording` measured. */
export interface SyntheticResult extends RecorderSummary {
  durationNs: bigint;
  /** Wall time spent inside the recorder (write calls and close), excluding message generation. */
  recorderMs: number;
  payloadBytes: number;
}

/** Records a synthetic spec into `path` with McapRecorder. */
export async function writeSyntheticRecording(path: string, spec: SyntheticSpec = {}, options: RecorderOptions = {}): Promise<SyntheticResult> {
  const rec = await McapRecorder.open(path, options);
  let recorderMs = 0;
  let payloadBytes = 0;
  let first: bigint | undefined;
  let last = 0n;
  for (const t of syntheticTopics(spec)) await rec.addTopic(t.topic, t.type, t.qos);
  for (const m of syntheticMessages(spec)) {
    first ??= m.logTimeNs;
    last = m.logTimeNs;
    payloadBytes += m.cdr.byteLength;
    const t = performance.now();
    await rec.write(m.topic, m.cdr, m.logTimeNs, m.publishTimeNs);
    recorderMs += performance.now() - t;
  }
  const t = performance.now();
  const summary = await rec.close();
  recorderMs += performance.now() - t;
  return { ...summary, durationNs: first === undefined ? 0n : last - first, recorderMs, payloadBytes };
}
