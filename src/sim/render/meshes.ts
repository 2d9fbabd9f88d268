/**
 * Mesh builders: shapes of src/sim/world/types.ts as triangle meshes in world coordinates, the
 * input of the rasterizer. Triangles wind counter-clockwise seen from outside (outward normals);
 * the rasterizer draws both sides, so winding only matters for shading direction, which it fixes.
 */
import type { Pose3, RenderMesh, ShapeSpec, Vec3 } from "../world/types.js";
import { rotationOf } from "./math.js";

/** A shape's local-frame vertices and triangles, for posing into the world. */
interface Template { local: number[]; indices: Uint32Array }

/**
 * Templates by shape and size: the sim rebuilds every mesh of the world each control tick, from a
 * few sizes (trigonometry and array building were ~0.3 ms of each tick). The indices are shared
 * by every mesh of one template: nothing writes to a RenderMesh's arrays.
 */
const templates = new Map<string, Template>();

function template(key: string, build: () => { local: number[]; indices: number[] }): Template {
  let t = templates.get(key);
  if (!t) {
    if (templates.size >= 4096) templates.clear(); // sizes drawn at random per episode: keep the cache bounded
    const { local, indices } = build();
    templates.set(key, (t = { local, indices: Uint32Array.from(indices) }));
  }
  return t;
}

/** Builds a RenderMesh from a template by posing its vertices into the world frame. */
function posedMesh({ local, indices }: Template, pose: Pose3, color: Vec3): RenderMesh {
  const m = rotationOf(pose);
  const [tx, ty, tz] = pose.position;
  const positions = new Float32Array(local.length);
  for (let i = 0; i < local.length; i += 3) {
    const x = local[i], y = local[i + 1], z = local[i + 2];
    positions[i] = m[0] * x + m[1] * y + m[2] * z + tx;
    positions[i + 1] = m[3] * x + m[4] * y + m[5] * z + ty;
    positions[i + 2] = m[6] * x + m[7] * y + m[8] * z + tz;
  }
  return { positions, indices, color: [color[0], color[1], color[2]] };
}

/** Checks a size is a positive finite number; throws naming the shape and field otherwise. */
function checkSize(shape: string, field: string, value: number): void {
  if (!(Number.isFinite(value) && value > 0)) {
    throw new Error(`${shape} mesh: ${field} ${value} must be a positive finite number (metres)`);
  }
}

/** A box of the given half extents (m) centred on `pose`: 8 vertices, 12 triangles. */
export function boxMesh(halfExtents: Vec3, pose: Pose3, color: Vec3): RenderMesh {
  const [hx, hy, hz] = halfExtents;
  checkSize("box", "halfExtents[0]", hx);
  checkSize("box", "halfExtents[1]", hy);
  checkSize("box", "halfExtents[2]", hz);
  return posedMesh(template(`box ${hx} ${hy} ${hz}`, () => boxTemplate(hx, hy, hz)), pose, color);
}

function boxTemplate(hx: number, hy: number, hz: number): { local: number[]; indices: number[] } {
  const v: number[] = [];
  for (let i = 0; i < 8; i++) v.push(i & 1 ? hx : -hx, i & 2 ? hy : -hy, i & 4 ? hz : -hz);
  // Vertex i has bit0 = +x, bit1 = +y, bit2 = +z. Each face as two CCW triangles seen from outside.
  const faces = [
    [0, 2, 3, 1], // -z
    [4, 5, 7, 6], // +z
    [0, 1, 5, 4], // -y
    [2, 6, 7, 3], // +y
    [0, 4, 6, 2], // -x
    [1, 3, 7, 5], // +x
  ];
  const idx: number[] = [];
  for (const [a, b, c, d] of faces) idx.push(a, b, c, a, c, d);
  return { local: v, indices: idx };
}

/**
 * A cylinder with its axis along the pose's local z, radius and half height in m, capped at both
 * ends. `segments` (≥ 3) facets around: 4·segments triangles.
 */
