/**
 * CPU z-buffer rasterizer for the sim twin's cameras. Pinhole model with ROS camera_info
 * conventions: optical frame z forward, x right, y down; pixel (u, v) has its centre at integer
 * coordinates, u = fx·x/z + cx, v = fy·y/z + cy (no distortion: the sim renders rectified images).
 *
 * Pipeline: meshes sorted front to back; per mesh, vertices to the camera frame and projected once;
 * per triangle, back-face culling (optional; else both sides drawn), flat shading from the face
 * normal and a fixed world light, near-plane clip (Sutherland–Hodgman) and guard-band clip only when
 * needed, then scan conversion into the z-buffer (Raster.ts: integer edge functions, 1/z depth).
 * A camera that does not move can keep its fixed meshes drawn between frames (StaticLayer.ts).
 * NOTE: over 300 lines: the pipeline's stages share per-frame scratch buffers and run in one hot
 * loop (thousands of triangles per frame, 20 frames per simulated second); one file keeps them together.
 */
import type { Pose3, RenderMesh, Vec3 } from "../world/types.js";
import { rotationOf } from "./math.js";
import { Raster } from "./Raster.js";
import type { StaticLayer } from "./StaticLayer.js";

/** A pinhole camera to render from: intrinsics in pixels, pose of its optical frame in the world. */
export interface RenderCamera {
  width: number;
  height: number;
  fx: number;
  fy: number;
  cx: number;
  cy: number;
  /** Pose of the optical frame (z forward, x right, y down) in the world frame. */
  worldFromCamera: Pose3;
  /** Near clipping distance along optical z, m (default 0.01). Geometry closer than this is cut away. */
  nearM?: number;
  /**
   * Skip triangles seen from behind (default true): right for closed meshes wound counter-clockwise
   * seen from outside, as every builder in meshes.ts makes them, and ~1.5x faster. With false both
   * sides are drawn, each shaded as if facing the camera (for open or inconsistently wound meshes).
   */
  cullBackFaces?: boolean;
}

/** One rendered frame. Pass it back to `renderCamera` to reuse its buffers for the next frame. */
export interface RenderFrame {
  width: number;
  height: number;
  /** width·height·3 bytes, row-major, rgb8 (the sensor_msgs/Image "rgb8" layout, step = width·3). */
  rgb: Uint8Array;
  /**
   * width·height metres along the optical z axis; +Infinity where only background is seen. Rendered
   * with `{ depth: false }` it is not written.
   */
  depth: Float32Array;
  /**
   * Triangles submitted, triangles that reached the rasterizer (after culling and clipping), and
   * meshes left out whole as out of view, in the last render.
   */
  stats: { triangles: number; rasterized: number; meshesOutOfView: number };
}

/** Background colour (light grey-blue, "sky"), rgb8. */
export const BACKGROUND_RGB: Readonly<Vec3> = [176, 186, 198];
/** Light direction in the world frame (toward the light), unit length: from above, behind-left of the robot. */
export const LIGHT_DIR_WORLD: Readonly<Vec3> = normalize([-0.5, 0.3, 0.8]);
/** Shading = colour · (AMBIENT + DIFFUSE · max(0, n·l)). */
export const AMBIENT = 0.35;
/** Diffuse weight of the flat shading. */
export const DIFFUSE = 0.65;

const GUARD_PX = 4096; // projections beyond this many pixels outside the image are clipped in 3-D first

/** Allocates a frame (buffers for width x height) to render into and reuse. */
export function createRenderFrame(width: number, height: number): RenderFrame {
  if (!Number.isInteger(width) || width <= 0 || !Number.isInteger(height) || height <= 0) {
    throw new Error(`render frame size ${width}x${height}: width and height must be positive integers`);
  }
  return {
    width, height,
    rgb: new Uint8Array(width * height * 3),
    depth: new Float32Array(width * height),
    stats: { triangles: 0, rasterized: 0, meshesOutOfView: 0 },
  };
}

