/**
 * The run's preflight for the planner (trial/preflight.ts): the default learned planner on an M(n)
 * task needs a bundle with a planner section that knows the task; M(1) tasks never need one.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { loadRunConfig } from "../../src/config/loaders.js";
import { writeTestBundle } from "../../src/policy/mem0/testBundle.js";
import { addTinyPlanner, tinyPlannerWeights } from "../../src/policy/planner/testPlanner.js";
import { loadRobotProfile } from "../../src/robot/loadRobotProfile.js";
import { preflightIssues } from "../../src/trial/preflight.js";

const root = mkdtempSync(join(tmpdir(), "engram-preflight-"));
after(() => rmSync(root, { recursive: true, force: true }));
const run = loadRunConfig(new URL("../../launch/sim-x-one.yaml", import.meta.url).pathname);
const robot = loadRobotProfile(run.robotPath).profile;
const bare = join(root, "bare");
writeTestBundle(bare);
const issues = (task: string, policyPath: string) => preflightIssues({ run, robot, policyPath, task, seed: 0 });

test("learned planner (the default): M(1) needs no planner; M(n) without one is refused at policy.planner.kind", async () => {
  assert.deepEqual(await issues("put-back-block", bare), []);
  const found = await issues("cover-blocks", bare);
  assert.equal(found.length, 1, JSON.stringify(found));
  assert.equal(found[0]!.path, "policy.planner.kind");
  assert.match(found[0]!.message, /expected a bundle with a learned planner for M\(n\) task "cover-blocks"/);
  assert.match(found[0]!.message, /"oracle-list" \(privileged, ablations only\)/);
});

test("learned planner: the bundle's planner must know the task's instruction", async () => {
  const dir = join(root, "planner");
  writeTestBundle(dir);
  const vocabulary = ["cover the left block with a lid", "cover the middle block with a lid"];
  const tasks = ["Cover the three blocks with the lids from left to right, then uncover them in the order red, green, blue."];
  addTinyPlanner(dir, tinyPlannerWeights({ tasks, vocabulary, plans: [[0, 1]], slots: 2, image: { width: 8, height: 6 } }));
  assert.deepEqual(await issues("cover-blocks", dir), []);
  const other = await issues("press-button", dir);
  assert.deepEqual(other.map((i) => i.path), ["task", "planner.tasks"]);
  assert.match(other[1]!.message, /expected the instruction of task "press-button" among planner\.tasks/);
});
