/**
 * Replays test/vectors/memory.json (the vectors the Python adapter and training data code also pass)
 * through the TypeScript strategies. A feature is step-valued, [step, step + 0.5], so the returned
 * tensors map back to the steps of the features in them; padding must stay zero.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createMemoryStrategy, MEMORY_KINDS, type MemoryInputs, type MemorySpec } from "../../src/memory/index.js";

const FILE = new URL("../vectors/memory.json", import.meta.url);
const F = 2;

type Op = { op: "write"; step: number } | { op: "subtask_end" } | { op: "reset"; scope: "episode" | "session" };
interface Expected { step: number; anchor: number | null; window: number[] }
interface Case { name: string; strategy: { kind: string } & Record<string, unknown>; ops: Op[]; expected: Expected[] }

const doc = JSON.parse(readFileSync(FILE, "utf8")) as { description: string; cases: Case[] };

const feature = (step: number) => Float32Array.of(step, step + 0.5);

/** The step of the feature in `values`, checking it is one of ours ([step, step + 0.5]). */
function stepOf(values: Float32Array, where: string): number {
  assert.equal(values[1], values[0]! + 0.5, `${where}: [${Array.from(values)}] is not a written feature`);
  return values[0]!;
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
    const memory = createMemoryStrategy(spec, F);
    const got: Expected[] = [];
    c.ops.forEach((op, i) => {
      switch (op.op) {
        case "write":
          memory.write(feature(op.step), op.step, { stampNs: BigInt(op.step) * 100_000_000n });
          got.push({ step: op.step, ...asSteps(memory.inputs(), spec.window, `op ${i} (write ${op.step})`) });
          break;
        case "subtask_end": memory.onSubtaskEnd(); break;
        case "reset": memory.reset(op.scope); break;
        default: throw new Error(`${c.name}: op ${i} ${JSON.stringify(op)} is not write, subtask_end or reset`);
      }
    });
    assert.deepEqual(got, c.expected);
  });
}
