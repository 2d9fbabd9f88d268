/**
 * CPU z-buffer rasterizer for the sim twin's cameras. Pinhole model with ROS camera_info
 * conventions: optical frame z forward, x right, y down; pixel (u, v) has its centre at integer
 * coordinates, u = fx·x/z + cx, v = fy·y/z + cy (no distortion: the sim renders rectified images).
 *
 * Pipeline per triangle: world → camera transform (per vertex, once per mesh), near-plane clip
 * (Sutherland–Hodgman), guard-band clip for huge projections, back-face culling (optional; else
 * both sides drawn), flat shading from the face normal and a fixed world light, then bounding-box rasterization with exact integer
 * edge functions on a 1/16-pixel grid (top-left fill rule) and a z-buffer holding 1/z, which is
 * linear in screen space and so interpolated perspective-correctly from the barycentrics.
 */
import type { Pose3, RenderMesh, Vec3 } from "../world/types.js";
import { rotationOf } from "./math.js";

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
  /** width·height metres along the optical z axis; +Infinity where only background is seen. */
  depth: Float32Array;
  /** Triangles submitted and triangles that reached the rasterizer (after culling and clipping) in the last render. */
  stats: { triangles: number; rasterized: number };
}

/** Background colour (light grey-blue, "sky"), rgb8. */
export const BACKGROUND_RGB: Readonly<Vec3> = [176, 186, 198];
/** Light direction in the world frame (toward the light), unit length: from above, behind-left of the robot. */
export const LIGHT_DIR_WORLD: Readonly<Vec3> = normalize([-0.5, 0.3, 0.8]);
/** Shading = colour · (AMBIENT + DIFFUSE · max(0, n·l)). */
export const AMBIENT = 0.35;
/** Diffuse weight of the flat shading. */
export const DIFFUSE = 0.65;

const SUB = 16; // sub-pixel steps per pixel for the integer edge functions
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
    stats: { triangles: 0, rasterized: 0 },
  };
}

// NOTE: module-level scratch buffers (vertices in camera frame, clip polygons). renderCamera is
// synchronous and JS single-threaded, so sharing them between calls is safe and avoids garbage.
let camVerts = new Float64Array(3 * 1024);
let screenVerts = new Float64Array(2 * 1024);
const clipA = new Float64Array(3 * 16);
const clipB = new Float64Array(3 * 16);

/**
 * Renders the meshes (world frame) as seen by `camera` into `out` (allocated when absent) and
 * returns it. Throws when the camera is malformed or `out` has another size; never throws on
 * geometry (degenerate, NaN, behind-camera triangles are skipped).
 */
export function renderCamera(meshes: readonly RenderMesh[], camera: RenderCamera, out?: RenderFrame): RenderFrame {
  const { width: W, height: H, fx, fy, cx, cy } = camera;
  const near = camera.nearM ?? 0.01;
  const cull = camera.cullBackFaces ?? true;
  for (const [k, v] of [["fx", fx], ["fy", fy], ["nearM", near]] as const) {
    if (!(Number.isFinite(v) && v > 0)) throw new Error(`render camera: ${k} ${v} must be a positive finite number`);
  }
  if (!Number.isFinite(cx) || !Number.isFinite(cy)) throw new Error(`render camera: cx ${cx}, cy ${cy} must be finite`);
  const frame = out ?? createRenderFrame(W, H);
  if (frame.width !== W || frame.height !== H) {
    throw new Error(`render frame is ${frame.width}x${frame.height} but camera is ${W}x${H}; allocate a frame per camera size`);
  }
  clear(frame);
  const raster = new Raster(frame);
  const R = rotationOf(camera.worldFromCamera);
  const [tx, ty, tz] = camera.worldFromCamera.position;
  const L = LIGHT_DIR_WORLD; // light in the camera frame: Rᵀ·l
  const lx = R[0] * L[0] + R[3] * L[1] + R[6] * L[2];
  const ly = R[1] * L[0] + R[4] * L[1] + R[7] * L[2];
  const lz = R[2] * L[0] + R[5] * L[1] + R[8] * L[2];
  const uMin = -GUARD_PX, uMax = W + GUARD_PX, vMin = -GUARD_PX, vMax = H + GUARD_PX;
  let triangles = 0;

  for (const mi of frontToBack(meshes, R, tx, ty, tz)) {
    const mesh = meshes[mi]!;
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
    triangles += (idx.length / 3) | 0;
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
      const nl = Math.hypot(nx, ny, nz);
      if (!(nl > 0)) continue; // degenerate
      if (nx * x0 + ny * y0 + nz * z0 > 0) { // seen from behind
        if (cull) continue;
        nx = -nx; ny = -ny; nz = -nz;
      }
      const shade = AMBIENT + DIFFUSE * Math.max(0, (nx * lx + ny * ly + nz * lz) / nl);
      raster.setColor(cr * shade, cg * shade, cb * shade);
      const inFront = z0 >= near && z1 >= near && z2 >= near;
      const u0 = sv[2 * i0], v0 = sv[2 * i0 + 1], u1 = sv[2 * i1], v1 = sv[2 * i1 + 1], u2 = sv[2 * i2], v2 = sv[2 * i2 + 1];
      if (inFront) {
        if ((u0 < 0 && u1 < 0 && u2 < 0) || (u0 > W && u1 > W && u2 > W) ||
            (v0 < 0 && v1 < 0 && v2 < 0) || (v0 > H && v1 > H && v2 > H)) continue; // off screen
        const inGuard = u0 > uMin && u0 < uMax && u1 > uMin && u1 < uMax && u2 > uMin && u2 < uMax &&
          v0 > vMin && v0 < vMax && v1 > vMin && v1 < vMax && v2 > vMin && v2 < vMax;
        if (inGuard) { raster.triangle(u0, v0, 1 / z0, u1, v1, 1 / z1, u2, v2, 1 / z2); continue; }
      }
      clipAndDraw(raster, camera, near, x0, y0, z0, x1, y1, z1, x2, y2, z2);
    }
  }
  finishDepth(frame.depth);
  frame.stats.triangles = triangles;
  frame.stats.rasterized = raster.count;
  return frame;
}

