import assert from "node:assert/strict";
import { test } from "node:test";
import { ActionScheduler, EMPTY_SCHEDULE, acceptChunk, actionAt, advance, needsChunk, pendingChunk } from "../../src/control/actionScheduler.js";
import type { ActionChunk } from "../../src/policy/types.js";

const NAMES = ["a", "b"];
/** H x 2 chunk whose row k is [base + k, -(base + k)]. */
function ramp(base: number, h: number): ActionChunk {
  const actions = new Float64Array(h * 2);
  for (let k = 0; k < h; k++) { actions[2 * k] = base + k; actions[2 * k + 1] = -(base + k); }
  return { jointNames: NAMES, actions, horizon: h, dim: 2 };
}

test("Δ = H by default: one chunk per H ticks, each row once, in order", () => {
  const s = new ActionScheduler({ dim: 2 });
  const got: number[] = [];
  let acts = 0;
  for (let t = 0; t < 12; t++) {
    if (s.needsChunk()) s.accept(ramp(100 * ++acts, 4));
    got.push(s.next()!.positions[0]!);
  }
  assert.equal(acts, 3);
  assert.deepEqual(got, [100, 101, 102, 103, 200, 201, 202, 203, 300, 301, 302, 303]);
});

test("execute_steps Δ < H re-infers after Δ steps and the new chunk replaces the old one", () => {
  const s = new ActionScheduler({ dim: 2, executeSteps: 2 });
  const got: number[] = [];
  let acts = 0;
  for (let t = 0; t < 6; t++) {
    if (s.needsChunk()) s.accept(ramp(100 * ++acts, 4));
    got.push(s.next()!.positions[0]!);
  }
  assert.equal(acts, 3);
  assert.deepEqual(got, [100, 101, 200, 201, 300, 301]);
});

test("a late chunk: the old chunk keeps running past Δ until it runs out, then next() is null (hold)", () => {
  const s = new ActionScheduler({ dim: 2, executeSteps: 2 });
  s.accept(ramp(0, 3));
  assert.deepEqual([s.next()!.positions[0], s.next()!.positions[0]], [0, 1]);
  assert.equal(s.needsChunk(), true);
  assert.equal(s.next()!.positions[0], 2);      // policy still busy: row 2 still covers this tick
  assert.equal(s.next(), null);                  // exhausted: the loop holds ("no_action")
  assert.equal(s.needsChunk(), true);
});

test("temporal ensembling: ACT weights exp(-m·i), i = 0 the oldest chunk", () => {
  const m = 0.5;
  const opts = { dim: 2, executeSteps: 1, ensemble: { decay: m } };
  let st = acceptChunk(EMPTY_SCHEDULE, ramp(0, 3), opts).state;   // predicts t0..t2 = 0, 1, 2
  st = advance(st);
  st = acceptChunk(st, ramp(10, 3), opts).state;                  // predicts t1..t3 = 10, 11, 12
  st = advance(st);
  st = acceptChunk(st, ramp(20, 3), opts).state;                  // predicts t2..t4 = 20, 21, 22
  const w = [1, Math.exp(-m), Math.exp(-2 * m)];
  const expected = (2 * w[0]! + 11 * w[1]! + 20 * w[2]!) / (w[0]! + w[1]! + w[2]!);
  const a = actionAt(st, opts)!;
  assert.ok(Math.abs(a[0]! - expected) < 1e-12, `${a[0]} vs ${expected}`);
  assert.ok(Math.abs(a[1]! + expected) < 1e-12);
  // Future ticks blend only the chunks that still cover them.
  const p = pendingChunk(st, opts)!;
  assert.equal(p.horizon, 3);
  const t3 = (12 * w[0]! + 21 * w[1]!) / (w[0]! + w[1]!);
  assert.ok(Math.abs(p.actions[2]! - t3) < 1e-12);
  assert.equal(p.actions[4], 22);
  // Without ensembling the newest chunk alone decides.
  assert.equal(actionAt(st, { dim: 2, executeSteps: 1 })![0], 20);
});

test("ensembling with decay 0 is the plain mean; clear() drops the ensemble (subtask switch)", () => {
  const s = new ActionScheduler({ dim: 2, executeSteps: 1, ensemble: { decay: 0 } });
  s.accept(ramp(0, 4));
  s.next();
  s.accept(ramp(10, 4));
  assert.equal(s.next()!.positions[0], (1 + 10) / 2); // tick 1: row 1 of the first, row 0 of the second
  s.clear();
  assert.equal(s.needsChunk(), true);
  assert.equal(s.next(), null);
  s.accept(ramp(50, 4));
  assert.equal(s.next()!.positions[0], 50);
});

test("chunk replacement is pure: accepting returns a new state and leaves the old one untouched", () => {
  const opts = { dim: 2 };
  const a = acceptChunk(EMPTY_SCHEDULE, ramp(0, 3), opts).state;
  const b = acceptChunk(advance(a), ramp(7, 3), opts).state;
  assert.equal(a.chunks.length, 1);
  assert.equal(actionAt(a, opts)![0], 0);
  assert.equal(actionAt(b, opts)![0], 7);
  assert.equal(needsChunk(EMPTY_SCHEDULE, opts), true);
  assert.deepEqual(EMPTY_SCHEDULE, { tick: 0, chunks: [], sinceChunk: 0 });
});

test("a chunk of the wrong dim is refused with a hold and does not replace the running one", () => {
  const s = new ActionScheduler({ dim: 2 });
  s.accept(ramp(0, 3));
  const g = s.accept({ jointNames: ["a"], actions: new Float64Array(3), horizon: 3, dim: 1 });
  assert.ok(g.kind === "hold" && g.reason === "wrong_length");
  assert.equal(s.next()!.positions[0], 0);
  assert.throws(() => new ActionScheduler({ dim: 2, executeSteps: 0 }), /execute_steps 0/);
});
