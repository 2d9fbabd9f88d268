import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import type { Bus } from "../bus/types.js";
import { Secrets } from "../config/secrets.js";
import { ENGRAM_EVENTS, eventLine, type EngramEvent } from "../msgs/events.js";

export type { EngramEvent } from "../msgs/events.js";

/**
 * Writes every event to `events.jsonl` (synchronously, so a crash loses nothing already emitted)
 * and publishes it on /engram/events, where the episode recorder picks it up for the MCAP.
 * bigint fields are written as decimal strings. Every string field goes through the run's
 * `secrets` first (Secrets.forLog: secrets redacted, peer text bounded), so the file, the topic,
 * the recording and the listeners all get the same safe event.
 */
export class EventLog {
  private readonly publish: ((cdr: Uint8Array) => void) | null;
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
    this.publish = opts.bus ? opts.bus.advertise(ENGRAM_EVENTS.topic, ENGRAM_EVENTS.type, ENGRAM_EVENTS.qos) : null;
  }

  private readonly nowNs: () => bigint;

  /** Stamps, writes and publishes one event. */
  emit(event: EngramEvent): void {
    const episode = this.episode === null ? {} : { episode: this.episode };
    const stamped: EngramEvent = this.secrets.forLog({ ...event, stamp_ns: this.nowNs(), ...episode });
    const line = eventLine(stamped);
    if (this.fd !== null) {
      try { writeSync(this.fd, line + "\n"); } catch (err) {
        // NOTE: a half-written line may be left; the file is closed so no later line is glued to it.
        closeSync(this.fd);
        this.fd = null;
        this.onWriteError?.(new Error(`${this.file}: ${(err as Error).message}`));
      }
    }
    this.publish?.(ENGRAM_EVENTS.encode(stamped));
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