export function cylinderMesh(radius: number, halfHeight: number, pose: Pose3, color: Vec3, segments = 16): RenderMesh {
  checkSize("cylinder", "radius", radius);
  checkSize("cylinder", "halfHeight", halfHeight);
  if (!Number.isInteger(segments) || segments < 3) throw new Error(`cylinder mesh: segments ${segments} must be an integer ≥ 3`);
  return posedMesh(template(`cylinder ${radius} ${halfHeight} ${segments}`, () => cylinderTemplate(radius, halfHeight, segments)), pose, color);
}

function cylinderTemplate(radius: number, halfHeight: number, segments: number): { local: number[]; indices: number[] } {
  const v: number[] = [0, 0, -halfHeight, 0, 0, halfHeight]; // cap centres: 0 bottom, 1 top
  for (let i = 0; i < segments; i++) {
    const a = (2 * Math.PI * i) / segments;
    const x = radius * Math.cos(a), y = radius * Math.sin(a);
    v.push(x, y, -halfHeight, x, y, halfHeight); // bottom 2 + 2i, top 3 + 2i
  }
  const idx: number[] = [];
  for (let i = 0; i < segments; i++) {
    const j = (i + 1) % segments;
    const b0 = 2 + 2 * i, t0 = b0 + 1, b1 = 2 + 2 * j, t1 = b1 + 1;
    idx.push(0, b1, b0); // bottom cap, facing -z
    idx.push(1, t0, t1); // top cap, facing +z
    idx.push(b0, b1, t1, b0, t1, t0); // side
  }
  return { local: v, indices: idx };
}

/**
 * A UV sphere of `radius` m centred on `pose`: `segments` (≥ 3) around, `rings` (≥ 2) pole to pole,
 * 2·segments·(rings − 1) triangles.
 */
export function sphereMesh(radius: number, pose: Pose3, color: Vec3, segments = 16, rings = 8): RenderMesh {
  checkSize("sphere", "radius", radius);
  if (!Number.isInteger(segments) || segments < 3) throw new Error(`sphere mesh: segments ${segments} must be an integer ≥ 3`);
  if (!Number.isInteger(rings) || rings < 2) throw new Error(`sphere mesh: rings ${rings} must be an integer ≥ 2`);
  return posedMesh(template(`sphere ${radius} ${segments} ${rings}`, () => sphereTemplate(radius, segments, rings)), pose, color);
}

function sphereTemplate(radius: number, segments: number, rings: number): { local: number[]; indices: number[] } {
  const v: number[] = [0, 0, -radius, 0, 0, radius]; // poles: 0 south, 1 north
  for (let r = 1; r < rings; r++) {
    const polar = Math.PI * (r / rings) - Math.PI / 2; // -π/2 (south) .. π/2 (north)
    const z = radius * Math.sin(polar), rr = radius * Math.cos(polar);
    for (let s = 0; s < segments; s++) {
      const a = (2 * Math.PI * s) / segments;
      v.push(rr * Math.cos(a), rr * Math.sin(a), z);
    }
  }
  const ring = (r: number, s: number): number => 2 + (r - 1) * segments + (s % segments);
  const idx: number[] = [];
  for (let s = 0; s < segments; s++) {
    idx.push(0, ring(1, s + 1), ring(1, s));
    idx.push(1, ring(rings - 1, s), ring(rings - 1, s + 1));
    for (let r = 1; r < rings - 1; r++) {
      const a = ring(r, s), b = ring(r, s + 1), c = ring(r + 1, s + 1), d = ring(r + 1, s);
      idx.push(a, b, c, a, c, d);
    }
  }
  return { local: v, indices: idx };
}

/** The mesh of a world ShapeSpec (what SimWorld calls per object). Cylinders and spheres use 16 segments. */
export function meshFromShape(shape: ShapeSpec, pose: Pose3, color: Vec3): RenderMesh {
  switch (shape.kind) {
    case "box": return boxMesh(shape.halfExtents, pose, color);
    case "cylinder": return cylinderMesh(shape.radius, shape.halfHeight, pose, color);
    case "sphere": return sphereMesh(shape.radius, pose, color);
  }
}
