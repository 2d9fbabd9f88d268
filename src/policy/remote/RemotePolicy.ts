/**
 * A policy served by another process over a websocket (docs/remote-policy.md), behind the same
 * Policy contract as Mem0Policy. `mem0`: observe() sends every frame (the server's memory sees
 * them all), act() asks for a chunk; `openpi`: observe() keeps the frame, act() sends it to `infer`.
 *
 * Latency hiding: observe() returns the newest classifier reply instead of waiting for this tick's
 * when that would not come by the middle of the tick (`pipeline_observe`; the lag is reported); the
 * next chunk is requested `d` ticks before the running one ends (`d` from the measured round trips),
 * aligned to the tick it is used at, and never used past `max_chunk_age_ms`. Faults reject with the
 * cause (the loop holds and logs it); the connection reconnects with backoff, and reset() waits for
 * the server up to `give_up_s`. A demonstration prompt goes to a mem0 server frame by frame before the first observe.
 * NOTE: over 300 lines: observe, act and the demonstration share one episode's latency and fault state.
 */
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { RemotePolicyManifest } from "../../config/index.js";
import { getLayout, layoutNames } from "../../robot/layout.js";
import type { LayoutSpec, RobotProfile } from "../../robot/types.js";
import { chunkToRobotOrder } from "../mem0/layout.js";
import type { ActionChunk, EpisodeInfo, ObserveResult, Policy, PolicySpec, PreparedObservation } from "../types.js";
import { alignChunk, prefetchLeadTicks, ticksToReply } from "./chunkTiming.js";
import { openpiObservation } from "./openpiObservation.js";
import { PolicyConnection } from "./PolicyConnection.js";
import { checkMetadata, readActions, readObserveReply } from "./replies.js";
import { f32Array, type WireValue } from "./wire.js";

/** What the event log learns from a remote policy. */
export type RemoteEvent =
  | { kind: "connection"; what: "connected" | "disconnected" | "connect_failed"; url: string; reason?: string; attempt?: number }
  | { kind: "chunk"; step: number; fromStep: number; dropped: number; waitedMs: number; roundTripMs: number; prefetched: boolean }
  | { kind: "stale_chunk"; step: number; reason: string }
  /** observe() or act() rejected with `reason` (the loop holds and ends the episode; the run goes on). */
  | { kind: "fault"; step: number; reason: string };

/** Construction options. */
export interface RemoteOptions {
  /** Robot profile naming the action layout's joints (else `actionJointNames`). */
  robot?: RobotProfile;
  actionJointNames?: string[];
  /** Overrides the manifest's url (`--policy-url`). */
  url?: string;
  /** The run config's control.execute_steps (else the manifest's latency.execute_steps, else H). */
  executeSteps?: number | null;
  env?: NodeJS.ProcessEnv;
  onRemoteEvent?: (event: RemoteEvent) => void;
  /** Lines for the user while reset() waits for the server (default: stderr, `[remote] ` first). */
  onProgress?: (line: string) => void;
}

interface Pending { step: number; stampNs: bigint; sentMs: number; arrivedMs?: number; reply: Promise<WireValue | Error> }

/** One remote policy per robot; not re-entrant (the loop awaits each call). */
export class RemotePolicy implements Policy {
  readonly spec: PolicySpec;
  readonly url: string;
  private readonly conn: PolicyConnection;
  private readonly layout: LayoutSpec;
  private readonly robotOrder: string[] | undefined;
  private readonly executeSteps: number;
  private step = 0;
  private stamps: bigint[] = [];
  private instruction = "";
  private instructionSent: Promise<WireValue | Error> | null = null;
  private observeFault: Error | null = null;
  /** Observe replies read since the last observe() returned; `endReply` is one that declared an end carrying its chunk. */
  private observed: { step: number; logit: number; ended: boolean; endReply?: Pending }[] = [];
  private lastLogit = Number.NEGATIVE_INFINITY;
  private openpiFrame: { step: number; frame: WireValue } | null = null;
  private prefetched: Pending | null = null;
  private nextChunkStep = 0;
  /** Recent act and observe round trips, ms (the prefetch lead, and whether an observe reply fits in its tick). */
  private readonly roundTripsMs: number[] = [];
  private readonly observeRoundTripsMs: number[] = [];
  /** Round trips (send → reply) and the time observe()/act() kept the loop waiting, ms, since construction (bench figures). */
  readonly timing = { observeRoundTripMs: [] as number[], observeCallMs: [] as number[], actCallMs: [] as number[] };
  /** Counts resets: a reply (or fault) of an earlier episode that lands late is ignored. */
  private episodeEpoch = 0;

