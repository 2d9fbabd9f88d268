import { jpegFromRgb } from "../src/msgs/image.js";
import { frameToTensor, type ImageSpec } from "../src/observe/preprocess.js";
import { percentile } from "../src/observe/stats.js";

/** Per-tick preprocessing cost: three 640x480 JPEG frames → normalized CHW tensors, in parallel. */
export async function bench(): Promise<Record<string, unknown>> {
  const spec: ImageSpec = { width: 128, height: 96, mean: [0.5, 0.5, 0.5], std: [0.5, 0.5, 0.5] };
  const frames = await Promise.all([0, 1, 2].map(async (k) => {
    const raw = new Uint8Array(640 * 480 * 3);
    for (let i = 0; i < raw.length; i++) raw[i] = (i * (k + 3) + (i >> 9)) & 255;
    const jpeg = await jpegFromRgb(raw, 640, 480, 85, "sharp");
    const header = { stamp: { sec: 0, nanosec: 0 }, frame_id: `cam${k}` };
    return { kind: "compressed" as const, msg: { header, format: "jpeg", data: jpeg } };
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
