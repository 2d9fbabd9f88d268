/**
 * Latest-of sensor cache with a staleness limit per topic. The control loop writes every received
 * message into it and reads one consistent snapshot per tick; a topic that never arrived or is
 * older than its limit makes the whole snapshot unusable (the loop holds and emits an event).
 */

export interface SensorLimit { topic: string; staleAfterMs: number }

export interface Stamped<T> { value: T; receivedNs: bigint }

export type SensorSnapshot<T> =
  | { kind: "ready"; values: Map<string, Stamped<T>> }
  | { kind: "missing"; topic: string }
  | { kind: "stale"; topic: string; ageMs: number; limitMs: number };

export class LatestSensors<T> {
  private readonly latest = new Map<string, Stamped<T>>();

  constructor(readonly limits: readonly SensorLimit[]) {}

  /** Stores the newest message of a topic; an older arrival (out of order) is ignored. */
  update(topic: string, value: T, receivedNs: bigint): void {
    const prev = this.latest.get(topic);
    if (prev && prev.receivedNs > receivedNs) return;
    this.latest.set(topic, { value, receivedNs });
  }

  /** One snapshot at `nowNs`: ready only when every limited topic is present and fresh. */
  snapshot(nowNs: bigint): SensorSnapshot<T> {
    return snapshotOf(this.latest, this.limits, nowNs);
  }

  clear(): void {
    this.latest.clear();
  }
}

/** Pure freshness check of a latest-of map against per-topic limits. */
export function snapshotOf<T>(latest: ReadonlyMap<string, Stamped<T>>, limits: readonly SensorLimit[], nowNs: bigint): SensorSnapshot<T> {
  for (const { topic, staleAfterMs } of limits) {
    const entry = latest.get(topic);
    if (!entry) return { kind: "missing", topic };
    const ageMs = Number(nowNs - entry.receivedNs) / 1e6;
    if (ageMs > staleAfterMs) return { kind: "stale", topic, ageMs, limitMs: staleAfterMs };
  }
  return { kind: "ready", values: new Map(latest) };
}
