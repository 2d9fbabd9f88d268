/**
 * The learned planner in a real run: the twin (in process) on press-button (M(n)) with a test
 * bundle carrying a tiny planner.onnx; the planner is asked at episode start, its answer becomes
 * the policy's instruction, and the events and summary.json name it (not privileged).
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { stringify } from "yaml";
import { runTrial } from "../../src/app/runTrial.js";
import { loadRunConfig } from "../../src/config/loaders.js";
import { writeTestBundle } from "../../src/policy/mem0/testBundle.js";
import { addTinyPlanner, tinyPlannerWeights } from "../../src/policy/planner/testPlanner.js";
import { loadRobotProfile } from "../../src/robot/loadRobotProfile.js";
import { getTaskSpec } from "../../src/task/index.js";
import { jsonl } from "../cli/runHarness.js";

const REPO = new URL("../../", import.meta.url).pathname;
const tmp = mkdtempSync(join(tmpdir(), "engram-learned-run-"));
after(() => rmSync(tmp, { recursive: true, force: true }));

test("press-button with planner.kind learned: the bundle's planner names the first subtask", async () => {
  const bundle = join(tmp, "bundle");
  writeTestBundle(bundle);
  const vocabulary = ["press the left button", "press the middle button", "press the confirm button"];
  const tasks = [getTaskSpec("press-button").instruction];
  addTinyPlanner(bundle, tinyPlannerWeights({ tasks, vocabulary, plans: [[0, 1, 2]], slots: 4, image: { width: 16, height: 12 } }));
  const path = join(tmp, "run.yaml");
  writeFileSync(path, stringify({
    name: "learned", robot: join(REPO, "robots/x-one.yaml"), bus: { kind: "local" },
    sim: { enabled: true, mode: "lockstep", seed: 0 }, task: "press-button", episodes: 1,
    policy: { bundle, planner: { kind: "learned" } }, control: { control_hz: 10 }, record: { enabled: false },
  }));
  const run = loadRunConfig(path);
  const robot = loadRobotProfile(run.robotPath);
  const out = join(tmp, "out");
  const summary = await runTrial({ run, robot, policyPath: bundle, task: "press-button", episodes: 1, seed: 0, outDir: out, maxSteps: 12 });
  const events = jsonl(join(out, "events.jsonl"));
  const calls = events.filter((e) => e.event === "planner_call");
  assert.ok(calls.length >= 1, JSON.stringify(events.map((e) => e.event)));
  assert.deepEqual([calls[0]!.step, calls[0]!.answer, calls[0]!.finished], [0, "press the left button", 0]);
  const start = events.find((e) => e.event === "episode_start")!;
  assert.deepEqual(start.planner, { kind: "learned", privileged: false });
  assert.equal(summary.planner.kind, "learned");
  assert.equal(summary.planner.privileged, false);
  assert.equal(summary.planner.calls, calls.length);
  const written = JSON.parse(readFileSync(join(out, "summary.json"), "utf8"));
  assert.deepEqual([written.planner.kind, written.classifier.kind, written.classifier.privileged], ["learned", "learned", false]);
  assert.match(readFileSync(join(out, "report.md"), "utf8"), /Planner: `learned`; classifier: `learned`\./);
});
