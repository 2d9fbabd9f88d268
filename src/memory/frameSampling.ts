/**
 * RoboMME's FrameSamp index rule (mme_vla_suite even_sampling_indices): at history index t, every
 * frame 0..t while t < n, else n indices spread over the whole history, `linspace(0, t, n)` cast to
 * int32 (truncated, so long histories can repeat an index early on; the current frame is always last).
 * Computed as numpy computes linspace (i * (t / (n - 1)), the last set to t), so both sides agree bit for bit.
 */
export function frameSamplingIndices(t: number, n: number): number[] {
  if (!Number.isInteger(t) || t < 0) throw new Error(`frame sampling: history index ${t}, expected an integer >= 0`);
  if (!Number.isInteger(n) || n < 1) throw new Error(`frame sampling: ${n} frames, expected an integer >= 1`);
  if (t < n) return Array.from({ length: t + 1 }, (_, i) => i);
  if (n === 1) return [0];
  const step = t / (n - 1);
  return Array.from({ length: n }, (_, i) => (i === n - 1 ? t : Math.trunc(i * step)));
}
