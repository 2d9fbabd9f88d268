/**
 * The project's Python interpreter, found by one rule (scripts/python.sh is the same rule for the shell):
 *   1. `$ENGRAM_PYTHON`, when set;
 *   2. the project venv `<repo>/.venv/bin/python` (scripts/install-test-deps.sh makes it: Debian's python3
 *      with its system packages, torch among them, and the `engram_ml` package installed editable);
 *   3. the first of `/usr/bin/python3` and `python3` on PATH that imports torch, else `/usr/bin/python3`
 *      (a caller's module check then names what is missing).
 * Python runs with its working directory at the repo root, so `-m engram_ml` and repo-relative paths
 * work without the venv too.
 */
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repo root (this file is src/policy/remote/python.ts, or dist/policy/remote/python.js after a build). */
export const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

let probed: string | undefined;

/** The interpreter by the rule above; the PATH probe (a torch import) runs once per process. */
export function projectPython(): string {
  const fromEnv = process.env.ENGRAM_PYTHON;
  if (fromEnv) return fromEnv;
  const venv = join(REPO_ROOT, ".venv", "bin", "python");
  if (existsSync(venv)) return venv;
  if (probed === undefined) {
    const candidates = ["/usr/bin/python3", "python3"];
    probed = candidates.find((p) => spawnSync(p, ["-c", "import torch"], { stdio: "ignore" }).status === 0)
      ?? candidates[0]!;
  }
  return probed;
}

/** Spawn options for the project's Python: cwd at the repo root, `env` over this process's environment. */
export function pythonOptions(env: NodeJS.ProcessEnv = {}): { cwd: string; env: NodeJS.ProcessEnv } {
  return { cwd: REPO_ROOT, env: { ...process.env, ...env } };
}

/** Runs `python -m engram_ml <args>` to completion (stdout and stderr as text). */
export function runEngramMl(args: string[], env: NodeJS.ProcessEnv = {}): SpawnSyncReturns<string> {
  return spawnSync(projectPython(), ["-m", "engram_ml", ...args], { ...pythonOptions(env), encoding: "utf8" });
}

/** null when the project's Python imports every one of `modules`, else why not (the interpreter named). */
export function pythonMissing(modules: string[]): string | null {
  const python = projectPython();
  const r = spawnSync(python, ["-c", `import ${modules.join(", ")}`], { ...pythonOptions(), encoding: "utf8" });
  if (r.error) return `${python} cannot run: ${r.error.message} (ENGRAM_PYTHON, .venv or /usr/bin/python3)`;
  if (r.status === 0) return null;
  return `${python} cannot import ${modules.join(", ")} (bash scripts/install-test-deps.sh installs them): `
    + r.stderr.trim().split("\n").pop();
}
