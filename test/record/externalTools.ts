/**
 * The independent readers the export and recording tests hand files to (not a test itself):
 * PyPI packages in the venv scripts/install-test-deps.sh creates (`.ci/venv`, or $ENGRAM_VENV_PYTHON),
 * Debian's h5py for the project's Python (src/policy/remote/python.ts), and Debian's ffprobe. Each returns null when present, else
 * why it is missing (the caller skips with that reason).
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { projectPython } from "../../src/policy/remote/python.js";

/** The venv's python (PyPI mcap, mcap-ros2-support, pyarrow). */
export const VENV_PYTHON = process.env.ENGRAM_VENV_PYTHON ?? resolve(".ci/venv/bin/python");

/** The project's Python (Debian's h5py, numpy, Pillow through its system packages). */
export const PROJECT_PYTHON = projectPython();

/** null when `python -c "import <modules>"` works, else the reason. */
export function missingPython(python: string, modules: string[]): string | null {
  if (python.includes("/") && !existsSync(python)) return `${python} not found (bash scripts/install-test-deps.sh creates the venv)`;
  const r = spawnSync(python, ["-c", `import ${modules.join(", ")}`], { encoding: "utf8" });
  return r.status === 0 ? null : `${python} cannot import ${modules.join(", ")} (bash scripts/install-test-deps.sh installs them)`;
}

/** null when `tool -version` runs (ffmpeg, ffprobe), else the reason. */
export function missingTool(tool: string): string | null {
  const r = spawnSync(tool, ["-version"], { encoding: "utf8" });
  return r.status === 0 ? null : `${tool} is not installed (bash scripts/install-test-deps.sh installs ffmpeg)`;
}

/** Runs a python script; returns stdout, throwing with stderr when it fails. */
export function runPython(python: string, script: string, args: string[] = []): string {
  const r = spawnSync(python, ["-c", script, ...args], { encoding: "utf8", maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`python failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}
