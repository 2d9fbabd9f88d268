import { test } from "node:test";
import assert from "node:assert/strict";
import { reorderChunk } from "../../src/control/reorderChunk.js";

test("columns follow the names, row by row", () => {
  const chunk = { jointNames: ["a", "grip", "b"], actions: Float64Array.from([1, 0.04, 2, 3, 0.05, 4]), horizon: 2, dim: 3 };
  const out = reorderChunk(chunk, ["a", "b", "grip"]);
  assert.deepEqual(out.jointNames, ["a", "b", "grip"]);
  assert.deepEqual(Array.from(out.actions), [1, 2, 0.04, 3, 4, 0.05]);
});

test("same order is returned as is; names that are not a permutation are left for the safety filter", () => {
  const chunk = { jointNames: ["a", "b"], actions: Float64Array.from([1, 2]), horizon: 1, dim: 2 };
  assert.equal(reorderChunk(chunk, ["a", "b"]), chunk);
  assert.equal(reorderChunk(chunk, ["a", "c"]), chunk);
});
