/**
 * scripts/interferenceSweep.ts end to end on a tiny grid: the pool stored first by the sweep
 * (`--pool-tasks`: `engram run --history` on another task), then no history + framesamp at k = 0 and 1
 * on put-back-block (one 3-step episode per cell): every cell is a run folder, grid.md has the table per
 * task and over all tasks, the k = 1 cell's events name the distractor session, and compare/ holds the
 * side-by-side report; run again, it keeps the cells that finished with the same arguments and runs
 * the others.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";

const root = mkdtempSync(join(tmpdir(), "engram-sweep-"));
after(() => rmSync(root, { recursive: true, force: true }));

const tsx = (args: string[]) => spawnSync(process.execPath, ["--import", "tsx", ...args], { encoding: "utf8" });

test("a 1 x 2 grid plus the no-history baseline: run folders, grid.md, grid.json, compare/", {
  timeout: 300_000,
}, () => {
  const pool = join(root, "pool"), out = join(root, "sweep");
  const r = tsx(["scripts/interferenceSweep.ts", "--config", "launch/sim-x-one.yaml", "--policy", "policies/test-tiny",
    "--tasks", "put-back-block", "--strategies", "framesamp", "--k", "0,1", "--pool", pool, "--episodes", "1",
    "--pool-config", "launch/sim-x-one.yaml", "--pool-tasks", "swap-blocks", "--pool-episodes", "1",
    "--out", out, "--", "--max-steps", "3", "--no-record"]);
  assert.equal(r.status, 0, r.stderr);
  assert.ok(existsSync(join(out, "pool", "swap-blocks", "summary.json")), "the pool was stored first");
  for (const cell of ["none/k0", "framesamp/k0", "framesamp/k1"]) {
    assert.ok(existsSync(join(out, "put-back-block", cell, "summary.json")), cell);
  }
  const grid = readFileSync(join(out, "grid.md"), "utf8");
  assert.match(grid, /## put-back-block\n\n\| strategy \| k = 0 \| k = 1 \|/);
  assert.match(grid, /\| no history \| 0\/1 \(0 %-79\.4 %\) \|  \|/);
  assert.match(grid, /## All tasks/);
  const { cells } = JSON.parse(readFileSync(join(out, "grid.json"), "utf8")) as {
    cells: Array<{ strategy: string; k: number }>;
  };
  assert.deepEqual(cells.map((c) => `${c.strategy}/${c.k}`), ["none/0", "framesamp/0", "framesamp/1"]);
  const events = readFileSync(join(out, "put-back-block", "framesamp", "k1", "events.jsonl"), "utf8");
  assert.match(events, /"event":"interference","k":1,"sessions":\["000000-swap-blocks"\]/);
  assert.ok(existsSync(join(out, "compare", "compare.md")));

  assert.ok(!existsSync(`${pool}.partial`), "the pool was renamed into place once whole");

  // Resumed: the finished cells are kept, a cell that did not finish runs again, and so does every cell
  // when the arguments change (another step limit).
  rmSync(join(out, "put-back-block", "framesamp", "k1", "sweep-cell.json"));
  const sweep = (maxSteps: string) => tsx(["scripts/interferenceSweep.ts", "--config", "launch/sim-x-one.yaml",
    "--policy", "policies/test-tiny", "--tasks", "put-back-block", "--strategies", "framesamp", "--k", "0,1",
    "--pool", pool, "--episodes", "1", "--out", out, "--", "--max-steps", maxSteps, "--no-record"]);
  const again = sweep("3");
  assert.equal(again.status, 0, again.stderr);
  assert.match(again.stderr, /sweep: put-back-block none k=0: kept/);
  assert.match(again.stderr, /sweep: put-back-block framesamp k=1 \(/);
  assert.ok(existsSync(join(out, "put-back-block", "framesamp", "k1", "summary.json")));
  const changed = sweep("2");
  assert.equal(changed.status, 0, changed.stderr);
  assert.doesNotMatch(changed.stderr, /kept/);
});