// NOTE: module-level scratch buffers (vertices in camera frame, clip polygons). renderCamera is
// synchronous and JS single-threaded, so sharing them between calls is safe and avoids garbage.
let camVerts = new Float64Array(3 * 1024);
let screenVerts = new Float64Array(2 * 1024);
const clipA = new Float64Array(3 * 16);
const clipB = new Float64Array(3 * 16);

/** What every mesh of one render needs: the camera, its rotation and position, the light in its frame. */
interface View { camera: RenderCamera; R: number[]; tx: number; ty: number; tz: number; lx: number; ly: number; lz: number }

/**
 * Renders the meshes (world frame) as seen by `camera` into `out` (allocated when absent) and
 * returns it. Throws when the camera is malformed or `out` has another size; never throws on
 * geometry (degenerate, NaN, behind-camera triangles are skipped). `depth: false` skips the metric
 * depth (a division per pixel, a quarter of a frame's time; published images need only rgb):
 * `frame.depth` is then left as it was. With `layer` (one per camera, for a camera that does
 * not move) the fixed meshes are drawn from the layer (see drawOverLayer): the same bytes, less work.
 * With `borrow` the pixels are not copied into `out`: the returned frame (not `out`) has as `rgb` a
 * view of the renderer's own memory, valid only until the next renderCamera call, for a caller that
 * encodes it at once (the sim's camera publishers; a 640x480 copy is ~1 MB).
 */
export function renderCamera(meshes: readonly RenderMesh[], camera: RenderCamera, out?: RenderFrame, opts: { depth?: boolean; layer?: StaticLayer; borrow?: boolean } = {}): RenderFrame {
  const { width: W, height: H, fx, fy, cx, cy } = camera;
  const near = camera.nearM ?? 0.01;
  for (const [k, v] of [["fx", fx], ["fy", fy], ["nearM", near]] as const) {
    if (!(Number.isFinite(v) && v > 0)) throw new Error(`render camera: ${k} ${v} must be a positive finite number`);
  }
  if (!Number.isFinite(cx) || !Number.isFinite(cy)) throw new Error(`render camera: cx ${cx}, cy ${cy} must be finite`);
  const frame = out ?? createRenderFrame(W, H);
  if (frame.width !== W || frame.height !== H) {
    throw new Error(`render frame is ${frame.width}x${frame.height} but camera is ${W}x${H}; allocate a frame per camera size`);
  }
  const R = rotationOf(camera.worldFromCamera);
  const [tx, ty, tz] = camera.worldFromCamera.position;
  const L = LIGHT_DIR_WORLD; // light in the camera frame: Rᵀ·l
  const view: View = {
    camera, R, tx, ty, tz,
    lx: R[0] * L[0] + R[3] * L[1] + R[6] * L[2], ly: R[1] * L[0] + R[4] * L[1] + R[7] * L[2], lz: R[2] * L[0] + R[5] * L[1] + R[8] * L[2],
  };
  const order = visibleFrontToBack(meshes, camera, R, tx, ty, tz);
  let raster = opts.layer ? drawOverLayer(opts.layer, meshes, order, view, frame) : null;
  if (raster === null) {
    raster = new Raster(frame, BACKGROUND_RGB);
    for (const mi of order) drawMesh(raster, meshes[mi]!, view);
  }
  let triangles = 0;
  for (const m of meshes) triangles += (m.indices.length / 3) | 0;
  raster.finish(opts.depth ?? true, opts.borrow !== true);
  if (opts.depth ?? true) finishDepth(frame.depth);
  frame.stats.triangles = triangles;
  frame.stats.rasterized = raster.count;
  frame.stats.meshesOutOfView = meshes.length - order.length;
  return opts.borrow === true ? { ...frame, rgb: raster.pixels } : frame;
}

