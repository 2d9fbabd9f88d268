/**
 * A pool of worker threads that render camera frames (and JPEG-encode them) off the sim's main
 * thread, one worker per camera, so the cameras render in parallel with each other and with
 * physics. Opt-in (SimNode option `renderWorkers`); the main-thread path stays the default.
 */
import { Worker } from "node:worker_threads";
import type { RenderCamera } from "../render/rasterize.js";
import type { RenderMesh } from "../world/types.js";
import type { RenderDone, RenderJob } from "./renderWorker.js";

/** Renders frames in worker threads; `render` resolves with the image bytes. */
export class RenderPool {
  private readonly workers: Worker[] = [];
  private readonly pending = new Map<number, { resolve: (d: RenderDone) => void; reject: (e: Error) => void }>();
  private nextId = 0;

  /** Starts `size` workers (≥ 1). Under tsx the worker is the .ts file, loaded through tsx. */
  constructor(size: number) {
    if (!(Number.isInteger(size) && size >= 1)) throw new Error(`render pool: size ${size} must be a positive integer`);
    const ts = import.meta.url.endsWith(".ts");
    const url = new URL(ts ? "./renderWorker.ts" : "./renderWorker.js", import.meta.url);
    // NOTE: under tsx (no build step) the worker registers tsx's loader itself, then imports the .ts file.
    const entry = ts
      ? new URL(`data:text/javascript,${encodeURIComponent(`const { register } = await import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))}); register(); await import(${JSON.stringify(url.href)});`)}`)
      : url;
    for (let i = 0; i < size; i++) {
      const w = new Worker(entry);
      w.on("message", (d: RenderDone) => {
        const p = this.pending.get(d.id);
        if (!p) return;
        this.pending.delete(d.id);
        if (d.error) p.reject(new Error(`render worker: ${d.error}`));
        else p.resolve(d);
      });
      w.on("error", (err) => { for (const p of this.pending.values()) p.reject(err); this.pending.clear(); });
      this.workers.push(w);
    }
  }

  /**
   * Renders `camera` on worker `slot % size` (one slot per camera keeps its frame buffers warm); with
   * `layer` (a camera that does not move) the worker keeps the camera's fixed meshes drawn (StaticLayer).
   */
  render(slot: number, key: string, meshes: RenderMesh[], camera: RenderCamera, jpegQuality: number | null, layer = false): Promise<RenderDone> {
    const id = this.nextId++;
    const job: RenderJob = { id, key, meshes, camera, jpegQuality, layer };
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.workers[slot % this.workers.length]!.postMessage(job);
    });
  }

  /** Stops the workers. */
  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
    this.workers.length = 0;
  }
}
