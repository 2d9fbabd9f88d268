/**
 * The files of a run folder (DESIGN.md §5) and what keeps the small ones safe on a full disk.
 */
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Bus } from "../bus/types.js";
import { Secrets } from "../config/secrets.js";
import type { RecorderOptions } from "../record/mcapRecorder.js";
import { EventLog } from "./eventLog.js";
import { finishRun } from "./report.js";
import type { RunSummary } from "./summary.js";

/** Free space held back for summary.json, episodes.jsonl and report.md until the run ends. */
export const RESERVE_BYTES = 4 * 1024 * 1024;

/**
 * A run's events, episode lines and summary, with a reserve of free space taken at the start and
 * given back just before the summary is written, so a disk filled by the recordings still gets
 * the summary and every episode line. The first write failure anywhere in the run (a recording,
 * events.jsonl, episodes.jsonl) is kept with the file it names and logged as a `fault` event at
 * once; the trial reads `writeFailure` every tick and ends the episode as aborted (the robot holds).
 * Everything written goes through the run's `secrets`: events and episode lines and the summary
 * by Secrets.forLog (redacted, strings bounded), side files (figures) redacted only.
 */
export class RunFiles {
  readonly events: EventLog;
  private failure: Error | null = null;
  private readonly episodeLines: string[] = [];
  private episodesIntact = true;
  private readonly reserve: string;

  /** Creates `<outDir>/episodes/` and the reserve; throws naming the folder when the disk cannot hold it. */
  constructor(
    readonly outDir: string, bus: Bus, nowNs: () => bigint,
    /** What the run must never write (Secrets.forLog for records, redaction for side files). */
    private readonly secrets: Secrets = Secrets.none,
  ) {
    mkdirSync(join(outDir, "episodes"), { recursive: true });
    this.reserve = join(outDir, ".reserve");
    try {
      writeFileSync(this.reserve, new Uint8Array(RESERVE_BYTES));
    } catch (err) {
      rmSync(this.reserve, { force: true });
      throw new Error(`cannot reserve ${RESERVE_BYTES >> 20} MiB for the run's summary in ${outDir}: ${(err as Error).message}`);
    }
    const file = join(outDir, "events.jsonl");
    this.events = new EventLog({ bus, file, nowNs, onWriteError: (err) => this.fail(err, "events.jsonl"), secrets });
  }

  /** The first write failure of the run (its message names the file), or null. */
  get writeFailure(): Error | null {
    return this.failure;
  }

  /** Records a write failure of `file` (relative to the run folder); only the first counts. */
  fail(err: Error, file: string): void {
    if (this.failure) return;
    this.failure = err;
    this.events.emit({ event: "fault", reason: err.message, file });
  }

  /** Recorder options that report the recording's write failure here (episodes/<i>.mcap). */
  recording(episode: number): { path: string; options: RecorderOptions } {
    const rel = join("episodes", `${episode}.mcap`);
    return { path: join(this.outDir, rel), options: { onFailure: (err) => this.fail(err, rel) } };
  }

  /** Appends one line to episodes.jsonl; on failure the whole file is rewritten by `finish`. */
  appendEpisode(line: object): void {
    const text = JSON.stringify(this.secrets.forLog(line));
    this.episodeLines.push(text);
    if (!this.episodesIntact) return;
    try { appendFileSync(join(this.outDir, "episodes.jsonl"), text + "\n"); } catch (err) {
      this.episodesIntact = false;
      this.fail(new Error(`${join(this.outDir, "episodes.jsonl")}: ${(err as Error).message}`), "episodes.jsonl");
    }
  }

  /** Writes a small side file (e.g. logits-episode-0.json); a failure is recorded and the partial file removed. */
  writeSide(name: string, text: string): void {
    const path = join(this.outDir, name);
    try { writeFileSync(path, this.secrets.redact(text)); } catch (err) {
      rmSync(path, { force: true });
      this.fail(new Error(`${path}: ${(err as Error).message}`), name);
    }
  }

  /** Appends to a small side file (e.g. ticks.jsonl); a failure is recorded like writeSide's. */
  appendSide(name: string, text: string): void {
    const path = join(this.outDir, name);
    try { appendFileSync(path, this.secrets.redact(text)); } catch (err) {
      this.fail(new Error(`${path}: ${(err as Error).message}`), name);
    }
  }

  /** Gives the reserve back, completes episodes.jsonl if an append failed, writes summary.json and report.md. */
  async finish(args: Parameters<typeof finishRun>[1]): Promise<RunSummary> {
    rmSync(this.reserve, { force: true });
    this.events.retryPending();
    if (!this.episodesIntact) writeFileSync(join(this.outDir, "episodes.jsonl"), this.episodeLines.map((l) => l + "\n").join(""));
    return finishRun(this.outDir, this.secrets.forLog(args));
  }

  /** Closes events.jsonl and gives the reserve back (after `finish`, or when the run failed before it). */
  close(): void {
    this.events.retryPending();
    this.events.close();
    rmSync(this.reserve, { force: true });
  }
}
