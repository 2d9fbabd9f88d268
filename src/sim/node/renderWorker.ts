/**
 * Worker-thread side of the camera render pool (renderPool.ts): renders one camera frame from the
 * meshes and camera it is sent and returns rgb8 bytes or JPEG bytes (libjpeg-turbo). Rendering is pure,
 * so a frame is identical to one rendered on the main thread.
 */
import { parentPort } from "node:worker_threads";
import { jpegFromRgb } from "../../msgs/image.js";
import { renderCamera, type RenderCamera, type RenderFrame } from "../render/rasterize.js";
import { StaticLayer } from "../render/StaticLayer.js";
import type { RenderMesh } from "../world/types.js";

/** A render job. */
export interface RenderJob { id: number; key: string; meshes: RenderMesh[]; camera: RenderCamera; jpegQuality: number | null; layer: boolean }
/** A finished job: the image bytes (rgb8 or JPEG) and the render time. */
export interface RenderDone { id: number; data: Uint8Array; width: number; height: number; renderMs: number; error?: string }

const frames = new Map<string, RenderFrame>();
const layers = new Map<string, StaticLayer>();

parentPort?.on("message", (job: RenderJob) => {
  void (async () => {
    try {
      const t0 = performance.now();
      if (job.layer && !layers.has(job.key)) layers.set(job.key, new StaticLayer());
      const frame = renderCamera(job.meshes, job.camera, frames.get(job.key), { depth: false, layer: job.layer ? layers.get(job.key) : undefined });
      frames.set(job.key, frame);
      const renderMs = performance.now() - t0;
      const data = job.jpegQuality === null ? frame.rgb.slice() : await jpegFromRgb(frame.rgb, frame.width, frame.height, job.jpegQuality);
      const out: RenderDone = { id: job.id, data, width: frame.width, height: frame.height, renderMs };
      parentPort!.postMessage(out, [data.buffer as ArrayBuffer]);
    } catch (err) {
      parentPort!.postMessage({ id: job.id, data: new Uint8Array(0), width: 0, height: 0, renderMs: 0, error: err instanceof Error ? err.message : String(err) } satisfies RenderDone);
    }
  })();
});
