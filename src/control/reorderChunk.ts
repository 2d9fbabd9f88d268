import type { ActionChunk } from "../policy/types.js";

/**
 * The chunk with its columns in `names` order (the layout the safety filter, scheduler and output
 * adapter were built for). Joint order travels with `jointNames`: a policy may return its robot's
 * order. Returns the chunk itself when the order already matches; a chunk whose names are not a
 * permutation of `names` is returned unchanged, so the safety filter rejects it with the names.
 */
export function reorderChunk(chunk: ActionChunk, names: readonly string[]): ActionChunk {
  if (chunk.jointNames.length === names.length && chunk.jointNames.every((n, i) => n === names[i])) return chunk;
  const at = new Map(chunk.jointNames.map((n, i) => [n, i]));
  const source = names.map((n) => at.get(n));
  if (chunk.jointNames.length !== names.length || source.some((i) => i === undefined)) return chunk;
  const d = chunk.dim;
  const actions = new Float64Array(chunk.horizon * d);
  for (let k = 0; k < chunk.horizon; k++) {
    for (let j = 0; j < d; j++) actions[k * d + j] = chunk.actions[k * d + source[j]!]!;
  }
  return { jointNames: [...names], actions, horizon: chunk.horizon, dim: d };
}
