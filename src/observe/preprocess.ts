import sharp, { type Sharp } from "sharp";
import { jpegFromRgb } from "../msgs/image.js";
import type { CompressedImage, Image } from "../msgs/types.js";

/** Target size and pixel normalization of one policy camera input. */
export interface ImageSpec {
  width: number;
  height: number;
  /** Per-channel mean and std applied after scaling bytes to [0, 1]: x = (v/255 - mean) / std. */
  mean: [number, number, number];
  std: [number, number, number];
}

/** A camera frame as it came off the bus: raw rgb8 (Image) or JPEG/PNG (CompressedImage). */
export type CameraFrame =
  | { kind: "raw"; msg: Image }
  | { kind: "compressed"; msg: CompressedImage };

const RAW_CHANNELS: Record<string, number> = { rgb8: 3, bgr8: 3, rgba8: 4, bgra8: 4, mono8: 1 };

/**
 * Decodes and resizes one camera frame into a CHW float32 tensor (RGB order) with the spec's
 * normalization. Decoding and resizing run on sharp's libuv threads, so the control tick's event
 * loop is not blocked. Throws with the topic named when the frame is malformed.
 */
export async function frameToTensor(frame: CameraFrame, spec: ImageSpec, topic: string): Promise<Float32Array> {
  const rgb = await decodeResized(frame, spec.width, spec.height, topic);
  return hwcToNormalizedChw(rgb, spec);
}

async function decodeResized(frame: CameraFrame, width: number, height: number, topic: string): Promise<Uint8Array> {
  let input: Sharp;
  let swapRb = false;
  if (frame.kind === "raw") {
    const m = frame.msg;
    const channels = RAW_CHANNELS[m.encoding];
    if (channels === undefined) throw new Error(`${topic}: unsupported image encoding "${m.encoding}" (expected one of ${Object.keys(RAW_CHANNELS).join(", ")})`);
    if (m.width <= 0 || m.height <= 0) throw new Error(`${topic}: image size ${m.width}x${m.height} is empty`);
    if (m.step < m.width * channels || m.data.length < m.step * m.height) {
      throw new Error(`${topic}: image data ${m.data.length} bytes too short for ${m.width}x${m.height} ${m.encoding} step ${m.step}`);
    }
    const packed = m.step === m.width * channels ? m.data : repack(m.data, m.width * channels, m.step, m.height);
    input = sharp(packed, { raw: { width: m.width, height: m.height, channels: channels as 1 | 3 | 4 } });
    swapRb = m.encoding.startsWith("bgr");
  } else {
    if (frame.msg.data.length === 0) throw new Error(`${topic}: compressed image is empty`);
    input = sharp(frame.msg.data);
  }
  try {
    const { data, info } = await input
      .removeAlpha()
      .toColourspace("srgb")
      .resize(width, height, { fit: "fill", kernel: "linear" })
      .raw()
      .toBuffer({ resolveWithObject: true });
    if (info.channels !== 3) throw new Error(`decoded ${info.channels} channels, expected 3`);
    const rgb = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    if (swapRb) for (let i = 0; i < rgb.length; i += 3) { const b = rgb[i]!; rgb[i] = rgb[i + 2]!; rgb[i + 2] = b; }
    return rgb;
  } catch (err) {
    throw new Error(`${topic}: cannot decode ${frame.kind === "raw" ? frame.msg.encoding : frame.msg.format} image: ${(err as Error).message}`);
  }
}

function repack(data: Uint8Array, rowBytes: number, step: number, height: number): Uint8Array {
  const out = new Uint8Array(rowBytes * height);
  for (let y = 0; y < height; y++) out.set(data.subarray(y * step, y * step + rowBytes), y * rowBytes);
  return out;
}

/** HWC rgb bytes → CHW float32 with (v/255 - mean) / std per channel. Pure. */
export function hwcToNormalizedChw(rgb: Uint8Array, spec: ImageSpec): Float32Array {
  const plane = spec.width * spec.height;
  if (rgb.length !== plane * 3) throw new Error(`expected ${plane * 3} bytes for ${spec.width}x${spec.height} rgb, got ${rgb.length}`);
  const out = new Float32Array(plane * 3);
  for (let c = 0; c < 3; c++) {
    const scale = 1 / (255 * spec.std[c]!);
    const offset = spec.mean[c]! / spec.std[c]!;
    const base = c * plane;
    for (let i = 0; i < plane; i++) out[base + i] = rgb[i * 3 + c]! * scale - offset;
  }
  return out;
}

/** sharp's default JPEG quality, which planner images have always been encoded at. */
const PLANNER_JPEG_QUALITY = 80;

/**
 * The frame as JPEG bytes, for a planner's image: compressed frames pass through as they came,
 * raw rgb8 frames are encoded by sharp (src/msgs/image.ts).
 */
export async function frameToJpeg(frame: CameraFrame): Promise<Uint8Array> {
  if (frame.kind === "compressed") return frame.msg.data;
  const m = frame.msg;
  return jpegFromRgb(m.data, m.width, m.height, PLANNER_JPEG_QUALITY, "sharp");
}
