/**
 * policies/mem0-tiny-mn, the CI smoke of Mem-0's dual system on the M(n) tasks (the trained bundle; its
 * 50-episode tables are training/mem0_tiny/evaluate.sh's, not CI's): the bundle and its per-task bundles
 * (policies/mem0-tiny-mn-<task>) load with their planners and pass the checks, and two short Press Button
 * episodes run closed loop on the twin with the learned classifier declaring the subtask ends and the learned
 * planner answering from them.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runTrial } from "../../src/app/runTrial.js";
import { loadRunConfig } from "../../src/config/loaders.js";
import { mem0BundleIssues } from "../../src/policy/mem0/bundle.js";
import { learnedPlannerIssues } from "../../src/policy/planner/learned.js";
import { loadRobotProfile } from "../../src/robot/loadRobotProfile.js";
import { jsonl } from "../cli/runHarness.js";

const BUNDLE = "policies/mem0-tiny-mn";
const absent = (bundle: string) => existsSync(join(bundle, "policy.yaml")) ? false : `${bundle} absent: training/mem0_tiny/mn.sh makes it`;
const skip = absent(BUNDLE);

const OWN = ["press-button", "cover-blocks", "blocks-ranking-try", "battery-try"].map((task) => `${BUNDLE}-${task}`);
for (const bundle of [BUNDLE, ...OWN]) {
  test(`${bundle}: bundle, planner and tokenizer pass the checks`, { skip: absent(bundle) }, async () => {
    assert.deepEqual(await mem0BundleIssues(bundle), []);
    assert.deepEqual(await learnedPlannerIssues(bundle), []);
  });
}

test("mem0-tiny-mn: two Press Button episodes, the learned classifier and planner closing the loop", { skip, timeout: 300_000 }, async () => {
  const out = mkdtempSync(join(tmpdir(), "engram-mn-smoke-"));
  try {
    const run = loadRunConfig("launch/sim-x-one.yaml");
    const summary = await runTrial({
      run, robot: loadRobotProfile(run.robotPath), policyPath: BUNDLE, task: "press-button", episodes: 2, seed: 1000,
      outDir: out, noRecord: true,
    });
    assert.equal(summary.aborted, null);
    assert.deepEqual([summary.planner.kind, summary.planner.privileged, summary.classifier.kind], ["learned", false, "learned"]);
    const events = jsonl(join(out, "events.jsonl"));
    const ends = events.filter((e) => e.event === "classifier_end");
    const calls = events.filter((e) => e.event === "planner_call");
    const done = events.filter((e) => e.event === "planner_failure" && /answered done/.test(String(e.reason)));
    // Each episode asks at its start, then once per end the classifier declared; "done" ends the plan.
    assert.equal(calls.length + done.length, 2 + ends.length, JSON.stringify(events.map((e) => e.event)));
    assert.ok(ends.length >= 1, "the classifier declared no subtask end in two episodes");
    for (const c of calls) assert.match(String(c.answer), /^press the (left|middle|confirm) button$/);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
