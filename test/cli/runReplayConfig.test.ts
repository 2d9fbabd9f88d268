/**
 * `engram run <config>` with `bus.kind: replay`: the recording is the robot. The episode driver runs
 * the policy against the recorded episode (RecordingRig over the ReplayBus) and writes the run
 * folder; the recorded episode's index, task and seed are the run's.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { loadRunConfig } from "../../src/config/loaders.js";
import { recordEpisodes } from "../../src/app/recordSession.js";
import { loadRobotProfile } from "../../src/robot/loadRobotProfile.js";

const dir = mkdtempSync(join(tmpdir(), "engram-run-replay-test-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const STEPS = 15;

before(async () => {
  const run = loadRunConfig("launch/sim-x-one.yaml");
  await recordEpisodes({ run, robot: loadRobotProfile(run.robotPath), source: "expert", task: "put-back-block", episodes: 1, seed: 3, outDir: dir, maxSteps: STEPS });
  writeFileSync(join(dir, "replay.yaml"), [
    "name: replay-x-one",
    `robot: ${resolve("robots/x-one.yaml")}`,
    "bus:", "  kind: replay", `  file: ${join(dir, "episodes", "0.mcap")}`,
    "sim:", "  enabled: false",
    "task: put-back-block",
    "policy:", `  bundle: ${resolve("policies/test-tiny")}`, "  planner:", "    kind: none",
    "control:", "  control_hz: 10",
    "record:", "  enabled: true",
  ].join("\n") + "\n");
}, { timeout: 90_000 });

test("engram run with bus.kind replay runs the policy against the recording and writes the run folder", { timeout: 120_000 }, () => {
  const out = join(dir, "run");
  const r = spawnSync("npx", ["tsx", "src/cli.ts", "run", join(dir, "replay.yaml"), "--out", out, "--json"], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  const summary = JSON.parse(r.stdout.trim().split("\n").pop()!) as { episodes: number; policy: string; task: string };
  assert.equal(summary.episodes, 1);
  assert.equal(summary.policy, "test-tiny");
  assert.equal(summary.task, "put-back-block");
  const [ep] = readFileSync(join(out, "episodes.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.equal(ep!.seed, 3);
  assert.equal(ep!.outcome, "failure");
  assert.ok((ep!.steps as number) >= STEPS && (ep!.steps as number) <= STEPS + 1, `${ep!.steps} steps`);
  assert.deepEqual(ep!.true_ends, [STEPS - 1], "the annotations are the ground truth");
  assert.equal(ep!.mcap, null, "the recording is not re-recorded");
  const events = readFileSync(join(out, "events.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as { event: string; reason?: string });
  assert.equal(events.filter((e) => e.event === "episode_start").length, 1);
  assert.equal(events.find((e) => e.event === "episode_end")?.reason, "end of the recording");
  assert.ok(events.some((e) => e.event === "first_chunk"), "the policy's chunks went through the loop");
  assert.ok(existsSync(join(out, "summary.json")) && existsSync(join(out, "report.md")));
});
