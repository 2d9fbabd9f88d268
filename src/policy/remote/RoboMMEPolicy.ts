/**
 * A policy served by RoboMME's MME-VLA server (`protocol: robomme`, docs/remote-policy.md), behind
 * the same Policy contract as RemotePolicy. The server owns the memory (FrameSamp, TokenDrop, ...):
 * observe() keeps every tick's frame and state, and they reach the server through `add_buffer`,
 * batched as RoboMME's own evaluation does: all frames since the last call, sent right before each
 * `infer` (pipelined on the socket, so no extra round trip), or earlier once `max_buffer_frames`
 * wait. act() sends `infer` with the current observation and returns the chunk's first `horizon`
 * rows. With `latency.prefetch`, the next `infer` goes out `d` ticks before the running chunk ends
 * (`d` from the measured round trips, as RemotePolicy does: chunkTiming.ts) and the reply is aligned
 * to the tick it is used at. observeDemonstration() sends a demonstration's frames as history
 * before the first act.
 *
 * Faults are PolicyConnection's (no reply within `timeout_ms`, a closed socket, a text error frame)
 * or a bad reply: observe()/act() reject naming the cause and the loop holds; reset() reconnects,
 * waiting up to `reconnect.give_up_s`.
 */
import type { RemotePolicyManifest } from "../../config/index.js";
import type { LayoutSpec } from "../../robot/types.js";
import { chunkToRobotOrder } from "../mem0/layout.js";
import type { ActionChunk, EpisodeInfo, ObserveResult, Policy, PolicySpec, PreparedObservation } from "../types.js";
import type { PolicyConnection } from "./PolicyConnection.js";
import { alignChunk, prefetchLeadTicks } from "./chunkTiming.js";
import { actionLayout, pushRecent, settle, type RemoteOptions } from "./RemotePolicy.js";
import { remoteConnection, remoteSpec, robotOrderOf } from "./remoteParts.js";
import { addBufferRequest, checkFinished, inferRequest, readChunk, RESET_REQUEST } from "./robommeWire.js";
import type { WireValue } from "./wire.js";

type WireMap = { [key: string]: WireValue };

/** An `infer` sent for observation `step`; `arrivedMs` once its reply is in. */
interface Pending {
  step: number;
  stampNs: bigint;
  sentMs: number;
  arrivedMs?: number;
  reply: Promise<WireValue | Error>;
}

/** One RoboMME policy per robot; not re-entrant (the loop awaits each call). */
export class RoboMMEPolicy implements Policy {
  readonly spec: PolicySpec;
  readonly url: string;
  private readonly conn: PolicyConnection;
  private readonly layout: LayoutSpec;
  private readonly robotOrder: string[] | undefined;
  private readonly executeSteps: number;
  private instruction = "";
  private step = 0;
  private current: PreparedObservation | null = null;
  private stamps: bigint[] = [];
  private prefetched: Pending | null = null;
  private nextChunkStep = 0;
  /** Recent `infer` round trips, ms (the prefetch lead). */
  private readonly roundTripsMs: number[] = [];
  /** Frames observed but not yet sent with `add_buffer`, in step order. */
  private unsent: PreparedObservation[] = [];
  /** Demonstration frames sent this episode: the first executed step's index (`exec_start_idx`). */
  private demonstrationFrames = 0;
  private execStartSent = false;
  /** `add_buffer` replies not yet checked; a fault among them fails the next observe() or act(). */
  private inFlight: Promise<WireValue | Error>[] = [];
  private bufferFault: Error | null = null;
  /** Counts resets: a reply (or fault) of an earlier episode that lands late is ignored. */
  private episodeEpoch = 0;
  /** Round trips of `infer` (the add_buffer before it included), ms, since construction (bench figures). */
  readonly timing = { actRoundTripMs: [] as number[] };

  constructor(
    private readonly m: RemotePolicyManifest,
    private readonly where: string,
    private readonly opts: RemoteOptions = {},
  ) {
    if (m.protocol !== "robomme" || !m.robomme) {
      throw new Error(`${where}: RoboMMEPolicy needs protocol: robomme and a robomme: mapping (it is ${m.protocol})`);
    }
    this.url = opts.url ?? m.url;
    this.conn = remoteConnection(m, where, this.url, opts);
    this.layout = actionLayout(m, opts, where);
    this.robotOrder = robotOrderOf(this.layout, opts.robot);
    this.executeSteps = Math.min(m.horizon, opts.executeSteps ?? m.latency.execute_steps ?? m.horizon);
    this.spec = remoteSpec(m);
  }