/**
 * Draws the frame as the layer of fixed meshes (drawn first when it does not hold for this camera
 * and these meshes) with the other meshes drawn over it; null, with the frame left to be drawn in one
 * pass, when one of their pixels comes within a near tie of the layer's depth.
 *
 * Why the bytes are those of one front-to-back pass over all meshes: a triangle's 1/z at a pixel
 * does not depend on the draw order, and the fixed meshes and the moving ones each keep their
 * relative order, so only the order between a fixed and a moving triangle differs. The z-buffer keeps
 * float32 values and the test is strict (w > z), so that order can matter only between values within
 * float32 rounding of each other. At a pixel where the layer holds L, every fixed value is at most L
 * plus that rounding. The first moving value clearly above L passes whatever came before it (in
 * either order) and no fixed value passes after it, so from there both orders run the same. Moving
 * values clearly below L only ever hold the z-buffer below L: they fail once the fixed values that
 * make L are drawn, and those pass over them as over nothing, so the fixed triangles decide the pixel
 * as in the layer. A moving value within the margin (Raster's TIE) of L sends the frame to one pass.
 */
function drawOverLayer(layer: StaticLayer, meshes: readonly RenderMesh[], order: number[], view: View, frame: RenderFrame): Raster | null {
  const fixed = meshes.filter((m) => m.fixed === true);
  if (!layer.holds(view.camera, fixed)) {
    layer.redraw(view.camera, fixed);
    const raster = new Raster({ width: frame.width, height: frame.height, rgb: layer.rgb, depth: layer.z }, BACKGROUND_RGB);
    for (const mi of order) if (meshes[mi]!.fixed === true) drawMesh(raster, meshes[mi]!, view);
    raster.finish();
    layer.rasterized = raster.count;
  }
  const raster = new Raster(frame, BACKGROUND_RGB, layer);
  for (const mi of order) if (meshes[mi]!.fixed !== true) drawMesh(raster, meshes[mi]!, view);
  if (raster.nearTie) { layer.stats.ties++; return null; }
  layer.stats.hits++;
  return raster;
}

/** Transforms, culls, shades and clips one mesh's triangles and draws them into `raster`. */
function drawMesh(raster: Raster, mesh: RenderMesh, view: View): void {
  const { camera, R, tx, ty, tz, lx, ly, lz } = view;
  const { width: W, height: H, fx, fy, cx, cy } = camera;
  const near = camera.nearM ?? 0.01;
  const cull = camera.cullBackFaces ?? true;
  const uMin = -GUARD_PX, uMax = W + GUARD_PX, vMin = -GUARD_PX, vMax = H + GUARD_PX;
  const pos = mesh.positions, idx = mesh.indices, nv = (pos.length / 3) | 0;
  if (camVerts.length < 3 * nv) { camVerts = new Float64Array(3 * nv * 2); screenVerts = new Float64Array(2 * nv * 2); }
  const cv = camVerts, sv = screenVerts;
  for (let i = 0; i < nv; i++) { // camera from world: Rᵀ·(p − t)
    const dx = pos[3 * i] - tx, dy = pos[3 * i + 1] - ty, dz = pos[3 * i + 2] - tz;
    const x = R[0] * dx + R[3] * dy + R[6] * dz;
    const y = R[1] * dx + R[4] * dy + R[7] * dz;
    const z = R[2] * dx + R[5] * dy + R[8] * dz;
    cv[3 * i] = x; cv[3 * i + 1] = y; cv[3 * i + 2] = z;
    sv[2 * i] = (fx * x) / z + cx; sv[2 * i + 1] = (fy * y) / z + cy;
  }
  const [cr, cg, cb] = mesh.color;
  for (let t = 0; t + 2 < idx.length; t += 3) {
    const i0 = idx[t], i1 = idx[t + 1], i2 = idx[t + 2];
    if (i0 >= nv || i1 >= nv || i2 >= nv) continue; // index out of range: skip, never read garbage
    const x0 = cv[3 * i0], y0 = cv[3 * i0 + 1], z0 = cv[3 * i0 + 2];
    const x1 = cv[3 * i1], y1 = cv[3 * i1 + 1], z1 = cv[3 * i1 + 2];
    const x2 = cv[3 * i2], y2 = cv[3 * i2 + 1], z2 = cv[3 * i2 + 2];
    if (!(z0 >= near || z1 >= near || z2 >= near)) continue; // wholly behind the near plane (or NaN)
    // Face normal (outward for counter-clockwise winding); the camera sits at the origin.
    const ax = x1 - x0, ay = y1 - y0, az = z1 - z0, bx = x2 - x0, by = y2 - y0, bz = z2 - z0;
    let nx = ay * bz - az * by, ny = az * bx - ax * bz, nz = ax * by - ay * bx;
    const back = nx * x0 + ny * y0 + nz * z0 > 0; // seen from behind
    if (back && cull) continue;
    const inFront = z0 >= near && z1 >= near && z2 >= near;
    const u0 = sv[2 * i0], v0 = sv[2 * i0 + 1], u1 = sv[2 * i1], v1 = sv[2 * i1 + 1], u2 = sv[2 * i2], v2 = sv[2 * i2 + 1];
    if (inFront && ((u0 < 0 && u1 < 0 && u2 < 0) || (u0 > W && u1 > W && u2 > W) ||
        (v0 < 0 && v1 < 0 && v2 < 0) || (v0 > H && v1 > H && v2 > H))) continue; // off screen
    // Shaded only once known to be drawn (culling and the off-screen test do not need the length).
    const nl = Math.hypot(nx, ny, nz);
    if (!(nl > 0)) continue; // degenerate
    if (back) { nx = -nx; ny = -ny; nz = -nz; }
    const shade = AMBIENT + DIFFUSE * Math.max(0, (nx * lx + ny * ly + nz * lz) / nl);
    raster.setColor(cr * shade, cg * shade, cb * shade);
    if (inFront) {
      const inGuard = u0 > uMin && u0 < uMax && u1 > uMin && u1 < uMax && u2 > uMin && u2 < uMax &&
        v0 > vMin && v0 < vMax && v1 > vMin && v1 < vMax && v2 > vMin && v2 < vMax;
      if (inGuard) { raster.triangle(u0, v0, 1 / z0, u1, v1, 1 / z1, u2, v2, 1 / z2); continue; }
    }
    clipAndDraw(raster, camera, near, x0, y0, z0, x1, y1, z1, x2, y2, z2);
  }
}

