/**
 * training/mem0_tiny/collect.ts on an M(n) task, through the runtime with both oracles (the expert data's
 * run config): each episode's `segments` are what the runtime told the policy, a new one after each declared
 * end, and `subtask_end` the frames where the twin first shows a subtask done. With the oracle classifier the
 * two agree, and the texts follow the twin's plan (`subtasks`).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

interface Meta {
  tmc: string; outcome: string; frames: number; subtasks: string[]; subtask_end: number[];
  segments: { text: string; start: number; end: number }[]; aux_kinds: string[];
}

test("collect.ts records an M(n) episode's runtime segments, true ends and plan", { timeout: 120_000 }, () => {
  const out = mkdtempSync(join(tmpdir(), "engram-collect-mn-"));
  const tsx = (args: string[]) => execFileSync("npx", ["tsx", ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  try {
    tsx(["training/mem0_tiny/collectorBundle.ts", "--task", "press-button", "--out", join(out, "collector"),
      "--cameras", "head,left_wrist,right_wrist", "--layout", "bimanual_16d", "--state-dim", "16", "--size", "64x48",
      "--planner", "training/planner/mn"]);
    tsx(["training/mem0_tiny/collect.ts", "--policy", join(out, "collector"), "--episodes", "1", "--seed", "3", "--beta", "1",
      "--task", "press-button", "--config", "training/mem0_tiny/sim-x-one-expert.yaml", "--out", join(out, "data"), "--name", "t"]);
    const m = JSON.parse(readFileSync(join(out, "data", "t-3.json"), "utf8")) as Meta;
    assert.equal(m.tmc, "Mn");
    assert.equal(m.outcome, "success");
    assert.ok(m.subtasks.length >= 3 && m.subtasks.at(-1) === "press the confirm button", m.subtasks.join(", "));
    // One segment per subtask, contiguous over every frame, each ending where the twin saw it end.
    assert.deepEqual(m.segments.map((s) => s.text), m.subtasks);
    assert.equal(m.segments[0]!.start, 0);
    assert.equal(m.segments.at(-1)!.end, m.frames - 1);
    m.segments.slice(1).forEach((s, i) => assert.equal(s.start, m.segments[i]!.end + 1));
    assert.deepEqual(m.segments.slice(0, -1).map((s) => s.end), m.subtask_end);
    assert.deepEqual(m.aux_kinds, ["pos", "pos", "pos", "pos", "pos", "pos", "bin", "phase"]);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
