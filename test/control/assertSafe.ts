/** Checks every value of a command against the filter's resolved limits (independent of the filter's own clamp code). */
import assert from "node:assert/strict";
import { angleDelta, type DimLimit } from "../../src/control/limits.js";

/** Asserts row values are finite, within [lower, upper] and within maxStep of `prev` (when given). */
export function assertRowSafe(limits: readonly DimLimit[], names: readonly string[], row: ArrayLike<number>, prev?: ArrayLike<number>): void {
  for (let i = 0; i < names.length; i++) {
    const l = limits.find((x) => x.name === names[i]);
    assert.ok(l, `no limit for ${names[i]}`);
    const v = row[i]!;
    assert.ok(Number.isFinite(v), `${names[i]} = ${v} not finite`);
    assert.ok(v >= l.lower && v <= l.upper, `${names[i]} = ${v} outside [${l.lower}, ${l.upper}]`);
    if (prev && Number.isFinite(prev[i]!) && l.maxStep !== Infinity) {
      const step = l.angular ? angleDelta(v, prev[i]!) : v - prev[i]!;
      assert.ok(Math.abs(step) <= l.maxStep + 1e-12, `${names[i]} step ${step} exceeds ${l.maxStep}`);
    }
  }
}
