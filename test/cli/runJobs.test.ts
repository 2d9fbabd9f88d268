/**
 * Issue 15: `engram run --jobs 2` runs a run's episodes in two worker processes and merges them into
 * the same run folder a sequential run writes: the same per-episode outcomes (outcome, steps,
 * checkpoints, subtask ends, seeds) and the same summary, less what the wall clock decides. Three
 * short test-tiny episodes with recording on: worker folders hold episodes {0, 2} and {1}, and
 * the merged episodes.jsonl points at their MCAPs.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadRunConfig } from "../../src/config/loaders.js";
import { loadRobotProfile } from "../../src/robot/loadRobotProfile.js";
import { readRunManifest } from "../../src/trial/runManifest.js";
import { runSlice } from "../../src/app/runSlice.js";
import type { RunSummary } from "../../src/trial/summary.js";
import { episodeLines, wallClockFree } from "../trial/runFolder.js";

const REPO = new URL("../../", import.meta.url).pathname;

test("run --jobs 2: same per-episode outcomes and summary as a sequential run", { timeout: 180_000 }, async () => {
  const root = mkdtempSync(join(tmpdir(), "engram-jobs-"));
  try {
    const parallel = join(root, "jobs2");
    const args = ["--import", "tsx", "src/cli.ts", "run", "launch/sim-x-one.yaml", "--policy", "policies/test-tiny", "--episodes", "3", "--seed", "40", "--max-steps", "5", "--jobs", "2", "--out", parallel, "--json"];
    const child = spawnSync(process.execPath, args, { cwd: REPO, encoding: "utf8" });
    assert.equal(child.status, 0, child.stderr);
    assert.match(child.stderr, /\[job 0\] \[run\].*seed 40:/);
    assert.match(child.stderr, /\[job 1\] \[run\].*seed 41:/);
    const printed = JSON.parse(child.stdout.trim().split("\n").at(-1)!) as RunSummary;

    const run = loadRunConfig(join(REPO, "launch/sim-x-one.yaml"));
    const sequential = join(root, "jobs1");
    const summary = await runSlice({ run, robot: loadRobotProfile(run.robotPath), policyPath: join(REPO, "policies/test-tiny"), task: "put-back-block", episodes: 3, seed: 40, maxSteps: 5, outDir: sequential });

    assert.deepEqual(wallClockFree(printed), wallClockFree(summary));
    assert.deepEqual(episodeLines(parallel), episodeLines(sequential));
    assert.deepEqual([0, 1].map((k) => readRunManifest(join(parallel, "jobs", String(k))).episode_indices), [[0, 2], [1]]);
    for (const line of readFileSync(join(parallel, "episodes.jsonl"), "utf8").trim().split("\n")) {
      const { mcap } = JSON.parse(line) as { mcap: string };
      assert.ok(existsSync(join(parallel, mcap)), `${mcap} exists`);
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("an episode starts at the same bus time and runs the same whatever ran before it in the process", { timeout: 120_000 }, async () => {
  const root = mkdtempSync(join(tmpdir(), "engram-epoch-"));
  try {
    const run = loadRunConfig(join(REPO, "launch/sim-x-one.yaml"));
    const base = { run, robot: loadRobotProfile(run.robotPath), policyPath: join(REPO, "policies/test-tiny"), task: "put-back-block", episodes: 3, seed: 40, maxSteps: 5, noRecord: true };
    await runSlice({ ...base, outDir: join(root, "all") });
    // Episode 2 alone, as the second job of two holds it after episode 0 and a shard of three alone.
    await runSlice({ ...base, shard: { index: 2, count: 3 }, outDir: join(root, "last") });
    const startOf = (dir: string) => readFileSync(join(dir, "events.jsonl"), "utf8").trim().split("\n")
      .map((l) => JSON.parse(l) as { event: string; episode?: number; stamp_ns: string })
      .find((e) => e.event === "episode_start" && e.episode === 2)!.stamp_ns;
    assert.equal(startOf(join(root, "all")), startOf(join(root, "last")));
    assert.deepEqual(episodeLines(join(root, "last")), episodeLines(join(root, "all")).slice(2));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("a lock-step episode's last command arrives in its own time, not rejected as stale at the next episode's start", { timeout: 120_000 }, async () => {
  const root = mkdtempSync(join(tmpdir(), "engram-stale-"));
  const warnings: string[] = [];
  const warn = console.warn;
  console.warn = (...args: unknown[]) => { warnings.push(args.map(String).join(" ")); };
  try {
    const run = loadRunConfig(join(REPO, "launch/sim-x-one.yaml"));
    // Seed 1001's episode ends on success with its last trajectory still in the bus's queue (found
    // in 50-episode runs: 5 such ends in 50).
    await runSlice({ run, robot: loadRobotProfile(run.robotPath), policyPath: join(REPO, "policies/mem0-tiny"), task: "put-back-block", episodes: 2, seed: 1001, noRecord: true, outDir: join(root, "run") });
  } finally {
    console.warn = warn;
    rmSync(root, { recursive: true, force: true });
  }
  assert.deepEqual(warnings.filter((w) => /rejected command/.test(w)), []);
});
