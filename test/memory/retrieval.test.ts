/** Retrieval: its split scoring, its choice among history sessions that differ clearly, its image embedding. */
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  boundaryScores, embedCamera, IMAGE_EMBEDDING_DIM, imageEmbedding, RetrievalMemory, THUMBNAIL, thumbnailRgb,
} from "../../src/memory/index.js";
import { jpegFromRgb, rgbFromJpeg } from "../../src/msgs/image.js";
import { mulberry32 } from "../../src/policy/mem0/flowSampler.js";

test("boundaryScores: a boundary within the tolerance counts once; no boundary predicted is precision 1", () => {
  assert.deepEqual(boundaryScores([0, 31, 65, 90], [0, 32, 64, 96]), { precision: 2 / 3, recall: 2 / 3 });
  assert.deepEqual(boundaryScores([0, 32, 33], [0, 32]), { precision: 0.5, recall: 1 });
  assert.deepEqual(boundaryScores([0], [0, 32]), { precision: 1, recall: 0 });
});

const rand = mulberry32(5), D = 48;
/** 32 embeddings drifting from `center` by small steps: one session. */
const session = (center: Float32Array, length = 32) => {
  const f = Float32Array.from(center);
  return Array.from({ length }, () => Float32Array.from(f.map((v, k) => (f[k] = v + 0.01 * (rand() * 2 - 1)))));
};
const feature = (step: number) => Float32Array.from([step, 0, 0, 0]);

test("retrieval splits 8 history sessions at their starts and retrieves the demonstration for a like episode", () => {
  const centers = Array.from({ length: 8 }, () => Float32Array.from({ length: D }, () => rand() * 2 - 1));
  const memory = new RetrievalMemory(4, { kind: "framesamp", frames: 32 }, 5, 32);
  const history = centers.map((c) => session(c)).flat();
  history.forEach((embedding, step) => memory.write(feature(step), step, { stampNs: 0n, embedding, history: true }));
  const ops = session(centers[0]!, 10).flatMap((embedding, i) => {
    return memory.write(feature(256 + i), 256 + i, { stampNs: BigInt(i), embedding });
  });
  assert.deepEqual(ops, [{
    kind: "history_split", frames: 256, starts: [0, 32, 64, 96, 128, 160, 192, 224], retrieved: [0, 32],
  }], "the split and the retrieved session are reported once, on the episode's first frame");
  assert.deepEqual(memory.sessionStarts(), [0, 32, 64, 96, 128, 160, 192, 224], "the episode's frames are not split");
  assert.deepEqual(memory.selection(), [
    ...Array.from({ length: 32 }, (_, i) => i), ...Array.from({ length: 10 }, (_, i) => 256 + i),
  ]);
  const inputs = memory.inputs();
  assert.equal(inputs.windowMask.reduce((a, b) => a + b, 0), 32, "FrameSamp's 32 slots over the 42 frames");
});

/** An embedding (3 channels x 16 cells, centred): a grey table, the grey arm's blob at cell `arm`, coloured objects. */
function tableFrame(arm: number, scene: { cells: number[]; rgb: [number, number, number] }): Float32Array {
  const cells = 16, e = new Float32Array(3 * cells);
  for (let c = 0; c < cells; c++) {
    const grey = 0.4 + 0.02 * c + 0.3 * Math.exp(-((c - arm) ** 2) / 2);
    for (let ch = 0; ch < 3; ch++) e[ch * cells + c] = grey + (scene.cells.includes(c) ? scene.rgb[ch]! : 0);
  }
  const mean = e.reduce((a, b) => a + b, 0) / e.length;
  return e.map((v) => v - mean);
}

test("a demonstration ending at home, then a stored session starting there: its colour splits them", () => {
  // The arm's moves dwarf the change of scene in the whole embedding (the stored session's 32 frames are
  // sampled far apart), but the arm is grey: the colour of the table's objects changes only at the boundary.
  const unmask = { cells: [10, 11], rgb: [0.06, 0, -0.06] as [number, number, number] };
  const other = { cells: [4, 5], rgb: [0, 0.06, -0.06] as [number, number, number] };
  const demo = Array.from({ length: 40 }, (_, t) => tableFrame(t < 30 ? 6 * Math.sin((Math.PI * t) / 30) : 0, unmask));
  const jumps = [0, 9, 3, 12, 6, 14, 1, 10, 4, 13, 7, 2, 11, 5, 8, 15];
  const stored = Array.from({ length: 32 }, (_, t) => tableFrame(jumps[t % 16]!, other));
  const memory = new RetrievalMemory(4, { kind: "framesamp", frames: 32 }, 5, 32);
  [...demo, ...stored].forEach((embedding, step) => memory.write(feature(step), step, {
    stampNs: 0n, embedding, history: true,
  }));
  const ops = memory.write(feature(72), 72, { stampNs: 1n, embedding: tableFrame(0, unmask) });
  assert.deepEqual(ops, [{ kind: "history_split", frames: 72, starts: [0, 40], retrieved: [0, 40] }]);
  assert.throws(
    () => new RetrievalMemory(4, { kind: "none" }, 5, 1).write(feature(0), 0, {
      stampNs: 0n, embedding: new Float32Array(16), history: true,
    }),
    /the frame at step 0 has an image embedding of 16 values, expected 3 channels of grid cells/,
  );
});

test("retrieval needs each frame's embedding, and history before the episode's own frames", () => {
  const memory = new RetrievalMemory(4, { kind: "none" }, 5, 1);
  assert.throws(() => memory.write(feature(0), 0, { stampNs: 0n }), /the frame at step 0 has no image embedding/);
  memory.write(feature(0), 0, { stampNs: 0n, embedding: new Float32Array(D).fill(1) });
  assert.throws(
    () => memory.write(feature(1), 1, { stampNs: 0n, embedding: new Float32Array(D).fill(1), history: true }),
    /retrieval: a history frame \(step 1\) after the episode's own frames/,
  );
});

test("the image embedding: the camera's thumbnail pooled and centred; its stored JPEG embeds alike", async () => {
  const width = 128, height = 96, chw = new Float32Array(3 * width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      chw[y * width + x] = x / width; // red ramps left to right
      chw[2 * width * height + y * width + x] = y < height / 2 ? 1 : 0; // blue on the top half
    }
  }
  const rgb = thumbnailRgb(chw, width, height);
  assert.equal(rgb.length, THUMBNAIL.width * THUMBNAIL.height * 3);
  const e = embedCamera(chw, width, height);
  assert.equal(e.length, IMAGE_EMBEDDING_DIM);
  assert.ok(Math.abs(e.reduce((a, b) => a + b, 0)) < 1e-3, "centred");
  assert.deepEqual(Array.from(e), Array.from(imageEmbedding(rgb, THUMBNAIL.width, THUMBNAIL.height)));
  const decoded = await rgbFromJpeg(await jpegFromRgb(rgb, THUMBNAIL.width, THUMBNAIL.height, 80), "thumbnail");
  const j = imageEmbedding(decoded.rgb, decoded.width, decoded.height);
  const cos = e.reduce((a, v, k) => a + v * j[k]!, 0) / Math.hypot(...e) / Math.hypot(...j);
  assert.ok(1 - cos < 1e-3, `JPEG at quality 80 moves the embedding by 1 - cos = ${1 - cos}`);
  assert.throws(() => imageEmbedding(rgb, 32, 24, "frame 3"), /frame 3 is 32x24 \(9216 bytes\), expected the 64x48/);
  assert.throws(() => thumbnailRgb(chw, 64, 48), /thumbnail: image has 36864 values, expected 3 x 64 x 48/);
});
