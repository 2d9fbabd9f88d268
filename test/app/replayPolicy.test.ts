/**
 * engram replay --through-policy: a short recorded expert episode (3 cameras) fed offline through
 * policies/test-tiny (tiny random weights: what it declares is not meaningful, the plumbing is):
 * every tick observed, chunks and logits written to <name>.policy.mcap, declared ends compared
 * with the annotated ones.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync, rmSync, statSync, truncateSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadRunConfig } from "../../src/config/loaders.js";
import { decode } from "../../src/msgs/codec.js";
import { McapSource } from "../../src/bus/mcapReader.js";
import { replayThroughPolicy } from "../../src/app/replayPolicy.js";
import { recordEpisodes } from "../../src/app/recordSession.js";
import { loadRobotProfile } from "../../src/robot/loadRobotProfile.js";

const dir = mkdtempSync(join(tmpdir(), "engram-through-policy-test-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const run = loadRunConfig("launch/sim-x-one.yaml");
const robot = loadRobotProfile(run.robotPath);
const STEPS = 20;

before(async () => {
  await recordEpisodes({ run, robot, source: "expert", task: "put-back-block", episodes: 1, seed: 2, outDir: dir, maxSteps: STEPS });
}, { timeout: 90_000 });

test("--through-policy writes chunks, logits and declared ends beside the episode", { timeout: 90_000 }, async () => {
  const path = join(dir, "episodes", "0.mcap");
  const r = await replayThroughPolicy({ run, robot, path, bundle: "policies/test-tiny" });
  assert.equal(r.out, join(dir, "episodes", "0.policy.mcap"));
  assert.equal(r.policy, "test-tiny");
  assert.ok(r.steps >= STEPS && r.steps <= STEPS + 1, `${r.steps} steps`);
  assert.equal(r.skipped, 0);
  assert.deepEqual(r.annotated_ends, [STEPS - 1]);
  assert.ok(r.chunks >= 1);
  const src = await McapSource.open(r.out, "indexed");
  const counts = new Map<string, number>();
  let horizon = 0;
  const logits: number[] = [];
  for await (const m of src.messages()) {
    counts.set(m.topic, (counts.get(m.topic) ?? 0) + 1);
    if (m.topic === "/engram/policy/chunk") {
      const t = decode("trajectory_msgs/msg/JointTrajectory", m.cdr);
      horizon = t.points.length;
      assert.equal(t.joint_names.length, 16);
      assert.ok(t.points.every((p) => p.positions.length === 16 && Array.from(p.positions).every(Number.isFinite)));
    }
    if (m.topic === "/engram/policy/logit") logits.push(decode("std_msgs/msg/Float32", m.cdr).data);
  }
  await src.close();
  assert.equal(counts.get("/engram/policy/logit"), r.steps);
  assert.equal(counts.get("/engram/policy/chunk"), r.chunks);
  assert.equal(counts.get("/engram/policy/subtask_end") ?? 0, r.declared_ends.length);
  assert.ok(horizon > 1 && r.chunks >= Math.ceil(r.steps / horizon), `${r.chunks} chunks of ${horizon} for ${r.steps} steps`);
  assert.ok(logits.every(Number.isFinite) && new Set(logits).size > 1, "logits vary with the observations");
  // Precision is null with no declared end; recall is over the one annotated end.
  assert.equal(r.recall, r.declared_ends.some((d) => Math.abs(d - (STEPS - 1)) <= 10) ? 1 : 0);
  assert.equal(r.warning, null, "a complete file goes through whole");
});

test("--through-policy on a file without its index warns that only a prefix went through", { timeout: 90_000 }, async () => {
  const path = join(dir, "episodes", "0.mcap");
  const cut = join(dir, "cut.mcap");
  copyFileSync(path, cut);
  truncateSync(cut, Math.floor(statSync(path).size * 0.6));
  const r = await replayThroughPolicy({ run, robot, path: cut, bundle: "policies/test-tiny" });
  assert.ok(r.steps < STEPS, `${r.steps} steps`);
  assert.match(r.warning ?? "", /cut\.mcap has no usable index \(it was cut or its recorder killed\): replaying only its first/);
});
