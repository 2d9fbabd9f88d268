/**
 * `engram bench msgs`: CDR encode/decode cost of a 640x480 rgb8 Image and a 16-joint JointState,
 * in microseconds per message (mean after warm-up). Decoding an Image returns a view on its pixel
 * bytes (no copy), encoding copies them once.
 */
import { loadavg } from "node:os";
import { decode, encode } from "../src/msgs/codec.js";
import { sampleImage, sampleJointState } from "../src/msgs/samples.js";
import type { KnownRosType, RosTypeMap } from "../src/msgs/types.js";

function timeUs(iterations: number, fn: () => void): number {
  for (let i = 0; i < Math.min(20, iterations); i++) fn();
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) fn();
  return Number(process.hrtime.bigint() - start) / 1e3 / iterations;
}

function measure<K extends KnownRosType>(type: K, msg: RosTypeMap[K], iterations: number): Record<string, number> {
  const bytes = encode(type, msg);
  const round = (x: number) => Math.round(x * 100) / 100;
  return {
    bytes: bytes.byteLength,
    encode_us: round(timeUs(iterations, () => encode(type, msg))),
    decode_us: round(timeUs(iterations, () => decode(type, bytes))),
  };
}

/** Runs the section; figures are per message. */
export async function bench(): Promise<Record<string, unknown>> {
  return {
    image_640x480_rgb8: measure("sensor_msgs/msg/Image", sampleImage(640, 480), 300),
    joint_state_16: measure("sensor_msgs/msg/JointState", sampleJointState(16), 20000),
    load_avg_1m: Math.round(loadavg()[0]! * 10) / 10, // wall-time figures: read them against the machine load
  };
}
