import { test } from "node:test";
import assert from "node:assert/strict";
import { clearMemory, createMemoryBank, memoryInputs, pushWindow, setAnchorIfEmpty } from "../../src/policy/mem0/memoryBank.js";

const feat = (v: number) => Float32Array.of(v, v + 0.5);

test("anchor is the first feature after a reset and stays fixed", () => {
  const bank = createMemoryBank(2, 3);
  assert.deepEqual(setAnchorIfEmpty(bank, feat(1)), { kind: "anchor_set" });
  for (let i = 2; i < 10; i++) {
    assert.equal(setAnchorIfEmpty(bank, feat(i)), null);
    pushWindow(bank, feat(i));
  }
  assert.deepEqual(Array.from(bank.anchor!), [1, 1.5]);
});

test("window keeps the last K features, oldest first, zero-padded with a mask", () => {
  const bank = createMemoryBank(2, 3);
  pushWindow(bank, feat(1));
  let inp = memoryInputs(bank);
  assert.deepEqual(Array.from(inp.windowMask), [1, 0, 0]);
  assert.deepEqual(Array.from(inp.window), [1, 1.5, 0, 0, 0, 0]);
  for (let i = 2; i <= 5; i++) pushWindow(bank, feat(i));
  inp = memoryInputs(bank);
  assert.deepEqual(Array.from(inp.window), [3, 3.5, 4, 4.5, 5, 5.5]);
  assert.deepEqual(Array.from(inp.windowMask), [1, 1, 1]);
  assert.deepEqual(Array.from(inp.anchorMask), [0]);
});

test("a copy is stored: later mutation of the caller's feature does not leak in", () => {
  const bank = createMemoryBank(2, 2);
  const f = feat(1);
  setAnchorIfEmpty(bank, f);
  pushWindow(bank, f);
  f[0] = 99;
  assert.equal(bank.anchor![0], 1);
  assert.equal(bank.window[0][0], 1);
});

test("clear on a switch empties anchor and window; the next feature becomes the anchor", () => {
  const bank = createMemoryBank(2, 2);
  setAnchorIfEmpty(bank, feat(1));
  pushWindow(bank, feat(1));
  pushWindow(bank, feat(2));
  assert.deepEqual(clearMemory(bank), { kind: "window_clear", dropped: 2, anchorCleared: true });
  const inp = memoryInputs(bank);
  assert.deepEqual(Array.from(inp.windowMask), [0, 0]);
  assert.deepEqual(Array.from(inp.anchorMask), [0]);
  assert.deepEqual(setAnchorIfEmpty(bank, feat(7)), { kind: "anchor_set" });
  assert.equal(bank.anchor![0], 7);
});

test("ablations mask anchor and window out", () => {
  const bank = createMemoryBank(2, 2);
  setAnchorIfEmpty(bank, feat(1));
  pushWindow(bank, feat(2));
  const inp = memoryInputs(bank, false, false);
  assert.deepEqual(Array.from(inp.anchorMask), [0]);
  assert.deepEqual(Array.from(inp.anchor), [0, 0]);
  assert.deepEqual(Array.from(inp.windowMask), [0, 0]);
});

test("wrong feature length and K < 1 are rejected with the sizes", () => {
  assert.throws(() => createMemoryBank(2, 0), /K=0/);
  assert.throws(() => pushWindow(createMemoryBank(2, 2), Float32Array.of(1, 2, 3)), /length 3, expected 2/);
});
