/**
 * Issue 15: `engram merge` of a run's shards recomputes the summary a sequential run writes. Five
 * short test-tiny Put Back Block episodes run once unsharded and once as 4 shards (`--shard i/4`,
 * round-robin: 2+1+1+1 episodes), all in this process; the merged summary equals the unsharded one
 * in every field that does not come from the wall clock (tick times and the real-time factor are
 * measured, so those are checked by merging the unsharded folder alone, which must reproduce its
 * own summary.json exactly). Merge refuses slices of different runs, naming the field, and a
 * missing shard, naming the episodes.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadRunConfig } from "../../src/config/loaders.js";
import { loadRobotProfile } from "../../src/robot/loadRobotProfile.js";
import { mergeRuns } from "../../src/trial/mergeRuns.js";
import { manifestDifference, readRunManifest } from "../../src/trial/runManifest.js";
import { runSlice } from "../../src/app/runSlice.js";
import { parseSlice, sliceEpisodes } from "../../src/trial/slices.js";
import { episodeLines, wallClockFree } from "./runFolder.js";

const EPISODES = 5;

test("slices: i/N parsing names the flag; round-robin shares cover every episode once", () => {
  assert.deepEqual(parseSlice("2/4", "shard"), { index: 2, count: 4 });
  assert.throws(() => parseSlice("4/4", "shard"), /--shard 4\/4: expected 0 <= i < N/);
  assert.throws(() => parseSlice("1-4", "shard"), /--shard expects i\/N/);
  const all = [0, 1, 2, 3, 4, 5, 6];
  const shares = [0, 1, 2].map((i) => sliceEpisodes(all, { index: i, count: 3 }));
  assert.deepEqual(shares, [[0, 3, 6], [1, 4], [2, 5]]);
});

test("merge of 4 shards == the unsharded run's summary; merge refuses slices of different runs", { timeout: 180_000 }, async () => {
  const root = mkdtempSync(join(tmpdir(), "engram-merge-"));
  try {
    const run = loadRunConfig("launch/sim-x-one.yaml");
    const common = { run, robot: loadRobotProfile(run.robotPath), policyPath: "policies/test-tiny", task: "put-back-block", episodes: EPISODES, seed: 300, maxSteps: 6, noRecord: true };
    const whole = join(root, "whole");
    const summary = await runSlice({ ...common, outDir: whole });
    const shards = [0, 1, 2, 3].map((i) => join(root, `shard-${i}`));
    for (const [i, dir] of shards.entries()) await runSlice({ ...common, outDir: dir, shard: { index: i, count: 4 } });
    assert.deepEqual(readRunManifest(shards[0]!).episode_indices, [0, 4]);

    const merged = await mergeRuns([...shards].reverse(), join(root, "merged"));
    assert.equal(merged.episodes, EPISODES);
    assert.deepEqual(wallClockFree(merged), wallClockFree(summary), "every figure that does not come from the wall clock");
    assert.deepEqual(episodeLines(join(root, "merged")), episodeLines(whole), "per-episode outcomes, steps, checkpoints, ends, in episode order");
    assert.deepEqual(JSON.parse(readFileSync(join(root, "merged", "summary.json"), "utf8")), merged);
    assert.match(readFileSync(join(root, "merged", "report.md"), "utf8"), new RegExp(`\\| episodes \\| ${EPISODES} \\|`));
    // Every episode's classifier trace (with the bundle's threshold) is kept, by its slice and by the merge.
    for (let k = 0; k < EPISODES; k++) {
      const logits = JSON.parse(readFileSync(join(root, "merged", `logits-episode-${k}.json`), "utf8")) as { logits: number[]; threshold: number };
      assert.deepEqual([logits.logits.length, logits.threshold], [6, 0.5], `episode ${k}'s logits`);
    }
    // Tick figures and the real-time factor: recomputed from ticks.jsonl exactly as the run computed them.
    assert.deepEqual(await mergeRuns([whole], join(root, "whole-again")), summary);

    // A shard of another run (here: another step limit) is refused, naming the field.
    const other = join(root, "other");
    cpSync(shards[3]!, other, { recursive: true });
    const manifest = JSON.parse(readFileSync(join(other, "run.json"), "utf8")) as Record<string, unknown>;
    writeFileSync(join(other, "run.json"), JSON.stringify({ ...manifest, max_steps: 7 }));
    await assert.rejects(mergeRuns([shards[0]!, shards[1]!, shards[2]!, other], join(root, "bad")), /differ in max_steps: 6 vs 7/);
    assert.equal(manifestDifference(readRunManifest(shards[0]!), { ...readRunManifest(shards[0]!), policy: { bundle: "test-tiny", sha256: "0" } })?.startsWith("policy.sha256:"), true);
    // A missing shard: its episodes are named.
    await assert.rejects(mergeRuns([shards[0]!, shards[1]!, shards[3]!], join(root, "gap")), /episodes 2 of 5 are in none of the given slices/);
    await assert.rejects(mergeRuns([shards[0]!, shards[0]!], join(root, "dup")), /episode 0 is in both/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
