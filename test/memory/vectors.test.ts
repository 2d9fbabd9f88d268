/**
 * Replays test/vectors/memory.json (the vectors the Python adapter and training data code also pass)
 * through the TypeScript strategies. A feature is step-valued, [step, step + 0.5], so the returned
 * tensors map back to the steps of the features in them; padding must stay zero. TokenDrop's writes
 * carry images built from the case's patch levels; its tokens map back by their positions and pixels.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import {
  createMemoryStrategy, frameSamplingIndices, MEMORY_KINDS, type MemoryInputs, type MemorySpec, type ViewPixels,
} from "../../src/memory/index.js";

const FILE = new URL("../vectors/memory.json", import.meta.url);
const F = 2;

type Op =
  | { op: "write"; step: number; views?: number[][]; feature?: number[]; embedding?: number[]; history?: boolean }
  | { op: "subtask_end" }
  | { op: "reset"; scope: "episode" | "session" };
interface Expected { step: number; anchor?: number | null; window?: number[]; tokens?: number[][] }
interface Case { name: string; strategy: { kind: string } & Record<string, unknown>; ops: Op[]; expected: Expected[] }
interface FrameSampling { t: number; frames: number; indices: number[] }

const doc = JSON.parse(readFileSync(FILE, "utf8")) as {
  description: string;
  cases: Case[];
  frame_sampling: FrameSampling[];
};
/** The window slots a `none` strategy is asked to fill (any size: all padding). */
const NONE_WINDOW = 2;

/** The memory module's window size for a frame strategy's spec. */
function windowOf(spec: MemorySpec): number {
  switch (spec.kind) {
    case "mem0": return spec.window;
    case "framesamp": return spec.frames;
    case "none": return NONE_WINDOW;
    case "tokendrop": return 0;
    case "retrieval": return spec.inner.kind === "none" ? NONE_WINDOW : windowOf(spec.inner as MemorySpec);
  }
}

/** A view of grid x grid patches, each 2x2 pixels of 3 channels at its level, CHW. */
function viewOf(levels: number[], grid: number): ViewPixels {
  const side = 2 * grid, data = new Float32Array(3 * side * side);
  for (let c = 0; c < 3; c++) {
    for (let y = 0; y < side; y++) {
      for (let x = 0; x < side; x++) data[c * side * side + y * side + x] = levels[(y >> 1) * grid + (x >> 1)]!;
    }
  }
  return { width: side, height: side, channels: 3, data };
}

/** TokenDrop's read tokens as (step, view, patch), each token's pixels checked against the level written. */
function asTokens(inp: MemoryInputs, levels: Map<number, number[][]>, budget: number, where: string): number[][] {
  const t = inp.tokens;
  assert.ok(t, `${where}: tokendrop returns tokens`);
  assert.equal(t.mask.length, budget, `${where}: token mask size`);
  const out: number[][] = [];
  for (let i = 0; i < budget; i++) {
    const pos = Array.from(t.positions.subarray(i * 3, i * 3 + 3));
    const pixels = t.features.subarray(i * t.dim, (i + 1) * t.dim);
    if (t.mask[i] === 1) {
      assert.equal(out.length, i, `${where}: kept tokens come first (slot ${i})`);
      const level = levels.get(pos[0]!)![pos[1]!]![pos[2]!]!;
      assert.ok(pixels.every((v) => v === level), `${where}: token ${pos} carries its patch's pixels (${level})`);
      out.push(pos);
    } else {
      assert.ok(pixels.every((v) => v === 0) && pos.every((v) => v === 0), `${where}: padding slot ${i} is zero`);
    }
  }
  return out;
}

test("frame sampling agrees with numpy's linspace(0, t, n) cast to int32 (the vectors' frame_sampling table)", () => {
  assert.ok(doc.frame_sampling.length >= 5);
  for (const { t, frames, indices } of doc.frame_sampling) {
    assert.deepEqual(frameSamplingIndices(t, frames), indices, `t=${t} n=${frames}`);
  }
});

/** A write's feature: the case's own, else step-valued [step, step + 0.5] (retrieval splits on `embedding`). */
const featureOf = (op: { step: number; feature?: number[] }) =>
  Float32Array.from(op.feature ?? [op.step, op.step + 0.5]);

