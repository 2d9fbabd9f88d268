/**
 * `replay` bus: an MCAP recording played back as bus messages. `play()` delivers every recorded
 * message to the subscribers of its topic at the recorded timing (rate 1), at a rate factor, or as
 * fast as possible (rate Infinity), with `receivedNs` = the message's logTime. The bus clock
 * follows the recording: it starts at the first logTime and moves to each message's logTime as it
 * is delivered, so `clock.sleepUntil` waits on recording time.
 *
 * QoS: each subscriber has its own keep-last queue of `depth` (DeliveryQueue, as on the local bus);
 * the recording's offered QoS are not matched against subscribers. `advertise` publishes into an
 * in-memory sink (`published(topic)`), and to this bus's own subscribers of that topic, so a
 * policy replayed against a recording can run unchanged and its outputs be inspected.
 *
 * Lock-step: instead of `play()`, `advanceTo(ns)` delivers every message logged up to `ns` and
 * moves the clock there (the recording rig's pacing, trial/recordingRig.ts), as a sim twin
 * advances to each control tick; `exhausted` says when no message is left.
 */
import type { RosType } from "../msgs/types.js";
import { McapSource, type ReadMode, type RecordedTopic } from "./mcapReader.js";
import { SimClock } from "./clock.js";
import { assertSameType, validateQos, validateTopicName } from "./checks.js";
import { DeliveryQueue, rethrowAsync, type OnCallbackError, type OnMessage } from "./deliveryQueue.js";
import type { Bus, Qos } from "./types.js";

/** Options for `ReplayBus.open`. */
export interface ReplayOptions {
  /** Playback speed: 1 = recorded timing, 2 = twice as fast, Infinity = as fast as possible (default 1). */
  rate?: number;
  /** How to read the file (default "auto": indexed, streaming fallback for truncated files). */
  readMode?: ReadMode;
  /** Receives errors thrown by subscriber callbacks (default: rethrown asynchronously, naming the topic). */
  onCallbackError?: OnCallbackError;
}

/** One message a caller published on the replay bus. */
export interface PublishedMessage {
  cdr: Uint8Array;
  /** Recording time when it was published. */
  stampNs: bigint;
}

/** What `play()` resolves with. */
export interface ReplayResult {
  /** Messages read from the recording and offered to subscribers. */
  messages: number;
  /** Recording time covered, first to last logTime. */
  durationNs: bigint;
  /** Wall time the playback took. */
  wallMs: number;
  /** True when `close()` stopped playback early. */
  stopped: boolean;
}

/** A Bus whose incoming messages come from an MCAP recording. */
export class ReplayBus implements Bus {
  /** Recording time (see the module note). */
  readonly clock: SimClock;
  readonly #source: McapSource;
  readonly #recorded: Map<string, RecordedTopic>;
  readonly #rate: number;
  readonly #onCallbackError: OnCallbackError;
  readonly #subscribers = new Map<string, Set<DeliveryQueue>>();
  readonly #sink = new Map<string, PublishedMessage[]>();
  readonly #types = new Map<string, RosType>();
  #playing: Promise<ReplayResult> | undefined;
  #stepper: AsyncIterator<{ topic: string; cdr: Uint8Array; logTimeNs: bigint }> | undefined;
  #next: IteratorResult<{ topic: string; cdr: Uint8Array; logTimeNs: bigint }> | undefined;
  #closed = false;
  #wake: (() => void) | undefined;

  private constructor(source: McapSource, topics: RecordedTopic[], startNs: bigint, options: ReplayOptions) {
    this.#source = source;
    this.#recorded = new Map(topics.map((t) => [t.topic, t]));
    for (const t of topics) this.#types.set(t.topic, t.type);
    this.clock = new SimClock(startNs);
    this.#rate = options.rate ?? 1;
    this.#onCallbackError = options.onCallbackError ?? rethrowAsync;
  }

  /** Opens a recording for replay. Throws naming the file when it is missing or not MCAP, or the rate is invalid. */
  static async open(path: string, options: ReplayOptions = {}): Promise<ReplayBus> {
    const rate = options.rate ?? 1;
    if (!(rate > 0)) throw new Error(`replay ${path}: rate ${rate} is invalid; expected a number > 0 (Infinity = as fast as possible)`);
    const source = await McapSource.open(path, options.readMode ?? "auto");
    try {
      const topics = await source.topics();
      let startNs = source.statistics?.messageStartTime;
      if (startNs === undefined) {
        for await (const m of source.messages()) { startNs = m.logTimeNs; break; }
      }
      return new ReplayBus(source, topics, startNs ?? 0n, { ...options, rate });
    } catch (err) {
      await source.close();
      throw err;
    }
  }

