import { test } from "node:test";
import assert from "node:assert/strict";
import { chunkSeed, gaussianNoise, integrateFlow } from "../../src/policy/mem0/flowSampler.js";

test("constant velocity field integrates exactly: x1 = x0 + v", async () => {
  const x0 = Float32Array.of(0.5, -1, 2);
  const v = Float32Array.of(1, 2, -3);
  for (const n of [1, 4, 10]) {
    const x = await integrateFlow(x0, n, async () => v);
    assert.deepEqual(Array.from(x).map((a) => +a.toFixed(5)), [1.5, 1, -1], `N=${n}`);
  }
  assert.deepEqual(Array.from(x0), [0.5, -1, 2], "input untouched");
});

test("linear field v = a - x follows Euler's closed form and converges to the analytic flow", async () => {
  const a = 2, x0 = 0;
  for (const n of [1, 4, 16, 256]) {
    const taus: number[] = [];
    const x = await integrateFlow(Float32Array.of(x0), n, async (xk, tau) => { taus.push(tau); return Float32Array.of(a - xk[0]); });
    const euler = a + (x0 - a) * (1 - 1 / n) ** n; // x_{k+1} - a = (1 - 1/N)(x_k - a)
    assert.ok(Math.abs(x[0] - euler) < 1e-5, `N=${n}: ${x[0]} vs ${euler}`);
    assert.deepEqual(taus, Array.from({ length: n }, (_, k) => k / n));
  }
  const x = await integrateFlow(Float32Array.of(x0), 256, async (xk) => Float32Array.of(a - xk[0]));
  assert.ok(Math.abs(x[0] - (a + (x0 - a) * Math.exp(-1))) < 5e-3); // analytic x(1)
});

test("time-dependent field v = 2τ: Euler gives 1 - 1/N (exact integral 1)", async () => {
  for (const n of [2, 5]) {
    const x = await integrateFlow(Float32Array.of(0), n, async (_x, tau) => Float32Array.of(2 * tau));
    assert.ok(Math.abs(x[0] - (1 - 1 / n)) < 1e-6);
  }
});

test("same seed and chunk index → same noise; different chunk → different noise", () => {
  const a = gaussianNoise(128, chunkSeed(42, 3));
  assert.deepEqual(a, gaussianNoise(128, chunkSeed(42, 3)));
  assert.notDeepEqual(a, gaussianNoise(128, chunkSeed(42, 4)));
  assert.notDeepEqual(a, gaussianNoise(128, chunkSeed(43, 3)));
});

test("noise is standard normal (mean ~0, variance ~1) and finite", () => {
  const x = gaussianNoise(20001, 7);
  const mean = x.reduce((s, v) => s + v, 0) / x.length;
  const variance = x.reduce((s, v) => s + (v - mean) ** 2, 0) / x.length;
  assert.ok(Math.abs(mean) < 0.03, `mean ${mean}`);
  assert.ok(Math.abs(variance - 1) < 0.05, `variance ${variance}`);
  assert.ok(x.every(Number.isFinite));
});

test("bad N and wrong velocity length are rejected", async () => {
  await assert.rejects(integrateFlow(Float32Array.of(0), 0, async (x) => x), /N=0/);
  await assert.rejects(integrateFlow(Float32Array.of(0, 1), 2, async () => Float32Array.of(1)), /length 1 at step 0, expected 2/);
});
