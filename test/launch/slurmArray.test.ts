/**
 * Issue 15: the Slurm example (launch/slurm/) on a real Slurm. submit-eval.sh submits a 2-task
 * array job of shards and a merge job that depends on it (afterok); the merged run folder must hold
 * the same per-episode outcomes and summary as a sequential run of the same seeds. Needs a running
 * Slurm controller and node (on Debian: `apt-get install slurm-wlm munge && bash
 * launch/slurm/single-node.sh`); skipped when `sinfo` is missing or no node answers.
 */
// Runs alone (scripts/test.sh): it measures wall time.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadRunConfig } from "../../src/config/loaders.js";
import { loadRobotProfile } from "../../src/robot/loadRobotProfile.js";
import { runSlice } from "../../src/app/runSlice.js";
import { episodeLines, wallClockFree } from "../trial/runFolder.js";

const REPO = new URL("../../", import.meta.url).pathname;

function slurmNode(): string | null {
  const sinfo = spawnSync("sinfo", ["-h", "-o", "%t"], { encoding: "utf8" });
  if (sinfo.error || sinfo.status !== 0) return "no Slurm here (sinfo missing or no controller)";
  return /idle|mix|alloc/.test(sinfo.stdout) ? null : `no usable Slurm node (sinfo: ${sinfo.stdout.trim()})`;
}

const skip = slurmNode();

test("Slurm: an array job of 2 shards and a dependent merge job == a sequential run", { skip: skip ?? false, timeout: 300_000 }, async () => {
  const runDir = mkdtempSync(join(tmpdir(), "engram-slurm-"));
  try {
    const env = { ...process.env, RUN_DIR: runDir, SHARDS: "2", EPISODES: "3", SEED: "40", POLICY: "policies/test-tiny", EXTRA: "--no-record --max-steps 5" };
    const [arrayId, mergeId] = execFileSync("bash", [join(REPO, "launch/slurm/submit-eval.sh")], { env, encoding: "utf8" }).trim().split(" ");
    console.log(`submitted array job ${arrayId}, merge job ${mergeId}`);
    const merge = execFileSync("scontrol", ["show", "job", mergeId!], { encoding: "utf8" });
    assert.match(merge, new RegExp(`Dependency=afterok:${arrayId}`), "the merge waits for the whole array");

    const summaryFile = join(runDir, "merged", "summary.json");
    const t0 = performance.now();
    while (!existsSync(summaryFile)) {
      const queued = execFileSync("squeue", ["-h", "-j", `${arrayId},${mergeId}`, "-o", "%i %T"], { encoding: "utf8" }).trim();
      if (queued === "" && !existsSync(summaryFile)) assert.fail(`the jobs left the queue without a merged summary; logs:\n${logs(runDir)}`);
      if (performance.now() - t0 > 240_000) assert.fail(`timed out; queue:\n${queued}\nlogs:\n${logs(runDir)}`);
      await new Promise((r) => setTimeout(r, 1000));
    }
    const merged = JSON.parse(readFileSync(summaryFile, "utf8"));
    console.log(`merged in ${((performance.now() - t0) / 1000).toFixed(1)} s: ${JSON.stringify(merged)}`);

    const run = loadRunConfig(join(REPO, "launch/sim-x-one.yaml"));
    const sequential = join(runDir, "sequential");
    const summary = await runSlice({ run, robot: loadRobotProfile(run.robotPath), policyPath: join(REPO, "policies/test-tiny"), task: "put-back-block", episodes: 3, seed: 40, maxSteps: 5, noRecord: true, outDir: sequential });
    assert.deepEqual(wallClockFree(merged), wallClockFree(summary));
    assert.deepEqual(episodeLines(join(runDir, "merged")), episodeLines(sequential));
  } finally {
    rmSync(runDir, { recursive: true, force: true });
  }
});

function logs(dir: string): string {
  return spawnSync("bash", ["-c", `tail -n 5 ${dir}/slurm-*.out`], { encoding: "utf8" }).stdout;
}
