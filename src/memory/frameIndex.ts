/**
 * An exact nearest-frame index over sessions of features (squared L2). Each session keeps its
 * centroid and radius, so (|q - centroid| - radius)^2 bounds the distance to any of its frames: a
 * query scans the session with the lowest bound, then only the sessions whose bound does not exceed
 * the best distance found. Frames of one session are alike (one scene, one task), which prunes most
 * of a long history; with no structure at all it degrades to a full scan, still exact.
 */

/** The nearest stored frame: its session, its position in the session, its squared L2 distance. */
export interface Nearest {
  session: string;
  frame: number;
  distance: number;
}

interface Entry {
  id: string;
  /** First row in the matrix and the row count. */
  start: number;
  count: number;
  centroid: Float32Array;
  radius: number;
}

export class FrameIndex {
  private matrix: Float32Array;
  private rows = 0;
  private readonly entries: Entry[] = [];
  private readonly byId = new Map<string, Entry>();

  constructor(readonly dim: number) {
    this.matrix = new Float32Array(1024 * dim);
  }

  /** Frames indexed. */
  get size(): number {
    return this.rows;
  }

  addSession(id: string, features: readonly Float32Array[]): void {
    if (this.byId.has(id)) throw new Error(`frame index: session ${id} is already indexed`);
    const d = this.dim;
    while ((this.rows + features.length) * d > this.matrix.length) {
      const grown = new Float32Array(this.matrix.length * 2);
      grown.set(this.matrix);
      this.matrix = grown;
    }
    const sum = new Float64Array(d);
    features.forEach((f, i) => {
      if (f.length !== d) {
        throw new Error(`frame index: session ${id} frame ${i} has ${f.length} values, expected ${d}`);
      }
      this.matrix.set(f, (this.rows + i) * d);
      for (let k = 0; k < d; k++) sum[k]! += f[k]!;
    });
    const centroid = Float32Array.from(sum, (v) => v / features.length);
    let radius = 0;
    for (const f of features) radius = Math.max(radius, Math.sqrt(squaredDistance(f, 0, centroid, d)));
    radius = radius * (1 + 1e-5) + 1e-6; // rounding must never prune a session holding the nearest frame
    const entry = { id, start: this.rows, count: features.length, centroid, radius };
    this.entries.push(entry);
    this.byId.set(id, entry);
    this.rows += features.length;
  }

  /** The features of session `id`, in order (copies). */
  sessionFeatures(id: string): Float32Array[] {
    const e = this.byId.get(id);
    if (!e) throw new Error(`frame index: no session ${id}`);
    return Array.from(
      { length: e.count },
      (_, i) => this.matrix.slice((e.start + i) * this.dim, (e.start + i + 1) * this.dim),
    );
  }

  /** The nearest frame to `q` outside the sessions in `exclude`, or null. */
  nearest(q: Float32Array, exclude: ReadonlySet<string> = new Set()): Nearest | null {
    const d = this.dim;
    if (q.length !== d) throw new Error(`frame index: query has ${q.length} values, expected ${d}`);
    // Lower bounds first; the session with the lowest is scanned first, then only those that may beat it.
    const bounds = new Float64Array(this.entries.length).fill(Infinity);
    let first = -1;
    this.entries.forEach((e, j) => {
      if (exclude.has(e.id)) return;
      const gap = Math.max(0, Math.sqrt(squaredDistance(q, 0, e.centroid, d)) - e.radius);
      bounds[j] = gap * gap;
      if (first < 0 || bounds[j]! < bounds[first]!) first = j;
    });
    if (first < 0) return null;
    let best: Nearest = { session: "", frame: -1, distance: Infinity };
    const scan = (e: Entry) => {
      for (let i = 0; i < e.count; i++) {
        const dist = squaredDistance(this.matrix, (e.start + i) * d, q, d);
        if (dist < best.distance) best = { session: e.id, frame: i, distance: dist };
      }
    };
    scan(this.entries[first]!);
    this.entries.forEach((e, j) => { if (j !== first && bounds[j]! <= best.distance) scan(e); });
    return best;
  }
}

function squaredDistance(a: Float32Array, offset: number, b: Float32Array, d: number): number {
  let s = 0;
  for (let k = 0; k < d; k++) {
    const x = a[offset + k]! - b[k]!;
    s += x * x;
  }
  return s;
}
