import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { publisher } from "../bus/rx.js";
import type { Bus } from "../bus/types.js";
import { Secrets } from "../config/secrets.js";
import { codecFor } from "../msgs/codec.js";
import { EVENTS_QOS, EVENTS_TOPIC } from "../msgs/qos.js";

/** The events topic and its QoS are a topic contract (src/msgs/qos.ts). */
export { EVENTS_QOS, EVENTS_TOPIC };

/**
 * One event (DESIGN.md §3): `event` names it (episode_start, episode_end, subtask_start,
 * subtask_end, planner_call, memory, checkpoint, safety_intervention, safety_hold, hold_released,
 * fault...), the rest are its fields. `stamp_ns` and `episode` are added by the log.
 */
export type EngramEvent = { event: string } & Record<string, unknown>;

/**
 * Writes every event to `events.jsonl` (synchronously, so a crash loses nothing already emitted)
 * and publishes it on /engram/events, where the episode recorder picks it up for the MCAP.
 * bigint fields are written as decimal strings. Every string field goes through the run's
 * `secrets` first (Secrets.forLog: secrets redacted, peer text bounded), so the file, the topic,
 * the recording and the listeners all get the same safe event.
 */
export class EventLog {
  private readonly publish: ((msg: { data: string }) => void) | null;
  private readonly listeners: Array<(e: EngramEvent) => void> = [];
  episode: number | null = null;

  private fd: number | null;
  private readonly file: string | undefined;
  private readonly onWriteError: ((err: Error) => void) | undefined;
  private readonly secrets: Secrets;

  /**
   * `onWriteError`: called once when writing `file` fails (disk full); the log then only publishes.
   * `secrets`: what the run must never write (default none).
   */
  constructor(opts: {
    bus?: Bus; file?: string; nowNs: () => bigint; onWriteError?: (err: Error) => void; secrets?: Secrets;
  }) {
    this.nowNs = opts.nowNs;
    this.secrets = opts.secrets ?? Secrets.none;
    this.file = opts.file;
    this.onWriteError = opts.onWriteError;
    if (opts.file) mkdirSync(dirname(opts.file), { recursive: true });
    this.fd = opts.file ? openSync(opts.file, "a") : null;
    this.publish = opts.bus ? publisher(opts.bus, EVENTS_TOPIC, "std_msgs/msg/String", EVENTS_QOS, codecFor("std_msgs/msg/String")) : null;
  }

  private readonly nowNs: () => bigint;

  /** Stamps, writes and publishes one event. */
  emit(event: EngramEvent): void {
    const episode = this.episode === null ? {} : { episode: this.episode };
    const stamped: EngramEvent = this.secrets.forLog({ ...event, stamp_ns: this.nowNs(), ...episode });
    const line = JSON.stringify(stamped, (_k, v) => (typeof v === "bigint" ? v.toString() : v));
    if (this.fd !== null) {
      try { writeSync(this.fd, line + "\n"); } catch (err) {
        // NOTE: a half-written line may be left; the file is closed so no later line is glued to it.
        closeSync(this.fd);
        this.fd = null;
        this.onWriteError?.(new Error(`${this.file}: ${(err as Error).message}`));
      }
    }
    this.publish?.({ data: line });
    for (const l of this.listeners) l(stamped);
  }

  /** Calls `listener` with every event emitted after this call (summaries, progress lines). */
  onEvent(listener: (e: EngramEvent) => void): void {
    this.listeners.push(listener);
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
  }
}