/** Features written since the last reset, by step: what a slot maps back to. */
let written = new Map<number, Float32Array>();

/** The step of the feature in `values`, checking it is one that was written. */
function stepOf(values: Float32Array, where: string): number {
  const hit = [...written].find(([, f]) => f.every((v, k) => v === values[k]));
  assert.ok(hit, `${where}: [${Array.from(values)}] is not a written feature`);
  return hit[0];
}

/** The inputs as the vectors spell them: the anchor's step (or null) and the window's valid steps, oldest first. */
function asSteps(inp: MemoryInputs, k: number, where: string): { anchor: number | null; window: number[] } {
  assert.equal(inp.window.length, k * F, `${where}: window tensor size`);
  assert.equal(inp.windowMask.length, k, `${where}: window mask size`);
  const window: number[] = [];
  for (let i = 0; i < k; i++) {
    const slot = inp.window.subarray(i * F, (i + 1) * F);
    if (inp.windowMask[i] === 1) {
      assert.equal(window.length, i, `${where}: valid slots must come first (slot ${i})`);
      window.push(stepOf(slot, `${where} window slot ${i}`));
    } else {
      assert.equal(inp.windowMask[i], 0, `${where}: mask values are 0 or 1`);
      assert.deepEqual(Array.from(slot), [0, 0], `${where}: padding slot ${i} is zero`);
    }
  }
  let anchor: number | null = null;
  if (inp.anchorMask[0] === 1) anchor = stepOf(inp.anchor, `${where} anchor`);
  else assert.deepEqual(Array.from(inp.anchor), [0, 0], `${where}: an absent anchor is zero`);
  return { anchor, window };
}

test("the vectors file has cases, each with a name, a strategy, ops and one expected entry per write", () => {
  assert.ok(doc.description.length > 0);
  assert.ok(doc.cases.length >= 8);
  for (const c of doc.cases) {
    assert.ok(c.name && c.strategy?.kind && Array.isArray(c.ops) && Array.isArray(c.expected), c.name);
    assert.equal(c.expected.length, c.ops.filter((o) => o.op === "write").length, `${c.name}: expected per write`);
  }
  assert.equal(new Set(doc.cases.map((c) => c.name)).size, doc.cases.length, "case names are unique");
});

for (const c of doc.cases) {
  const kind = c.strategy.kind as MemorySpec["kind"];
  if (!MEMORY_KINDS.includes(kind)) {
    test(c.name, { skip: `strategy kind "${c.strategy.kind}" is not implemented in src/memory/` }, () => {});
    continue;
  }
  test(c.name, () => {
    const spec = c.strategy as unknown as MemorySpec;
    const memory = createMemoryStrategy(spec, F, NONE_WINDOW);
    const got: Expected[] = [];
    let levels = new Map<number, number[][]>();
    written = new Map();
    c.ops.forEach((op, i) => {
      const where = `op ${i} (write ${"step" in op ? op.step : ""})`;
      switch (op.op) {
        case "write": {
          const stampNs = BigInt(op.step) * 100_000_000n;
          const feature = featureOf(op);
          written.set(op.step, feature);
          if (spec.kind === "tokendrop") {
            levels.set(op.step, op.views!);
            memory.write(feature, op.step, { stampNs, views: op.views!.map((v) => viewOf(v, spec.grid)) });
            got.push({ step: op.step, tokens: asTokens(memory.inputs(), levels, spec.budget, where) });
          } else {
            const embedding = op.embedding ? Float32Array.from(op.embedding) : undefined;
            memory.write(feature, op.step, { stampNs, embedding, history: op.history });
            got.push({ step: op.step, ...asSteps(memory.inputs(), windowOf(spec), where) });
          }
          break;
        }
        case "subtask_end": memory.onSubtaskEnd(); break;
        case "reset": memory.reset(op.scope); levels = new Map(); written = new Map(); break;
        default: throw new Error(`${c.name}: op ${i} ${JSON.stringify(op)} is not write, subtask_end or reset`);
      }
    });
    assert.deepEqual(got, c.expected);
  });
}
