/**
 * Mem0Memory beyond what the shared vectors pin: the ops it reports for the event log, copies,
 * tensor values and the size checks.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createMemoryStrategy, Mem0Memory, type MemoryStrategy } from "../../src/memory/index.js";

const feat = (v: number) => Float32Array.of(v, v + 0.5);
const META = { stampNs: 0n };
const mem0 = (window: number, anchor = true, sliding = true): MemoryStrategy =>
  createMemoryStrategy({ kind: "mem0", window, anchor, sliding }, 2);

test("anchor_set is reported once, by the first write after a clear", () => {
  const m = mem0(3);
  assert.deepEqual(m.write(feat(1), 0, META), [{ kind: "anchor_set" }]);
  for (let i = 2; i < 10; i++) assert.deepEqual(m.write(feat(i), i, META), []);
  assert.deepEqual(Array.from(m.inputs().anchor), [1, 1.5]);
  m.onSubtaskEnd();
  assert.deepEqual(m.write(feat(7), 10, META), [{ kind: "anchor_set" }]);
  assert.deepEqual(Array.from(m.inputs().anchor), [7, 7.5]);
});

test("inputs: the window tensor holds the writes before the current one, zero-padded, with its mask", () => {
  const m = mem0(3);
  m.write(feat(1), 0, META);
  m.write(feat(2), 1, META);
  let inp = m.inputs();
  assert.deepEqual(Array.from(inp.window), [1, 1.5, 0, 0, 0, 0]);
  assert.deepEqual(Array.from(inp.windowMask), [1, 0, 0]);
  assert.deepEqual(Array.from(inp.anchorMask), [1]);
  for (let i = 3; i <= 6; i++) m.write(feat(i), i, META);
  inp = m.inputs();
  assert.deepEqual(Array.from(inp.window), [3, 3.5, 4, 4.5, 5, 5.5]);
  assert.deepEqual(Array.from(inp.windowMask), [1, 1, 1]);
});

test("window_clear counts the features the window held with the tick's own write, capped at K", () => {
  const m = mem0(2);
  assert.deepEqual(m.onSubtaskEnd(), [{ kind: "window_clear", dropped: 0, anchorCleared: false }], "empty");
  m.write(feat(1), 0, META);
  assert.deepEqual(m.onSubtaskEnd(), [{ kind: "window_clear", dropped: 1, anchorCleared: true }], "one write");
  for (let i = 0; i < 5; i++) m.write(feat(i), i, META);
  assert.deepEqual(m.onSubtaskEnd(), [{ kind: "window_clear", dropped: 2, anchorCleared: true }], "past K");
  const inp = m.inputs();
  assert.deepEqual(Array.from(inp.windowMask), [0, 0]);
  assert.deepEqual(Array.from(inp.anchorMask), [0]);
});

test("ablations leave their part out: nothing to set or drop, inputs stay masked", () => {
  const noAnchor = mem0(2, false, true);
  assert.deepEqual(noAnchor.write(feat(1), 0, META), []);
  noAnchor.write(feat(2), 1, META);
  assert.deepEqual(Array.from(noAnchor.inputs().anchorMask), [0]);
  assert.deepEqual(noAnchor.onSubtaskEnd(), [{ kind: "window_clear", dropped: 2, anchorCleared: false }]);
  const noWindow = mem0(2, true, false);
  noWindow.write(feat(1), 0, META);
  noWindow.write(feat(2), 1, META);
  assert.deepEqual(Array.from(noWindow.inputs().window), [0, 0, 0, 0]);
  assert.deepEqual(Array.from(noWindow.inputs().windowMask), [0, 0]);
  assert.deepEqual(noWindow.onSubtaskEnd(), [{ kind: "window_clear", dropped: 0, anchorCleared: true }]);
});

test("both reset scopes clear anchor and window and report it like a subtask end", () => {
  for (const scope of ["episode", "session"] as const) {
    const m = mem0(3);
    for (let i = 0; i < 3; i++) m.write(feat(i), i, META);
    assert.deepEqual(m.reset(scope), [{ kind: "window_clear", dropped: 3, anchorCleared: true }], scope);
    assert.deepEqual(m.write(feat(9), 0, META), [{ kind: "anchor_set" }], scope);
    assert.deepEqual(Array.from(m.inputs().windowMask), [0, 0, 0], scope);
  }
});

test("features are copied in: mutating the caller's array later changes nothing", () => {
  const m = mem0(2);
  const f = feat(1);
  m.write(f, 0, META);
  m.write(feat(2), 1, META);
  f[0] = 99;
  const inp = m.inputs();
  assert.equal(inp.anchor[0], 1);
  assert.equal(inp.window[0], 1);
});

test("wrong feature length, K < 1 and a bad feature size are rejected with the sizes", () => {
  assert.throws(() => mem0(0), /memory window K=0: expected an integer >= 1/);
  assert.throws(() => new Mem0Memory(0, 2, { anchor: true, sliding: true }), /feature_dim 0/);
  assert.throws(() => mem0(2).write(Float32Array.of(1, 2, 3), 0, META), /memory feature length 3, expected 2/);
  assert.throws(() => mem0(2, false, false).write(Float32Array.of(1), 0, META), /length 1, expected 2/);
});