/**
 * Indices of the meshes that can reach the image, sorted by the optical-z of each mesh's vertex
 * centroid, nearest first: far surfaces then mostly fail the depth test instead of being written and
 * overwritten (same image, fewer writes). A mesh whose bounding box lies wholly behind the near plane
 * or wholly beyond one side of the image (with a pixel to spare) is left out: no pixel centre of the
 * image sees a point of it, so it would draw nothing.
 */
function visibleFrontToBack(meshes: readonly RenderMesh[], camera: RenderCamera, R: number[], tx: number, ty: number, tz: number): number[] {
  const { width: W, height: H, fx, fy, cx, cy } = camera;
  const near = camera.nearM ?? 0.01;
  const keys = new Float64Array(meshes.length);
  const order: number[] = [];
  meshes.forEach((m, k) => {
    const p = m.positions, n = (p.length / 3) | 0;
    let sx = 0, sy = 0, sz = 0;
    let x0 = Infinity, y0 = Infinity, z0 = Infinity, x1 = -Infinity, y1 = -Infinity, z1 = -Infinity;
    for (let i = 0; i < 3 * n; i += 3) {
      const x = p[i]!, y = p[i + 1]!, z = p[i + 2]!;
      sx += x; sy += y; sz += z;
      if (x < x0) x0 = x; if (x > x1) x1 = x;
      if (y < y0) y0 = y; if (y > y1) y1 = y;
      if (z < z0) z0 = z; if (z > z1) z1 = z;
    }
    // Corners in the camera frame, tested against the planes through the optical centre that bound
    // the pixel centres' rays one pixel outside the image (u = −1, u = W, v = −1, v = H) and the near
    // plane. NaN vertices stay out of the box (a triangle with one draws nothing: Raster.triangle
    // drops it); a box with an infinite or NaN corner fails the tests and is kept.
    let behind = 0, left = 0, right = 0, above = 0, below = 0;
    for (let c = 0; c < 8; c++) {
      const dx = ((c & 1) ? x1 : x0) - tx, dy = ((c & 2) ? y1 : y0) - ty, dz = ((c & 4) ? z1 : z0) - tz;
      const x = R[0]! * dx + R[3]! * dy + R[6]! * dz;
      const y = R[1]! * dx + R[4]! * dy + R[7]! * dz;
      const z = R[2]! * dx + R[5]! * dy + R[8]! * dz;
      if (z < near) behind++;
      if (fx * x + (cx + 1) * z < 0) left++;
      if (-fx * x + (W - cx) * z < 0) right++;
      if (fy * y + (cy + 1) * z < 0) above++;
      if (-fy * y + (H - cy) * z < 0) below++;
    }
    if (behind === 8 || left === 8 || right === 8 || above === 8 || below === 8) return;
    const z = R[2]! * (sx / n - tx) + R[5]! * (sy / n - ty) + R[8]! * (sz / n - tz);
    keys[k] = Number.isFinite(z) ? z : Infinity;
    order.push(k);
  });
  return order.sort((a, b) => keys[a]! - keys[b]!);
}

