/**
 * `engram replay` of an episode recorded by `engram run` (a policy's episode, not a teleop one):
 * the run writes the episode's identity (engram_episode) into its MCAP, so replay re-creates the
 * scene from task + seed and re-sends the policy's recorded JointTrajectory chunks to the twin.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { loadRunConfig } from "../../src/config/loaders.js";
import { identityOf, readMcapMetadata } from "../../src/record/episodeWriter.js";
import { replayEpisode } from "../../src/app/replayCommands.js";
import { loadRobotProfile } from "../../src/robot/loadRobotProfile.js";
import { runTrial } from "../../src/app/runTrial.js";

const dir = mkdtempSync(join(tmpdir(), "engram-replay-run-"));
after(() => rmSync(dir, { recursive: true, force: true }));

test("a policy run's episode replays on the sim: identity from the run, its trajectory chunks re-sent", { timeout: 120_000 }, async () => {
  const run = loadRunConfig("launch/sim-x-one.yaml");
  const robot = loadRobotProfile(run.robotPath);
  await runTrial({ run, robot, policyPath: "policies/test-tiny", task: "put-back-block", episodes: 1, seed: 5, outDir: dir, maxSteps: 12 });
  const path = join(dir, "episodes", "0.mcap");
  const id = identityOf(await readMcapMetadata(path));
  assert.ok(id, "engram_episode metadata in the run's MCAP");
  assert.deepEqual([id.robot, id.task, id.seed, id.control_hz, id.source], ["x-one", "put-back-block", 5, 10, "policy:test-tiny"]);
  const r = await replayEpisode({ run, robot, path, to: "sim" });
  assert.ok(r.commands >= 2, `${r.commands} trajectory messages re-sent`);
  assert.ok(r.tracking.samples > 10, `${r.tracking.samples} tracking samples`);
  assert.equal(r.warning, null);
});
