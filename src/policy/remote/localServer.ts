/**
 * Starts the Python reference policy server (`python -m engram_ml serve`) as a child process on this
 * machine, for the remote bench and the tests, on the project's Python (python.ts: torch, websockets,
 * msgpack). Resolves once the server prints the URL it serves.
 */
import { spawn } from "node:child_process";
import { projectPython, pythonMissing, pythonOptions } from "./python.js";

/** Why the server cannot run here (the missing module, named), or null. `extra` adds modules a caller needs (e.g. onnx). */
export function pythonServerMissing(extra: string[] = []): string | null {
  return pythonMissing(["engram_ml", "torch", "websockets", "msgpack", "yaml", ...extra]);
}

/** A running server. */
export interface LocalServer {
  /** The ws:// or wss:// URL it printed. */
  url: string;
  port: number;
  /** Its stderr so far (tracebacks). */
  stderr(): string;
  /** SIGTERM, then resolves when it has exited. */
  stop(): Promise<void>;
}

/**
 * Runs `python -m engram_ml serve <args>` (give `--port 0` for any free port); rejects naming stderr when it
 * exits or stays silent for `startTimeoutMs`.
 */
export function startPolicyServer(args: string[], env: NodeJS.ProcessEnv = {}, startTimeoutMs = 60_000): Promise<LocalServer> {
  const python = projectPython();
  const child = spawn(python, ["-m", "engram_ml", "serve", ...args], {
    stdio: ["ignore", "pipe", "pipe"], ...pythonOptions(env),
  });
  let err = "";
  child.stderr.on("data", (d) => { err += String(d); });
  return new Promise<LocalServer>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => { child.kill("SIGTERM"); reject(new Error(`policy server did not start within ${startTimeoutMs / 1000} s: ${err}`)); }, startTimeoutMs);
    child.on("error", (e) => { clearTimeout(timer); reject(new Error(`policy server: ${python}: ${e.message}`)); });
    child.on("exit", (code) => { clearTimeout(timer); reject(new Error(`policy server exited (${code}) before serving: ${err.trim()}`)); });
    child.stdout.on("data", (d) => {
      out += String(d);
      const m = /on (wss?:\/\/\S+)/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      const url = m[1]!;
      resolve({
        url, port: Number(new URL(url).port), stderr: () => err,
        stop: async () => {
          if (child.exitCode !== null || child.signalCode !== null) return;
          const exited = new Promise((r) => child.once("exit", r));
          child.kill("SIGTERM");
          await exited;
        },
      });
    });
  });
}
