/**
 * State/action normalization from the manifest (pure). Only the listed `dims` are transformed; the
 * other dims pass through unchanged. min_max maps [min, max] → [-1, 1]; mean_std maps x → (x-mean)/std.
 * Stats arrays are indexed by position in `dims` (stats[i] belongs to vector dim dims[i]).
 */

/** Normalization stats for one vector (state or action). */
export type NormStats =
  | { kind: "min_max"; dims: number[]; min: number[]; max: number[] }
  | { kind: "mean_std"; dims: number[]; mean: number[]; std: number[] }
  | { kind: "none" };

/** Robot units → policy units. Returns a new array. */
export function normalize(x: ArrayLike<number>, stats: NormStats): Float32Array {
  const out = Float32Array.from(x);
  switch (stats.kind) {
    case "none":
      return out;
    case "min_max":
      stats.dims.forEach((d, i) => { out[d] = (2 * (x[d] - stats.min[i])) / (stats.max[i] - stats.min[i]) - 1; });
      return out;
    case "mean_std":
      stats.dims.forEach((d, i) => { out[d] = (x[d] - stats.mean[i]) / stats.std[i]; });
      return out;
  }
}

/** Policy units → robot units for a row-major [rows, dim] block (e.g. an H x D chunk). Returns float64. */
export function denormalizeRows(x: ArrayLike<number>, dim: number, stats: NormStats): Float64Array {
  const out = Float64Array.from(x);
  for (let r = 0; r * dim < x.length; r++) {
    const o = r * dim;
    switch (stats.kind) {
      case "none":
        break;
      case "min_max":
        stats.dims.forEach((d, i) => { out[o + d] = ((x[o + d] + 1) / 2) * (stats.max[i] - stats.min[i]) + stats.min[i]; });
        break;
      case "mean_std":
        stats.dims.forEach((d, i) => { out[o + d] = x[o + d] * stats.std[i] + stats.mean[i]; });
        break;
    }
  }
  return out;
}

/** Checks stats against a vector dimension; returns a list of problems (empty when valid). */
export function checkStats(stats: NormStats, dim: number): string[] {
  if (stats.kind === "none") return [];
  const problems: string[] = [];
  const n = stats.dims.length;
  const arrays = stats.kind === "min_max" ? { min: stats.min, max: stats.max } : { mean: stats.mean, std: stats.std };
  for (const [name, arr] of Object.entries(arrays)) {
    if (arr.length !== n) problems.push(`${name} has ${arr.length} values, expected ${n} (one per entry of dims)`);
  }
  stats.dims.forEach((d, i) => {
    if (!Number.isInteger(d) || d < 0 || d >= dim) problems.push(`dims[${i}]=${d} outside [0, ${dim - 1}]`);
    if (stats.kind === "min_max" && !(stats.max[i] > stats.min[i])) problems.push(`dims[${i}]: max ${stats.max[i]} <= min ${stats.min[i]}`);
    if (stats.kind === "mean_std" && !(stats.std[i] > 0)) problems.push(`dims[${i}]: std ${stats.std[i]} <= 0`);
  });
  return problems;
}
