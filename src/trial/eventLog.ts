import { closeSync, fstatSync, ftruncateSync, mkdirSync, openSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import type { Bus } from "../bus/types.js";
import { Secrets } from "../config/secrets.js";
import { ENGRAM_EVENTS, eventLine, type EngramEvent } from "../msgs/events.js";

export type { EngramEvent } from "../msgs/events.js";

/** Events kept in memory after events.jsonl failed to take them (the run's reserve holds as much). */
const PENDING_LIMIT_BYTES = 1024 * 1024;

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
  /** Bytes of whole lines in the file: a failed write is cut back to here, so no half line stays. */
  private intactBytes = 0;
  /** Lines a failed write could not store, kept (up to PENDING_LIMIT_BYTES) for `retryPending`. */
  private readonly pending: string[] = [];
  private pendingBytes = 0;
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
    if (this.fd !== null) this.intactBytes = fstatSync(this.fd).size;
    this.publish = opts.bus ? opts.bus.advertise(ENGRAM_EVENTS.topic, ENGRAM_EVENTS.type, ENGRAM_EVENTS.qos) : null;
  }

  private readonly nowNs: () => bigint;

  /** Stamps, writes and publishes one event. */
  emit(event: EngramEvent): void {
    const episode = this.episode === null ? {} : { episode: this.episode };
    const stamped: EngramEvent = this.secrets.forLog({ ...event, stamp_ns: this.nowNs(), ...episode });
    const line = eventLine(stamped) + "\n";
    if (this.fd !== null) {
      const err = this.append(line);
      if (err) {
        closeSync(this.fd);
        this.fd = null;
        this.keep(line);
        this.onWriteError?.(new Error(`${this.file}: ${err.message}`));
      }
    } else if (this.file) {
      this.keep(line);
    }
    this.publish?.(ENGRAM_EVENTS.encode(stamped));
    for (const l of this.listeners) l(stamped);
  }

  /**
   * Writes the lines a failed write kept back (called once space is freed, e.g. the run's reserve
   * given back), then logs to the file again; on another failure they stay kept.
   */
  retryPending(): void {
    if (!this.file || this.fd !== null) return;
    this.fd = openSync(this.file, "a");
    while (this.pending.length > 0) {
      if (this.append(this.pending[0]!)) {
        closeSync(this.fd);
        this.fd = null;
        return;
      }
      this.pendingBytes -= Buffer.byteLength(this.pending.shift()!);
    }
  }

  /** Appends one whole line, or cuts the file back to its last whole line and returns the error. */
  private append(line: string): Error | null {
    const bytes = Buffer.from(line);
    try {
      // A short write (a disk filling up) is continued, so the next write throws the real error.
      for (let written = 0; written < bytes.length;) written += writeSync(this.fd!, bytes, written);
      this.intactBytes += bytes.length;
      return null;
    } catch (err) {
      try { ftruncateSync(this.fd!, this.intactBytes); } catch { /* the next reader skips nothing it can parse */ }
      return err as Error;
    }
  }

  private keep(line: string): void {
    const bytes = Buffer.byteLength(line);
    if (this.pendingBytes + bytes > PENDING_LIMIT_BYTES) return;
    this.pending.push(line);
    this.pendingBytes += bytes;
  }

  /** Calls `listener` with every event emitted after this call (summaries, progress lines). */
  onEvent(listener: (e: EngramEvent) => void): void {
    this.listeners.push(listener);
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}
