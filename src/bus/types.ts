import type { Qos } from "../msgs/qos.js";
import type { RosType } from "../msgs/types.js";

/** QoS profiles are part of a topic's contract (src/msgs/qos.ts); the bus moves bytes by them. */
export { RELIABLE_QOS, SENSOR_QOS, type Qos } from "../msgs/qos.js";

/** Time source. `nowNs` is wall time or sim time (lock-step); everything time-based uses it. */
export interface Clock {
  nowNs(): bigint;
  /**
   * Resolves when the clock reaches `ns` (wall: a timer; sim: when the sim advances past it). When
   * `signal` aborts first it rejects with the signal's reason and its timer or waiter is gone.
   */
  sleepUntil(ns: bigint, signal?: AbortSignal): Promise<void>;
}

/**
 * Moves CDR bytes between publishers and subscribers. Implementations keep QoS semantics
 * (keep-last depth, best-effort drops) and deliver asynchronously (never inside `publish`).
 */
export interface Bus {
  /** Subscribes to raw CDR bytes. Returns the unsubscribe function. */
  subscribe(topic: string, type: RosType, qos: Qos, onMessage: (cdr: Uint8Array, receivedNs: bigint) => void): () => void;
  /** Advertises a topic; the returned function publishes one CDR-encoded message. */
  advertise(topic: string, type: RosType, qos: Qos): (cdr: Uint8Array) => void;
  clock: Clock;
  close(): Promise<void>;
  /** The graph's publishers of `topic` with their types (buses over a middleware graph only). */
  publishersOf?(topic: string): Array<{ node: string; type: string }>;
  /**
   * The QoS profiles the topic's publishers offer, as the graph reports them (`ros2 topic info -v`):
   * one per publisher, [] when none is known yet. Optional: a bus that cannot tell omits it.
   */
  offeredQos?(topic: string): Qos[];
  /**
   * Resolves once what this bus published on `topics` has reached its own reliable subscriptions of
   * them (through the middleware), or after `timeoutMs`. Optional: an in-process bus has nothing in flight.
   */
  drained?(topics: readonly string[], timeoutMs: number): Promise<void>;
}
