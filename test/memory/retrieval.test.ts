/** Retrieval's split scoring, and its choice of session in a history whose sessions differ clearly. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { boundaryScores, RetrievalMemory } from "../../src/memory/index.js";
import { mulberry32 } from "../../src/policy/mem0/flowSampler.js";

test("boundaryScores: a boundary within the tolerance counts once; no boundary predicted is precision 1", () => {
  assert.deepEqual(boundaryScores([0, 31, 65, 90], [0, 32, 64, 96]), { precision: 2 / 3, recall: 2 / 3 });
  assert.deepEqual(boundaryScores([0, 32, 33], [0, 32]), { precision: 0.5, recall: 1 });
  assert.deepEqual(boundaryScores([0], [0, 32]), { precision: 1, recall: 0 });
});

test("retrieval splits 8 drifting sessions at their starts and retrieves the demonstration for a query like it", () => {
  const rand = mulberry32(5), D = 16;
  const session = (center: Float32Array) => {
    const f = Float32Array.from(center);
    return Array.from({ length: 32 }, () => Float32Array.from(f.map((v, k) => (f[k] = v + 0.01 * (rand() * 2 - 1)))));
  };
  const centers = Array.from({ length: 8 }, () => Float32Array.from({ length: D }, () => rand() * 2 - 1));
  const memory = new RetrievalMemory(D, { kind: "framesamp", frames: 32 }, 5, 32);
  const history = [...centers.map(session), session(centers[0]!).slice(0, 10)].flat();
  history.forEach((f, step) => memory.write(f, step, { stampNs: BigInt(step) }));
  assert.deepEqual(memory.sessionStarts(), [0, 32, 64, 96, 128, 160, 192, 224, 256]);
  const selection = memory.selection();
  assert.deepEqual(selection, [
    ...Array.from({ length: 32 }, (_, i) => i), ...Array.from({ length: 10 }, (_, i) => 256 + i),
  ]);
  const inputs = memory.inputs();
  assert.equal(inputs.windowMask.reduce((a, b) => a + b, 0), 32, "FrameSamp's 32 slots over the 42 frames");
});
