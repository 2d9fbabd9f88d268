/**
 * Starts the Python reference policy server (`python -m engram_ml serve` on the project's Python:
 * src/policy/remote/python.ts) on a free port for a test, with a tiny randomly initialised mem0-tiny
 * checkpoint (engram_ml.mem0_tiny.tiny_checkpoint) exported to an ONNX bundle by `engram_ml export`,
 * so the test can run the same weights in process.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pythonServerMissing as missingModules, startPolicyServer, type LocalServer } from "../../src/policy/remote/localServer.js";
import { projectPython, pythonOptions } from "../../src/policy/remote/python.js";

/** Why the server (and the ONNX export the tests compare with) cannot run here, or null. */
export const pythonServerMissing = (): string | null => missingModules(["onnx"]);

export interface TinyServer {
  url: string;
  /** The same checkpoint exported to an ONNX bundle. */
  bundle: string;
  /** The checkpoint the server runs (to start another server on it). */
  checkpoint: string;
  server: LocalServer;
  stop(): Promise<void>;
}

/** Builds the tiny checkpoint + bundle and starts the server on it (`extra` server flags, e.g. --delay-ms 150). */
export async function startTinyServer(extra: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<TinyServer> {
  const dir = mkdtempSync(join(tmpdir(), "engram-pyserver-"));
  const run = (args: string[]) => {
    const r = spawnSync(projectPython(), args, { ...pythonOptions(), encoding: "utf8" });
    if (r.status !== 0) throw new Error(`${projectPython()} ${args.join(" ")} failed: ${r.stderr}`);
  };
  run(["-m", "engram_ml.mem0_tiny.tiny_checkpoint", "policies/mem0-tiny/policy.yaml", join(dir, "tiny.pt")]);
  run(["-m", "engram_ml", "export", join(dir, "tiny.pt"), join(dir, "bundle"), "--name", "tiny-parity"]);
  const server = await startPolicyServer(["--checkpoint", join(dir, "tiny.pt"), "--port", "0", ...extra], env).catch((err: unknown) => {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  });
  return {
    url: server.url, bundle: join(dir, "bundle"), checkpoint: join(dir, "tiny.pt"), server,
    stop: async () => {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
