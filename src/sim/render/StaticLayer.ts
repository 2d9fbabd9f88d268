/**
 * The fixed part of a camera's view, kept between frames. A camera that does not move in the world
 * (the head camera, on base_link) sees the meshes marked `fixed` (table, mats, buttons) from the same
 * pose every frame: renderCamera draws them once into the layer and starts each frame from a copy of
 * it, drawing only the other meshes on top. The layer holds for exactly the camera and the fixed
 * meshes it was drawn from; `holds` compares both in full (pose, intrinsics, every vertex byte,
 * indices, colours, which meshes), so any change, an episode reset or a task moving a button cap,
 * redraws it before it is used.
 */
import type { RenderMesh } from "../world/types.js";
import type { RenderCamera } from "./rasterize.js";

/** One camera's layer of fixed meshes; pass it to renderCamera as `opts.layer`, one per camera. */
export class StaticLayer {
  /** Frames drawn over the layer, times it was (re)drawn, frames drawn without it because of a depth tie. */
  readonly stats = { hits: 0, redraws: 0, ties: 0 };
  /** The fixed meshes drawn: rgb8, 1/z (0 = nothing drawn) and the triangles that reached the rasterizer. */
  rgb = new Uint8Array(0);
  z = new Float32Array(0);
  rasterized = 0;
  /** Counts redraws: the same version means the same pixels. */
  version = 0;
  private camera: number[] = [];
  private meshes: RenderMesh[] = [];

  /** True when the layer was drawn from this camera and these fixed meshes (in this order). */
  holds(camera: RenderCamera, fixed: readonly RenderMesh[]): boolean {
    const key = cameraKey(camera);
    if (key.length !== this.camera.length || !key.every((v, i) => Object.is(v, this.camera[i]))) return false;
    return fixed.length === this.meshes.length && fixed.every((m, i) => sameMesh(m, this.meshes[i]!));
  }

  /** Sizes the buffers for `camera` and remembers what the layer is about to be drawn from (copies). */
  redraw(camera: RenderCamera, fixed: readonly RenderMesh[]): void {
    const n = camera.width * camera.height;
    if (this.z.length !== n) { this.rgb = new Uint8Array(3 * n); this.z = new Float32Array(n); }
    this.camera = cameraKey(camera);
    this.meshes = fixed.map((m) => ({ positions: m.positions.slice(), indices: m.indices.slice(), color: [m.color[0], m.color[1], m.color[2]] }));
    this.stats.redraws++;
    this.version++;
  }
}

/** Everything of a camera the rendered pixels depend on (defaults resolved as renderCamera does). */
function cameraKey(c: RenderCamera): number[] {
  const { position: p, quaternion: q } = c.worldFromCamera;
  return [c.width, c.height, c.fx, c.fy, c.cx, c.cy, c.nearM ?? 0.01, (c.cullBackFaces ?? true) ? 1 : 0, p[0], p[1], p[2], q[0], q[1], q[2], q[3]];
}

function sameMesh(a: RenderMesh, b: RenderMesh): boolean {
  return a.color.every((v, i) => Object.is(v, b.color[i])) && sameBytes(a.positions, b.positions) && sameBytes(a.indices, b.indices);
}

/** Byte equality (a NaN or −0 vertex counts as a change, as it may render differently). */
function sameBytes(a: ArrayBufferView, b: ArrayBufferView): boolean {
  return a.byteLength === b.byteLength &&
    Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
}
