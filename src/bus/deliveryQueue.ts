import type { RosType } from "../msgs/types.js";
import type { Qos } from "./types.js";

/** Counters of one subscription's queue. */
export interface DeliveryCounts {
  /** Messages handed to the callback. */
  delivered: number;
  /** Messages discarded because the keep-last queue was full (the subscriber had not drained). */
  dropped: number;
  /** Messages waiting in the queue now. */
  queued: number;
}

/** A subscriber callback. It may return a promise: the queue waits for it before the next message. */
export type OnMessage = (cdr: Uint8Array, receivedNs: bigint) => void;

/** Receives an error thrown or rejected by a subscriber callback (message names the topic and type). */
export type OnCallbackError = (error: Error, topic: string) => void;

/** Default callback-error handler: rethrows asynchronously, as an exception in a ROS executor would surface. */
export const rethrowAsync: OnCallbackError = (error) => {
  setImmediate(() => {
    throw error;
  });
};

interface Item {
  cdr: Uint8Array;
  receivedNs: bigint;
}

/**
 * One subscriber's ROS keep-last queue with asynchronous delivery, shared by the local and ros2
 * buses. `push` never calls the callback: it queues (dropping and counting the oldest message
 * beyond `depth` under keep_last) and schedules a drain with setImmediate. A drain delivers the
 * messages queued when it began, one by one; a callback returning a promise pauses the queue until
 * it settles, so a slow subscriber loses all but the newest `depth` messages.
 */
export class DeliveryQueue {
  // A FIFO as an array plus a head index: Array.shift is O(n), which made keep_all bursts quadratic.
  private items: Array<Item | undefined> = [];
  private head = 0;
  private busy = false;
  private active = true;
  private deliveredCount = 0;
  private droppedCount = 0;

  /** Creates an active queue for one subscription. */
  constructor(
    readonly topic: string,
    readonly type: RosType,
    readonly qos: Qos,
    private readonly onMessage: OnMessage,
    private readonly onCallbackError: OnCallbackError = rethrowAsync,
  ) {}

  /** Queues one message (no-op once closed). */
  push(cdr: Uint8Array, receivedNs: bigint): void {
    if (!this.active) return;
    this.items.push({ cdr, receivedNs });
    if (this.qos.history === "keep_last" && this.size > this.qos.depth) {
      this.take();
      this.droppedCount++;
    }
    if (!this.busy) {
      this.busy = true;
      setImmediate(() => this.drain());
    }
  }

  /** Stops delivery and discards queued messages; idempotent. */
  close(): void {
    this.active = false;
    this.items = [];
    this.head = 0;
  }

  /** True until `close`. */
  get isActive(): boolean {
    return this.active;
  }

  /** Current counters. */
  counts(): DeliveryCounts {
    return { delivered: this.deliveredCount, dropped: this.droppedCount, queued: this.size };
  }

  private get size(): number {
    return this.items.length - this.head;
  }

  private take(): Item | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head];
    this.items[this.head++] = undefined; // release the bytes
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  private drain(): void {
    // Only what was queued when this drain began: messages a callback publishes back onto this
    // subscriber wait for the next turn, so ping-pong topics cannot starve the event loop.
    let budget = this.size;
    while (this.active && budget-- > 0) {
      const m = this.take();
      if (m === undefined) break;
      this.deliveredCount++;
      let result: unknown;
      try {
        result = (this.onMessage as (cdr: Uint8Array, receivedNs: bigint) => unknown)(m.cdr, m.receivedNs);
      } catch (err) {
        this.report(err);
        continue;
      }
      if (isPromiseLike(result)) {
        result.then(
          () => this.drain(),
          (err: unknown) => {
            this.report(err);
            this.drain();
          },
        );
        return;
      }
    }
    if (this.active && this.size > 0) setImmediate(() => this.drain());
    else this.busy = false;
  }

  private report(err: unknown): void {
    const message = err instanceof Error ? err.message : String(err);
    this.onCallbackError(new Error(`subscriber callback on topic "${this.topic}" (${this.type}) failed: ${message}`, { cause: err }), this.topic);
  }
}

function isPromiseLike(v: unknown): v is PromiseLike<unknown> {
  return typeof v === "object" && v !== null && typeof (v as { then?: unknown }).then === "function";
}