  constructor(private readonly m: RemotePolicyManifest, private readonly where: string, private readonly opts: RemoteOptions = {}) {
    this.url = opts.url ?? m.url;
    const token = m.token_env ? (opts.env ?? process.env)[m.token_env] : undefined;
    if (m.token_env && !token) throw new Error(`${where}: token_env: environment variable ${m.token_env} is not set (it holds the policy server's token)`);
    this.conn = new PolicyConnection({
      url: this.url, token, ca: m.ca_file ? readCa(m.ca_file, where) : undefined, timeoutMs: m.timeout_ms, reconnect: { initialMs: m.reconnect.initial_ms, maxMs: m.reconnect.max_ms },
      connectTimeoutMs: m.connect_timeout_ms,
      onEvent: (e) => opts.onRemoteEvent?.({ kind: "connection", what: e.kind, url: e.url, reason: e.reason, attempt: e.attempt }),
    });
    this.layout = actionLayout(m, opts, where);
    this.robotOrder = opts.robot && this.layout.kind === "joint" ? opts.robot.joints.map((j) => j.name).filter((n) => layoutNames(this.layout).includes(n)) : undefined;
    this.executeSteps = Math.min(m.horizon, opts.executeSteps ?? m.latency.execute_steps ?? m.horizon);
    this.spec = {
      name: m.name, cameras: [...m.cameras], imageSize: { width: m.image.width, height: m.image.height }, layout: m.layout.action,
      horizon: m.horizon, controlHz: m.control_hz, pixelNormalization: { mean: [...m.image.pixel_normalization.mean], std: [...m.image.pixel_normalization.std] },
    };
  }

  /** Waits (with backoff, up to reconnect.give_up_s) for the server, checks its metadata, clears its memory. */
  async reset(episode: EpisodeInfo): Promise<void> {
    this.episodeEpoch++;
    Object.assign(this, { step: 0, stamps: [], observeFault: null, observed: [], lastLogit: Number.NEGATIVE_INFINITY, openpiFrame: null, prefetched: null, nextChunkStep: 0, instructionSent: null });
    const progress = this.opts.onProgress ?? ((line: string) => process.stderr.write(`[remote] ${line}\n`));
    const metadata = await this.conn.openWithin(this.m.reconnect.give_up_s * 1000, progress);
    if (this.m.protocol === "openpi") return;
    checkMetadata(metadata, this.m, `${this.where}: server ${this.url}`);
    this.checkOk(await this.conn.request({ op: "reset", seed: episode.seed, episode: episode.episode, complexity: episode.complexity ?? "M(n)" }, "reset"), "reset");
    this.instruction = episode.instruction;
  }

  /**
   * Sends nothing: the wire's `reset` is the episode reset and clears all the server's memory (a mem0
   * server keeps none across episodes; openpi's is stateless), so reset(episode) covers a session too.
   */
  async resetSession(): Promise<void> {}

  /** Sent without waiting (the contract is synchronous); a refusal surfaces at the next observe(). */
  setInstruction(text: string): void {
    this.instruction = text;
    this.prefetched = null; // a chunk for the previous instruction
    if (this.m.protocol === "openpi") return;
    this.instructionSent = settle(this.conn.request({ op: "set_instruction", text }, "set_instruction"));
  }

  /**
   * mem0: one `demonstration` request per frame (index, count, stamp_ns, images, state), sent back to
   * back and all awaited: the server writes them to its memory as steps 0..n-1 before the first
   * `observe`. openpi servers are stateless: a demonstration cannot reach their memory, so it is refused.
   */
  async observeDemonstration(frames: readonly PreparedObservation[]): Promise<void> {
    if (this.m.protocol === "openpi") {
      throw new Error(`${this.where}: protocol openpi has no memory to show a demonstration to (use protocol mem0)`);
    }
    if (this.step !== 0) {
      throw new Error(`${this.where}: observeDemonstration() after the episode's step ${this.step} (call it right after reset)`);
    }
    await this.instructionDelivered();
    const count = frames.length;
    const replies = frames.map((obs, index) => settle(this.conn.request({
      op: "demonstration", index, count, stamp_ns: obs.stampNs, images: this.wireImages(obs),
      state: f32Array(Float32Array.from(obs.state), [obs.state.length]),
    }, "demonstration")));
    for (const reply of replies) this.checkOk(await reply, "demonstration");
  }

  observe(obs: PreparedObservation): Promise<ObserveResult> {
    const t0 = performance.now();
    return this.reported(this.observeNow(obs), t0, this.timing.observeCallMs);
  }

  act(): Promise<ActionChunk> {
    const t0 = performance.now();
    return this.reported(this.actNow(), t0, this.timing.actCallMs);
  }

