import { test } from "node:test";
import assert from "node:assert/strict";
import { debounceStep, initialDebounce, sigmoid } from "../../src/policy/mem0/subtaskDebounce.js";

const run = (logits: number[], threshold: number, switchCount: number, rearm = false) => {
  let state = initialDebounce();
  return logits.map((l) => {
    const s = debounceStep(state, l, { threshold, switchCount, rearm });
    state = s.state;
    return s.ended;
  });
};

test("sigmoid is stable at the extremes", () => {
  assert.equal(sigmoid(0), 0.5);
  assert.ok(Math.abs(sigmoid(800) - 1) < 1e-12);
  assert.ok(sigmoid(-800) >= 0 && sigmoid(-800) < 1e-300);
});

test("a switch is declared only when the positive count since the last switch reaches switch_count", () => {
  const P = 3, N = -3; // sigmoid 0.95 / 0.05
  const table: [number[], number, boolean[]][] = [
    [[P, P, P], 3, [false, false, true]],
    [[P, N, P, N, P], 3, [false, false, false, false, true]], // not necessarily consecutive
    [[P, P, P, P, P, P], 3, [false, false, true, false, false, true]], // count restarts after a switch
    [[N, N, N, N], 1, [false, false, false, false]],
    [[P, N, P], 1, [true, false, true]],
  ];
  for (const [logits, count, want] of table) assert.deepEqual(run(logits, 0.5, count), want, `${logits} count=${count}`);
});

test("threshold is inclusive (sigmoid >= threshold) and a non-finite logit counts as negative", () => {
  assert.deepEqual(run([0, 0], 0.5, 2), [false, true]);
  assert.deepEqual(run([0, 0], 0.51, 2), [false, false]);
  assert.deepEqual(run([NaN, NaN, NaN], 0.5, 1), [false, false, false]);
  assert.deepEqual(run([Infinity, Infinity, -Infinity], 0.5, 1), [false, false, false]);
  assert.deepEqual(run([800, 800], 0.5, 2), [false, true], "a huge finite logit is still positive");
});

test("with rearm, one run of positive ticks declares one end: the count restarts after a tick below the threshold", () => {
  const P = 3, N = -3;
  const table: [number[], number, boolean[]][] = [
    [[P, P, P, P, P, P], 3, [false, false, true, false, false, false]], // without rearm: a second end at the 6th
    [[P, P, P, P, N, P, P, P], 3, [false, false, true, false, false, false, false, true]],
    [[P, P, N, P, P], 1, [true, false, false, true, false]],
    [[P, N, P, P, N, P, N, P, P], 3, [false, false, false, true, false, false, false, false, true]], // not consecutive, before or after
  ];
  for (const [logits, count, want] of table) assert.deepEqual(run(logits, 0.5, count, true), want, `${logits} count=${count}`);
  assert.deepEqual(run([P, P, NaN, P, P], 0.5, 2, true), [false, true, false, false, true], "a non-finite logit rearms (it is negative)");
});