  /** Waits (with backoff, up to reconnect.give_up_s) for the server, then sends `reset` (its memory clears). */
  async reset(episode: EpisodeInfo): Promise<void> {
    this.episodeEpoch++;
    Object.assign(this, { step: 0, current: null, unsent: [], demonstrationFrames: 0, execStartSent: false });
    Object.assign(this, { inFlight: [], bufferFault: null, stamps: [], prefetched: null, nextChunkStep: 0 });
    const progress = this.opts.onProgress ?? ((line: string) => process.stderr.write(`[remote] ${line}\n`));
    await this.conn.openWithin(this.m.reconnect.give_up_s * 1000, progress);
    const reply = this.replyMap(await settle(this.conn.request(RESET_REQUEST, "reset")), "reset");
    checkFinished(reply, "reset", `${this.where}: server ${this.url}`);
    this.instruction = episode.instruction;
  }

  /** Sends nothing: the server keeps no memory across `reset`, so reset(episode) covers a session too. */
  async resetSession(): Promise<void> {}

  /** The prompt of the next `infer` (RoboMME prompts with the task goal). */
  setInstruction(text: string): void {
    this.instruction = text;
    this.prefetched = null; // a chunk for the previous prompt
  }

  /**
   * Sends a demonstration's frames and states as the episode's first history steps (observe only:
   * nothing is executed), in `add_buffer` batches of at most `max_buffer_frames`, and waits for the
   * server to hold them. Called after reset() and before the first observe().
   */
  async observeDemonstration(frames: readonly PreparedObservation[]): Promise<void> {
    if (this.step > 0) {
      const when = `after the episode's first observe() (step ${this.step})`;
      throw new Error(`${this.where}: observeDemonstration() ${when}; a demonstration comes first`);
    }
    this.demonstrationFrames += frames.length;
    this.unsent.push(...frames);
    this.flush();
    await this.drain();
  }

  /** Keeps the frame for `add_buffer`; RoboMME policies have no subtask classifier (σ(-∞) = 0, never an end). */
  async observe(obs: PreparedObservation): Promise<ObserveResult> {
    const k = this.step++;
    this.stamps[k] = obs.stampNs;
    this.current = obs;
    this.unsent.push(obs);
    if (this.unsent.length >= this.m.robomme!.max_buffer_frames) this.flush();
    this.maybePrefetch(k);
    if (this.bufferFault) return this.fault(this.bufferFault);
    return { logit: Number.NEGATIVE_INFINITY, subtaskEnded: false };
  }

  /**
   * The chunk for the current tick in robot order and units: the prefetched one aligned to this tick,
   * else `infer` now (after the unsent frames). A prefetched chunk too old or too short is dropped
   * for a fresh one (`stale_chunk` event); a fresh one that is stale, or any fault, rejects.
   */
  async act(): Promise<ActionChunk> {
    const t0 = performance.now();
    const k = this.step - 1;
    try {
      if (k < 0) throw new Error(`${this.where}: act() before observe()`);
      let pending = this.prefetched;
      this.prefetched = null;
      for (;;) {
        const req = pending ?? this.requestChunk(k);
        await this.drain();
        const reply = this.replyMap(await req.reply, "infer");
        const chunk = readChunk(reply, this.m, `${this.where}: infer step ${req.step}`);
        const roundTripMs = (req.arrivedMs ?? performance.now()) - req.sentMs;
        const ageMs = Number(this.stamps[k]! - req.stampNs) / 1e6;
        const maxAgeMs = this.m.latency.max_chunk_age_ms;
        const aligned = alignChunk(chunk.values, chunk.horizon, this.m.action_dim, req.step, k, ageMs, maxAgeMs);
        if (aligned.kind === "stale") {
          this.opts.onRemoteEvent?.({ kind: "stale_chunk", step: k, reason: aligned.reason });
          if (!pending) throw new Error(`${this.where}: ${aligned.reason}`);
          pending = null;
          continue;
        }
        pushRecent(this.roundTripsMs, roundTripMs);
        this.timing.actRoundTripMs.push(roundTripMs);
        const horizon = Math.min(aligned.horizon, this.m.horizon);
        this.nextChunkStep = k + Math.min(this.executeSteps, horizon);
        const rows = aligned.actions.subarray(0, horizon * this.m.action_dim);
        const { jointNames, actions } = chunkToRobotOrder(this.layout, rows, horizon, this.robotOrder);
        const waitedMs = performance.now() - t0;
        const prefetched = pending !== null;
        const { dropped } = aligned;
        this.opts.onRemoteEvent?.({ kind: "chunk", step: k, fromStep: req.step, dropped, waitedMs, roundTripMs, prefetched });
        return { jointNames, actions, horizon, dim: jointNames.length };
      }
    } catch (err) {
      return this.fault(err as Error);
    }
  }

