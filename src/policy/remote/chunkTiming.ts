/**
 * Latency hiding for remote chunks (pure): how many ticks before the running chunk ends the next
 * one is requested, and how a chunk that arrives late is aligned to the tick it is used at.
 */

/**
 * Ticks after the one a request is sent in until its reply is in by the middle of a tick: the round
 * trip (p90 of recent ones; one period when none is measured yet) plus half a period for the tick's
 * own work before and after waiting, in periods, rounded up, minus the sending tick. 0: the reply
 * fits in the tick it was asked in.
 */
export function ticksToReply(roundTripsMs: readonly number[], periodMs: number): number {
  const sorted = [...roundTripsMs].sort((a, b) => a - b);
  const p90 = sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(0.9 * sorted.length))]! : periodMs;
  return Math.max(0, Math.ceil((p90 + periodMs / 2) / periodMs) - 1);
}

/**
 * Ticks of lead `d` for a prefetch: `ticksToReply` clamped to [0, horizon - 1], so an aligned chunk
 * keeps at least one point. 0: a chunk whose round trip fits in a tick is asked for at the tick
 * itself and drops no point, as in process. Every tick of lead drops one point of the chunk and
 * makes its observation one tick older.
 */
export function prefetchLeadTicks(roundTripsMs: readonly number[], periodMs: number, horizon: number): number {
  return Math.min(horizon - 1, ticksToReply(roundTripsMs, periodMs));
}

/** A chunk requested for observation `fromStep`, aligned to `atStep`, or why it must not run. */
export type Aligned =
  | { kind: "ok"; actions: Float64Array; horizon: number; dropped: number }
  | { kind: "stale"; reason: string };

/**
 * Drops the rows of a [horizon, dim] chunk computed at `fromStep` that belong to ticks already
 * past at `atStep` (row j is the action for tick fromStep + j). Refuses a chunk whose observation is
 * older than `maxAgeMs`, or one with no row left.
 */
export function alignChunk(actions: Float64Array, horizon: number, dim: number, fromStep: number, atStep: number, ageMs: number, maxAgeMs: number): Aligned {
  const dropped = atStep - fromStep;
  if (ageMs > maxAgeMs) return { kind: "stale", reason: `chunk from step ${fromStep} is ${ageMs.toFixed(0)} ms old at step ${atStep} (max_chunk_age_ms ${maxAgeMs})` };
  if (dropped < 0 || dropped >= horizon) return { kind: "stale", reason: `chunk from step ${fromStep} (H=${horizon}) has no point for step ${atStep}` };
  return { kind: "ok", actions: actions.slice(dropped * dim), horizon: horizon - dropped, dropped };
}
