import { WallClock } from "../src/bus/clock.js";
import { percentile } from "../src/observe/stats.js";

/**
 * Real-time pacing of the control loop: 100 ticks at 10 Hz on the WallClock (what `engram run`
 * uses in real-time mode); jitter = how late each tick starts against its schedule.
 */
export async function bench(): Promise<Record<string, unknown>> {
  const clock = new WallClock();
  const periodNs = 100_000_000n;
  const start = clock.nowNs();
  const lateMs: number[] = [];
  for (let k = 1; k <= 100; k++) {
    const due = start + BigInt(k) * periodNs;
    await clock.sleepUntil(due);
    lateMs.push(Number(clock.nowNs() - due) / 1e6);
  }
  return { tick_jitter_10hz_ms_p50: percentile(lateMs, 0.5), tick_jitter_10hz_ms_p99: percentile(lateMs, 0.99), ticks: lateMs.length };
}