/**
 * Mesh indices sorted by the optical-z of each mesh's vertex centroid, nearest first: far surfaces
 * then mostly fail the depth test instead of being written and overwritten (same image, fewer writes).
 */
function frontToBack(meshes: readonly RenderMesh[], R: Float64Array, tx: number, ty: number, tz: number): number[] {
  const keys = new Float64Array(meshes.length);
  const order: number[] = [];
  meshes.forEach((m, k) => {
    const p = m.positions, n = (p.length / 3) | 0;
    let sx = 0, sy = 0, sz = 0;
    for (let i = 0; i < 3 * n; i += 3) { sx += p[i]!; sy += p[i + 1]!; sz += p[i + 2]!; }
    const z = R[2]! * (sx / n - tx) + R[5]! * (sy / n - ty) + R[8]! * (sz / n - tz);
    keys[k] = Number.isFinite(z) ? z : Infinity;
    order.push(k);
  });
  return order.sort((a, b) => keys[a]! - keys[b]!);
}

/** Fills rgb with the background and the z-buffer with 0 (1/z of infinity). */
function clear(frame: RenderFrame): void {
  const rgb = frame.rgb;
  rgb[0] = BACKGROUND_RGB[0]; rgb[1] = BACKGROUND_RGB[1]; rgb[2] = BACKGROUND_RGB[2];
  for (let n = 3; n < rgb.length; n *= 2) rgb.copyWithin(n, 0, Math.min(n, rgb.length - n));
  frame.depth.fill(0);
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

/** Scan-converts screen-space triangles into one frame with the current flat colour. */
class Raster {
  count = 0;
  private r = 0;
  private g = 0;
  private b = 0;
  private readonly W: number;
  private readonly H: number;
  private readonly rgb: Uint8Array;
  private readonly zbuf: Float32Array;

  constructor(frame: RenderFrame) {
    this.W = frame.width; this.H = frame.height; this.rgb = frame.rgb; this.zbuf = frame.depth;
  }

  /** Sets the flat colour for the following triangles (0..255 per channel, rounded and clamped). */
  setColor(r: number, g: number, b: number): void {
    this.r = clampByte(r); this.g = clampByte(g); this.b = clampByte(b);
  }

  /** Draws one triangle: pixel coordinates (u, v) and inverse depth 1/z per vertex. */
  triangle(u0: number, v0: number, w0: number, u1: number, v1: number, w1: number, u2: number, v2: number, w2: number): void {
    // 1/z is a plane in screen space, w(u, v) = w0 + A·(u − u0) + B·(v − v0), solved from the
    // unsnapped vertices (snapping only decides coverage) and clamped to the vertices' range.
    const du1 = u1 - u0, dv1 = v1 - v0, du2 = u2 - u0, dv2 = v2 - v0;
    const det = du1 * dv2 - dv1 * du2;
    if (!(Math.abs(det) > 0)) return; // zero area or NaN
    const gA = ((w1 - w0) * dv2 - (w2 - w0) * dv1) / det, gB = ((w2 - w0) * du1 - (w1 - w0) * du2) / det;
    const wLo = Math.min(w0, w1, w2), wHi = Math.max(w0, w1, w2);
    let X0 = Math.round(u0 * SUB), Y0 = Math.round(v0 * SUB);
    let X1 = Math.round(u1 * SUB), Y1 = Math.round(v1 * SUB);
    const X2 = Math.round(u2 * SUB), Y2 = Math.round(v2 * SUB);
    const area = (X1 - X0) * (Y2 - Y0) - (Y1 - Y0) * (X2 - X0);
    if (area === 0) return;
    if (area < 0) { // make the winding positive (interior where all E ≥ 0): swap vertices 0 and 1
      let tmp = X0; X0 = X1; X1 = tmp; tmp = Y0; Y0 = Y1; Y1 = tmp;
    }
    const W = this.W, H = this.H;
    const minX = Math.max(0, Math.ceil(Math.min(X0, X1, X2) / SUB));
    const maxX = Math.min(W - 1, Math.floor(Math.max(X0, X1, X2) / SUB));
    const minY = Math.max(0, Math.ceil(Math.min(Y0, Y1, Y2) / SUB));
    const maxY = Math.min(H - 1, Math.floor(Math.max(Y0, Y1, Y2) / SUB));
    if (minX > maxX || minY > maxY) return;
    this.count++;
    // Edge functions E_ab(p) = (Xb − Xa)(Py − Ya) − (Yb − Ya)(Px − Xa), ≥ 0 inside; exact in doubles.
    // Bias −1 on edges that are not top-left so shared edges are drawn once.
    const px = minX * SUB, py = minY * SUB;
    let e12 = (X2 - X1) * (py - Y1) - (Y2 - Y1) * (px - X1) + (isTopLeft(X1, Y1, X2, Y2) ? 0 : -1);
    let e20 = (X0 - X2) * (py - Y2) - (Y0 - Y2) * (px - X2) + (isTopLeft(X2, Y2, X0, Y0) ? 0 : -1);
    let e01 = (X1 - X0) * (py - Y0) - (Y1 - Y0) * (px - X0) + (isTopLeft(X0, Y0, X1, Y1) ? 0 : -1);
    const dx12 = -(Y2 - Y1) * SUB, dy12 = (X2 - X1) * SUB;
    const dx20 = -(Y0 - Y2) * SUB, dy20 = (X0 - X2) * SUB;
    const dx01 = -(Y1 - Y0) * SUB, dy01 = (X1 - X0) * SUB;
    const dwx = gA;
    let wRow = w0 + gA * (minX - u0) + gB * (minY - v0);
    const rgb = this.rgb, zbuf = this.zbuf, r = this.r, g = this.g, b = this.b;
    for (let y = minY; y <= maxY; y++) {
      // The row's covered span, solved from the three edge functions (exact: see spanLo/spanHi).
      const xs = minX + Math.max(0, spanLo(e12, dx12), spanLo(e20, dx20), spanLo(e01, dx01));
      const xe = minX + Math.min(maxX - minX, spanHi(e12, dx12), spanHi(e20, dx20), spanHi(e01, dx01));
      let w = wRow + dwx * (xs - minX);
      const wEnd = w + dwx * (xe - xs), end = y * W + xe;
      if (w >= wLo && w <= wHi && wEnd >= wLo && wEnd <= wHi) { // linear, so the whole span is in range
        for (let i = y * W + xs; i <= end; i++, w += dwx) {
          if (w > zbuf[i]) { zbuf[i] = w; const o = 3 * i; rgb[o] = r; rgb[o + 1] = g; rgb[o + 2] = b; }
        }
      } else {
        for (let i = y * W + xs; i <= end; i++, w += dwx) {
          const wc = w < wLo ? wLo : w > wHi ? wHi : w;
          if (wc > zbuf[i]) { zbuf[i] = wc; const o = 3 * i; rgb[o] = r; rgb[o + 1] = g; rgb[o + 2] = b; }
        }
      }
      e12 += dy12; e20 += dy20; e01 += dy01; wRow += gB;
    }
  }
}

// For an edge with value e at the row's first pixel and step d per pixel, the first (spanLo) and
// last (spanHi) pixel offsets where e + d·k ≥ 0. e and d are integers below 2^53 and |e/d| is far
// below 2^40, so the correctly rounded quotient never crosses an integer: ceil/floor are exact.
function spanLo(e: number, d: number): number {
  if (d > 0) return Math.ceil(-e / d);
  return e >= 0 ? 0 : Infinity;
}

function spanHi(e: number, d: number): number {
  if (d < 0) return Math.floor(e / -d);
  return d > 0 || e >= 0 ? Infinity : -1;
}

/** Top-left rule for edge a→b with the interior on its E ≥ 0 side (image y down). */
function isTopLeft(xa: number, ya: number, xb: number, yb: number): boolean {
  return yb < ya || (yb === ya && xb > xa);
}

function clampByte(v: number): number {
  return v <= 0 ? 0 : v >= 255 ? 255 : Math.round(v);
}

function normalize(v: Vec3): Vec3 {
  const n = Math.hypot(v[0], v[1], v[2]);
  return [v[0] / n, v[1] / n, v[2] / n];
}