  private async observeNow(obs: PreparedObservation): Promise<ObserveResult> {
    const k = this.step++;
    this.stamps[k] = obs.stampNs;
    if (this.m.protocol === "openpi") {
      this.openpiFrame = { step: k, frame: openpiObservation(this.m, obs, this.instruction) };
      this.maybePrefetch(k);
      // NOTE: openpi policies have no subtask classifier: σ(-∞) = 0, never a declared end.
      return { logit: Number.NEGATIVE_INFINITY, subtaskEnded: false };
    }
    const images = this.wireImages(obs);
    await this.instructionDelivered();
    const sentMs = performance.now();
    const reply = settle(this.conn.request({ op: "observe", step: k, stamp_ns: obs.stampNs, images, state: f32Array(Float32Array.from(obs.state), [obs.state.length]) }, "observe"));
    const epoch = this.episodeEpoch;
    const read = reply.then((r) => {
      if (epoch !== this.episodeEpoch) return;
      const roundTripMs = performance.now() - sentMs;
      this.timing.observeRoundTripMs.push(roundTripMs);
      pushRecent(this.observeRoundTripsMs, roundTripMs);
      try {
        const map = this.checkOk(r, "observe");
        const o = readObserveReply(map, `${this.where}: observe step ${k}`);
        // M(1): a declared end comes with the next chunk (docs/remote-policy.md), used as a prefetched one.
        const endReply = o.ended && map.actions !== undefined ? { step: k, stampNs: obs.stampNs, sentMs, arrivedMs: performance.now(), reply: Promise.resolve(r) } : undefined;
        this.observed.push({ step: k, ...o, endReply });
      } catch (err) { this.observeFault ??= err as Error; } });
    this.maybePrefetch(k);
    // The reply is awaited when it comes by the middle of this tick (no lag, as in process), and
    // always for the first frame; else observe() returns the newest verdict in hand.
    const pipelined = this.m.latency.pipeline_observe && this.lastLogit !== Number.NEGATIVE_INFINITY && ticksToReply(this.observeRoundTripsMs, this.periodMs(k)) > 0;
    if (!pipelined) await read;
    if (this.observeFault) throw this.observeFault;
    const newest = this.observed.splice(0);
    const ended = newest.some((o) => o.ended);
    if (newest.length) this.lastLogit = newest[newest.length - 1]!.logit;
    // After a declared end a chunk from before is void (M(n): the server cleared its memory); the end's own chunk replaces it.
    if (ended) this.prefetched = newest.filter((o) => o.ended).pop()!.endReply ?? null;
    return { logit: this.lastLogit, subtaskEnded: ended };
  }

  private async actNow(): Promise<ActionChunk> {
    const k = this.step - 1;
    if (k < 0) throw new Error(`${this.where}: act() before observe()`);
    const t0 = performance.now();
    let pending = this.prefetched;
    this.prefetched = null;
    if (pending && pending.step > k) pending = null;
    for (;;) {
      const req = pending ?? this.requestChunk(k);
      const actions = readActions(this.checkOk(await req.reply, "act"), this.m, `${this.where}: act step ${req.step}`);
      const roundTripMs = (req.arrivedMs ?? performance.now()) - req.sentMs;
      const ageMs = Number(this.stamps[k]! - req.stampNs) / 1e6;
      const aligned = alignChunk(actions.values, actions.horizon, this.m.action_dim, req.step, k, ageMs, this.m.latency.max_chunk_age_ms);
      if (aligned.kind === "stale") {
        this.opts.onRemoteEvent?.({ kind: "stale_chunk", step: k, reason: aligned.reason });
        if (!pending) throw new Error(`${this.where}: ${aligned.reason}`);
        pending = null;
        continue;
      }
      pushRecent(this.roundTripsMs, roundTripMs); // prefetched ones too: arrivedMs is their true arrival, so the lead follows the server as it slows down or recovers
      this.nextChunkStep = k + Math.min(this.executeSteps, aligned.horizon);
      this.opts.onRemoteEvent?.({ kind: "chunk", step: k, fromStep: req.step, dropped: aligned.dropped, waitedMs: performance.now() - t0, roundTripMs, prefetched: pending !== null });
      const { jointNames, actions: robotUnits } = chunkToRobotOrder(this.layout, aligned.actions, aligned.horizon, this.robotOrder);
      return { jointNames, actions: robotUnits, horizon: aligned.horizon, dim: jointNames.length };
    }
  }

  /** The observation's camera images as the wire carries them: float32 [3, H, W] per manifest camera. */
  private wireImages(obs: PreparedObservation): { [camera: string]: WireValue } {
    const images: { [camera: string]: WireValue } = {};
    for (const cam of this.m.cameras) {
      const img = obs.images[cam];
      if (!img) throw new Error(`${this.where}: observation has no image for camera "${cam}"`);
      images[cam] = f32Array(img, [3, this.m.image.height, this.m.image.width]);
    }
    return images;
  }