/** Converts the z-buffer from 1/z to z in place; 0 (nothing drawn) becomes +Infinity. */
function finishDepth(depth: Float32Array): void {
  for (let i = 0; i < depth.length; i++) {
    const iz = depth[i];
    depth[i] = iz > 0 ? 1 / iz : Infinity;
  }
}

/**
 * Clips a camera-frame triangle against the near plane and the guard band (planes a·x + b·y + c·z + d ≥ 0),
 * then draws the remaining convex polygon as a fan.
 */
function clipAndDraw(raster: Raster, cam: RenderCamera, near: number,
  x0: number, y0: number, z0: number, x1: number, y1: number, z1: number, x2: number, y2: number, z2: number): void {
  const { width: W, height: H, fx, fy, cx, cy } = cam;
  clipA[0] = x0; clipA[1] = y0; clipA[2] = z0; clipA[3] = x1; clipA[4] = y1; clipA[5] = z1; clipA[6] = x2; clipA[7] = y2; clipA[8] = z2;
  let n = 3;
  let src = clipA, dst = clipB;
  const planes: [number, number, number, number][] = [
    [0, 0, 1, -near],                       // z ≥ near
    [fx, 0, cx + GUARD_PX, 0],              // u ≥ −guard
    [-fx, 0, W + GUARD_PX - cx, 0],         // u ≤ W + guard
    [0, fy, cy + GUARD_PX, 0],              // v ≥ −guard
    [0, -fy, H + GUARD_PX - cy, 0],         // v ≤ H + guard
  ];
  for (const [a, b, c, d] of planes) {
    let m = 0;
    for (let i = 0; i < n; i++) {
      const j = (i + 1) % n;
      const pi = a * src[3 * i] + b * src[3 * i + 1] + c * src[3 * i + 2] + d;
      const pj = a * src[3 * j] + b * src[3 * j + 1] + c * src[3 * j + 2] + d;
      if (pi >= 0) { dst[3 * m] = src[3 * i]; dst[3 * m + 1] = src[3 * i + 1]; dst[3 * m + 2] = src[3 * i + 2]; m++; }
      if ((pi >= 0) !== (pj >= 0)) {
        const s = pi / (pi - pj);
        for (let k = 0; k < 3; k++) dst[3 * m + k] = src[3 * i + k] + s * (src[3 * j + k] - src[3 * i + k]);
        m++;
      }
    }
    n = m;
    if (n < 3) return;
    const tmp = src; src = dst; dst = tmp;
  }
  const proj = (i: number): [number, number, number] =>
    [(fx * src[3 * i]) / src[3 * i + 2] + cx, (fy * src[3 * i + 1]) / src[3 * i + 2] + cy, 1 / src[3 * i + 2]];
  const [ua, va, za] = proj(0);
  for (let i = 1; i + 1 < n; i++) {
    const [ub, vb, zb] = proj(i);
    const [uc, vc, zc] = proj(i + 1);
    raster.triangle(ua, va, za, ub, vb, zb, uc, vc, zc);
  }
}

function normalize(v: Vec3): Vec3 {
  const n = Math.hypot(v[0], v[1], v[2]);
  return [v[0] / n, v[1] / n, v[2] / n];
}