  /** The recording's topics (name, type, schema text, channel metadata). */
  get recordedTopics(): RecordedTopic[] {
    return [...this.#recorded.values()];
  }

  /** Subscribes to a topic; a type differing from the recording's (or an earlier advertise) throws. */
  subscribe(topic: string, type: RosType, qos: Qos, onMessage: OnMessage): () => void {
    this.#assertOpen(`subscribe to "${topic}"`);
    validateQos(qos, topic, "subscriber");
    this.#claimType(topic, type, "subscribe");
    const queue = new DeliveryQueue(topic, type, { ...qos }, onMessage, this.#onCallbackError);
    let set = this.#subscribers.get(topic);
    if (!set) this.#subscribers.set(topic, (set = new Set()));
    set.add(queue);
    return () => {
      queue.close();
      set.delete(queue);
    };
  }

  /** Advertises a topic whose messages go to the in-memory sink and to this bus's subscribers. */
  advertise(topic: string, type: RosType, qos: Qos): (cdr: Uint8Array) => void {
    this.#assertOpen(`advertise "${topic}"`);
    validateQos(qos, topic, "publisher");
    this.#claimType(topic, type, "advertise");
    return (cdr: Uint8Array) => {
      if (this.#closed) throw new Error(`publish on topic "${topic}" after the replay bus was closed`);
      const stampNs = this.clock.nowNs();
      let list = this.#sink.get(topic);
      if (!list) this.#sink.set(topic, (list = []));
      list.push({ cdr, stampNs });
      this.#deliver(topic, cdr, stampNs);
    };
  }

  /** Everything published on `topic` through `advertise`, in order. */
  published(topic: string): readonly PublishedMessage[] {
    return this.#sink.get(topic) ?? [];
  }

  /**
   * Starts playback (once; later calls return the same promise). Resolves when the last message
   * has been handed to subscribers (a callback that returns a promise may still be running), or
   * early after `close()`.
   */
  play(): Promise<ReplayResult> {
    if (this.#stepper) throw new Error("replay: play() after advanceTo(): a recording is played or stepped, not both");
    this.#playing ??= this.#run();
    return this.#playing;
  }

  async #run(): Promise<ReplayResult> {
    const wallStart = performance.now();
    let first: bigint | undefined;
    let last = 0n;
    let count = 0;
    for await (const m of this.#source.messages()) {
      if (this.#closed) break;
      first ??= m.logTimeNs;
      last = m.logTimeNs;
      if (Number.isFinite(this.#rate)) {
        const dueMs = wallStart + Number(m.logTimeNs - first) / 1e6 / this.#rate;
        await this.#sleepWall(dueMs - performance.now());
        if (this.#closed) break;
      }
      // NOTE: stream-mode files are in file order; time only moves forward.
      if (m.logTimeNs > this.clock.nowNs()) await this.clock.advanceTo(m.logTimeNs);
      this.#deliver(m.topic, m.cdr, m.logTimeNs);
      count++;
      if (!Number.isFinite(this.#rate)) await new Promise<void>((r) => setImmediate(r));
    }
    // Let the last deliveries (setImmediate drains) run before reporting the end.
    await new Promise<void>((r) => setImmediate(r));
    return { messages: count, durationNs: first === undefined ? 0n : last - first, wallMs: performance.now() - wallStart, stopped: this.#closed };
  }

  /**
   * Lock-step playback: delivers every message logged at or before `ns` (in file order, the clock
   * following each one's logTime), lets the deliveries run, and moves the clock to `ns`.
   */
  async advanceTo(ns: bigint): Promise<void> {
    this.#assertOpen("advance");
    if (this.#playing) throw new Error("replay: advanceTo() after play(): a recording is played or stepped, not both");
    this.#stepper ??= this.#source.messages()[Symbol.asyncIterator]();
    this.#next ??= await this.#stepper.next();
    while (!this.#next.done && this.#next.value.logTimeNs <= ns && !this.#closed) {
      const m = this.#next.value;
      if (m.logTimeNs > this.clock.nowNs()) await this.clock.advanceTo(m.logTimeNs);
      this.#deliver(m.topic, m.cdr, m.logTimeNs);
      this.#next = await this.#stepper.next();
    }
    await new Promise<void>((r) => setImmediate(r));
    if (ns > this.clock.nowNs()) await this.clock.advanceTo(ns);
  }

  /** Lock-step playback: true once `advanceTo` has delivered the recording's last message. */
  get exhausted(): boolean {
    return this.#next?.done === true;
  }

  /** Why the file was read without its index (cut, or its recorder killed), or undefined. */
  get fallbackReason(): string | undefined {
    return this.#source.fallbackReason;
  }

  #sleepWall(ms: number): Promise<void> {
    if (ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => { this.#wake = undefined; resolve(); }, ms);
      this.#wake = () => { clearTimeout(timer); this.#wake = undefined; resolve(); };
    });
  }

  #deliver(topic: string, cdr: Uint8Array, stampNs: bigint): void {
    for (const q of this.#subscribers.get(topic) ?? []) q.push(cdr, stampNs);
  }

  #claimType(topic: string, type: RosType, verb: "subscribe" | "advertise"): void {
    validateTopicName(topic, verb);
    assertSameType(topic, this.#types.get(topic), type, verb);
    this.#types.set(topic, type);
  }

  #assertOpen(what: string): void {
    if (this.#closed) throw new Error(`cannot ${what}: the replay bus is closed`);
  }

  /** Stops playback (the `play()` promise resolves with `stopped: true`), drops queued messages, closes the file. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#wake?.();
    for (const set of this.#subscribers.values()) for (const q of set) q.close();
    if (this.#playing) await this.#playing.catch(() => undefined);
    await this.#stepper?.return?.(undefined);
    await this.#source.close();
  }
}
