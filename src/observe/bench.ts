import sharp from "sharp";
import { frameToTensor, type ImageSpec } from "./preprocess.js";
import { percentile } from "./stats.js";

/** Per-tick preprocessing cost: three 640x480 JPEG frames → normalized CHW tensors, in parallel. */
export async function bench(): Promise<Record<string, unknown>> {
  const spec: ImageSpec = { width: 128, height: 96, mean: [0.5, 0.5, 0.5], std: [0.5, 0.5, 0.5] };
  const frames = await Promise.all([0, 1, 2].map(async (k) => {
    const raw = new Uint8Array(640 * 480 * 3);
    for (let i = 0; i < raw.length; i++) raw[i] = (i * (k + 3) + (i >> 9)) & 255;
    const jpeg = await sharp(raw, { raw: { width: 640, height: 480, channels: 3 } }).jpeg({ quality: 85 }).toBuffer();
    return { kind: "compressed" as const, msg: { header: { stamp: { sec: 0, nanosec: 0 }, frame_id: `cam${k}` }, format: "jpeg", data: new Uint8Array(jpeg) } };
  }));
  const times: number[] = [];
  for (let i = 0; i < 120; i++) {
    const t0 = performance.now();
    await Promise.all(frames.map((f, k) => frameToTensor(f, spec, `/cam${k}`)));
    if (i >= 20) times.push(performance.now() - t0);
  }
  return {
    three_jpeg_640x480_to_tensor_ms_p50: percentile(times, 0.5),
    three_jpeg_640x480_to_tensor_ms_p99: percentile(times, 0.99),
    tensor_size: `${spec.width}x${spec.height}`,
  };
}