  /** Waits for the reply to a set_instruction sent without waiting; throws the server's refusal. */
  private async instructionDelivered(): Promise<void> {
    if (!this.instructionSent) return;
    const sent = await this.instructionSent;
    this.instructionSent = null;
    this.checkOk(sent, "set_instruction");
  }

  /** Closes the connection. */
  async close(): Promise<void> {
    this.conn.close();
  }

  /** `work`'s value; its duration from `t0` goes to `callMs`, a rejection to the event log as a fault. */
  private async reported<T>(work: Promise<T>, t0: number, callMs: number[]): Promise<T> {
    try {
      const value = await work;
      callMs.push(performance.now() - t0);
      return value;
    } catch (err) {
      this.opts.onRemoteEvent?.({ kind: "fault", step: this.step - 1, reason: (err as Error).message });
      throw err;
    }
  }

  /** Requests the next chunk early when the running one ends within the measured round trip. */
  private maybePrefetch(k: number): void {
    if (!this.m.latency.prefetch || this.prefetched || this.nextChunkStep === 0) return;
    if (k < this.nextChunkStep - prefetchLeadTicks(this.roundTripsMs, this.periodMs(k), this.m.horizon)) return;
    this.prefetched = this.requestChunk(k);
  }

  /** The control period at step k, ms: from the observation stamps, else the manifest's rate. */
  private periodMs(k: number): number {
    return k > 0 ? Number(this.stamps[k]! - this.stamps[k - 1]!) / 1e6 : 1000 / (this.m.control_hz ?? 10);
  }

  private requestChunk(k: number): Pending {
    const frame = this.m.protocol === "openpi" ? this.openpiFrame!.frame : { op: "act", step: k };
    const pending: Pending = { step: k, stampNs: this.stamps[k]!, sentMs: performance.now(), reply: settle(this.conn.request(frame, this.m.protocol === "openpi" ? "infer" : "act")) };
    void pending.reply.then(() => { pending.arrivedMs = performance.now(); });
    return pending;
  }

  /** The reply map, or throws the transport fault / the server's refusal (`ok: false`). */
  private checkOk(reply: WireValue | Error, what: string): { [key: string]: WireValue } {
    if (reply instanceof Error) throw new Error(`${this.where}: ${reply.message}`);
    if (reply === null || typeof reply !== "object" || Array.isArray(reply) || ArrayBuffer.isView(reply) || "dtype" in reply) {
      throw new Error(`${this.where}: ${what} reply is not a map`);
    }
    const map = reply as { [key: string]: WireValue };
    if (this.m.protocol === "mem0" && map.ok !== true) throw new Error(`${this.where}: server ${this.url} refused ${what}: ${typeof map.error === "string" ? map.error : "ok is not true"}`);
    return map;
  }
}

/** Appends `ms`, keeping the 50 most recent. */
export function pushRecent(window: number[], ms: number): void {
  window.push(ms);
  if (window.length > 50) window.shift();
}

/** A promise that never rejects: the error becomes its value (awaited later, or never, without an unhandled rejection). */
export function settle<T>(p: Promise<T>): Promise<T | Error> {
  return p.catch((err: unknown) => (err instanceof Error ? err : new Error(String(err))));
}

/** The PEM of `ca_file` (relative to the bundle folder), or an error naming the manifest and the file. */
export function readCa(caFile: string, where: string): Buffer {
  const path = resolve(dirname(where), caFile);
  let pem: Buffer;
  try { pem = readFileSync(path); } catch (err) { throw new Error(`${where}: ca_file: cannot read ${path}: ${(err as Error).message}`); }
  if (!pem.includes("-----BEGIN CERTIFICATE-----")) throw new Error(`${where}: ca_file: ${path} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  return pem;
}

/** The manifest's action layout in the robot profile (or named by `actionJointNames`); its dims must be action_dim. */
export function actionLayout(m: RemotePolicyManifest, opts: RemoteOptions, where: string): LayoutSpec {
  const layout: LayoutSpec = opts.robot ? getLayout(opts.robot, m.layout.action)
    : opts.actionJointNames ? { kind: "joint", names: opts.actionJointNames }
    : (() => { throw new Error(`${where}: RemotePolicy needs a robot profile or actionJointNames to name the ${m.action_dim} action dims`); })();
  const n = layoutNames(layout).length;
  if (n !== m.action_dim) throw new Error(`${where}: layout "${m.layout.action}" has ${n} dims, manifest action_dim is ${m.action_dim}`);
  return layout;
}
