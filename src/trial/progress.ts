/**
 * The progress bar of a trial on stderr: episode k/N, step, elapsed time, successes. On a terminal
 * it redraws one line in place (`\r`); on a pipe or log file it prints a line at most every
 * `pipeEveryMs`, so `ros2 launch` logs stay readable.
 */

/** What the progress bar shows. */
export interface ProgressState {
  /** Episodes finished. */
  done: number;
  total: number;
  /** The running episode's step (null between episodes). */
  step: number | null;
  successes: number;
  elapsedS: number;
  /** Free text: "waiting for the operator", the last outcome... */
  note?: string;
}

/** `[#####.....] episode 3/10 step 120, 2/2 successes, 41.2 s elapsed (note)`. Pure. */
export function formatProgress(s: ProgressState, width = 20): string {
  const filled = Math.round((Math.min(s.done, s.total) / Math.max(1, s.total)) * width);
  const current = Math.min(s.total, s.done + (s.step === null ? 0 : 1));
  const episode = s.step === null ? `episode ${s.done}/${s.total}` : `episode ${current}/${s.total} step ${s.step}`;
  return `[${"#".repeat(filled)}${".".repeat(width - filled)}] ${episode}, ${s.successes}/${s.done} successes, ${s.elapsedS.toFixed(1)} s elapsed${s.note ? ` (${s.note})` : ""}`;
}

/** Draws the progress bar on a stream (default stderr). */
export class ProgressBar {
  private lastPipeMs = -Infinity;
  private drawn = false;

  constructor(private readonly out: NodeJS.WriteStream = process.stderr, private readonly pipeEveryMs = 5000) {}

  /** Redraws (terminal) or prints when due (pipe); `force` prints on a pipe regardless. */
  update(s: ProgressState, force = false): void {
    const line = formatProgress(s);
    if (this.out.isTTY) {
      this.out.write(`\r\u001b[2K${line}`);
      this.drawn = true;
      return;
    }
    const now = performance.now();
    if (!force && now - this.lastPipeMs < this.pipeEveryMs) return;
    this.lastPipeMs = now;
    this.out.write(`[run] ${line}\n`);
  }

  /** Ends the in-place line so other output (prompts, notices) starts on a fresh line. */
  clear(): void {
    if (this.out.isTTY && this.drawn) this.out.write("\r\u001b[2K");
    this.drawn = false;
  }
}