  /** Closes the connection. */
  async close(): Promise<void> {
    this.conn.close();
  }

  /** Requests the next chunk early when the running one ends within the measured round trip. */
  private maybePrefetch(k: number): void {
    if (!this.m.latency.prefetch || this.prefetched || this.nextChunkStep === 0) return;
    const periodMs = k > 0 ? Number(this.stamps[k]! - this.stamps[k - 1]!) / 1e6 : 1000 / (this.m.control_hz ?? 10);
    if (k < this.nextChunkStep - prefetchLeadTicks(this.roundTripsMs, periodMs, this.m.horizon)) return;
    this.prefetched = this.requestChunk(k);
  }

  /** Sends the unsent frames, then `infer` for observation `k` (the current one). */
  private requestChunk(k: number): Pending {
    this.flush();
    const request = inferRequest(this.m, this.current!, this.instruction);
    const sentMs = performance.now();
    const reply = settle(this.conn.request(request, "infer"));
    const pending: Pending = { step: k, stampNs: this.stamps[k]!, sentMs, reply };
    void pending.reply.then(() => { pending.arrivedMs = performance.now(); });
    return pending;
  }

  /** Sends the unsent frames as `add_buffer` requests (no waiting); their replies are checked by drain(). */
  private flush(): void {
    const batch = this.m.robomme!.max_buffer_frames;
    const where = `${this.where}: server ${this.url}`;
    while (this.unsent.length) {
      const frames = this.unsent.splice(0, batch);
      // RoboMME sends exec_start_idx with the episode's first batch; demonstration batches repeat it
      // (the server keeps any value > 0).
      const execStartIdx = this.execStartSent ? 0 : this.demonstrationFrames;
      if (this.step > 0) this.execStartSent = true;
      const epoch = this.episodeEpoch;
      const reply = settle(this.conn.request(addBufferRequest(this.m, frames, execStartIdx), "add_buffer"));
      void reply.then((r) => {
        if (epoch !== this.episodeEpoch) return;
        try {
          checkFinished(this.replyMap(r, "add_buffer"), "add_buffer", where);
        } catch (err) {
          this.bufferFault ??= err as Error;
        }
      });
      this.inFlight.push(reply);
    }
  }

  /** Awaits every `add_buffer` reply in flight; throws the first fault. */
  private async drain(): Promise<void> {
    const replies = this.inFlight.splice(0);
    const where = `${this.where}: server ${this.url}`;
    for (const r of replies) checkFinished(this.replyMap(await r, "add_buffer"), "add_buffer", where);
    if (this.bufferFault) throw this.bufferFault;
  }

  /** The reply map, or throws the transport fault naming the bundle. */
  private replyMap(reply: WireValue | Error, what: string): WireMap {
    if (reply instanceof Error) throw new Error(`${this.where}: ${reply.message}`);
    const isMap = reply !== null && typeof reply === "object" && !Array.isArray(reply) && !ArrayBuffer.isView(reply);
    if (!isMap || "dtype" in reply) {
      throw new Error(`${this.where}: server ${this.url}: ${what} reply is not a map`);
    }
    return reply as WireMap;
  }

  /** Reports `err` to the event log as a fault and rejects with it (the loop holds). */
  private fault(err: Error): never {
    this.opts.onRemoteEvent?.({ kind: "fault", step: this.step - 1, reason: err.message });
    throw err;
  }
}
