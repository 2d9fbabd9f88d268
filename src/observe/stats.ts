/** Nearest-rank percentile (q in [0, 1]) of a sample; NaN for an empty sample. Rounded to 3 decimals. */
export function percentile(values: readonly number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return Math.round(sorted[rank]! * 1000) / 1000;
}
