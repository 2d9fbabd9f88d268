import { join } from "node:path";

/** `runs/<timestamp>-<name>/` under the repo root (timestamp in UTC, filesystem-safe). */
export function defaultRunDir(root: string, name: string): string {
  const stamp = new Date().toISOString().replace(/[:]/g, "-").replace(/\.\d+Z$/, "Z");
  return join(root, "runs", `${stamp}-${name}`);
}

/**
 * SIGINT/SIGTERM (what `ros2 launch` sends, SIGTERM 5 s after SIGINT) abort `signal`, so the
 * running episode holds and the recordings are closed; a hard deadline of 4 s then exits the
 * process whatever is still running. A second signal exits at once.
 */
export function installStopSignals(deadlineMs = 4000): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | null = null;
  const onSignal = (name: NodeJS.Signals) => {
    if (controller.signal.aborted) process.exit(130);
    process.stderr.write(`[engram] ${name}: holding the robot, closing recordings\n`);
    controller.abort(new Error(name));
    timer = setTimeout(() => {
      process.stderr.write(`[engram] still stopping after ${deadlineMs} ms; exiting\n`);
      process.exit(130);
    }, deadlineMs);
    timer.unref();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  return {
    signal: controller.signal,
    dispose() {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      if (timer) clearTimeout(timer);
    },
  };
}
