import { test } from "node:test";
import assert from "node:assert/strict";
import { classifierScores, episodeEndMatch, matchSubtaskEnds, summarizeRun, wilsonInterval, type EpisodeRecord } from "../../src/trial/summary.js";

test("wilson interval matches published values", () => {
  // 45/50: Wilson 95 % = [0.7864, 0.9565] (standard tables).
  assert.deepEqual(wilsonInterval(45, 50), [0.7864, 0.9565]);
  assert.deepEqual(wilsonInterval(0, 10), [0, 0.2775]);
  assert.equal(wilsonInterval(0, 0), null);
});

test("subtask ends are matched greedily within tolerance", () => {
  assert.deepEqual(matchSubtaskEnds([12, 50, 90], [10, 60], 5), { tp: 1, fp: 2, fn: 1, offsets: [2], missed: [60], extra: [50, 90] });
  assert.deepEqual(matchSubtaskEnds([], [10], 5), { tp: 0, fp: 0, fn: 1, offsets: [], missed: [10], extra: [] });
  // The default is RMBench's +-5 steps: 6 steps early is an extra end and a missed one.
  assert.deepEqual(matchSubtaskEnds([4, 25], [10, 30]), { tp: 1, fp: 1, fn: 1, offsets: [-5], missed: [10], extra: [4] });
});

test("an extra end in an episode's last tolerance steps is not counted: the twin stops before it marks it", () => {
  // A Press Button failure of 112 steps: the confirm press at 111 ends it before the twin marks that subtask's end.
  const e = { steps: 112, declared_ends: [17, 32, 47, 76, 90, 105, 111], true_ends: [18, 33, 48, 78, 91, 105] };
  assert.deepEqual(episodeEndMatch(e), { tp: 6, fp: 0, fn: 0, offsets: [-1, -1, -1, -2, -1, 0], missed: [], extra: [] });
  // A match in the last steps counts; an extra end before them and a missed true end in them count too.
  assert.deepEqual(episodeEndMatch({ steps: 112, declared_ends: [90, 108], true_ends: [109, 111] }),
    { tp: 1, fp: 1, fn: 1, offsets: [-1], missed: [111], extra: [90] });
  const s = classifierScores([e, { steps: 600, declared_ends: [95, 165], true_ends: [96] }]);
  assert.deepEqual(s, { precision: 0.875, recall: 1, mean_offset_steps: -1 });
});

test("an episode the planner's done ended scores every extra end: its last declared end ended it", () => {
  // A Battery Try failure: a fourth end declared at 300 for a flip the twin never saw finish, then "done".
  const e = { steps: 301, declared_ends: [95, 166, 236, 300], true_ends: [96, 169, 238] };
  assert.deepEqual(episodeEndMatch(e).extra, [], "ended by the world, the end at 300 would not count");
  assert.deepEqual(episodeEndMatch({ ...e, plan_complete: true }),
    { tp: 3, fp: 1, fn: 0, offsets: [-1, -3, -2], missed: [], extra: [300] });
  assert.deepEqual(classifierScores([{ ...e, plan_complete: true }]).precision, 0.75);
});

function ep(outcome: EpisodeRecord["outcome"], reached: string[]): EpisodeRecord {
  const defined = [{ id: "a", label: "storage" as const }, { id: "b", label: "update" as const }];
  return {
    episode: 0, task: "t", seed: 1, outcome, steps: 10, duration_s: 1,
    checkpoints: defined.filter((c) => reached.includes(c.id)).map((c) => ({ ...c, step: 3 })),
    checkpoints_defined: defined, declared_ends: [5], true_ends: [6], planner_latencies_ms: [100, 300],
    safety_interventions: 2, realtime_factor: 4,
  };
}

test("summary fills every field from records and leaves what does not apply null", () => {
  const s = summarizeRun({ task: "t", policy: "p", episodes: [ep("success", ["a", "b"]), ep("failure", ["a"])], tickMs: [1, 2, 3, 4], lateTicks: 1 });
  assert.equal(s.success_rate, 0.5);
  assert.deepEqual(s.checkpoint_rates, { storage: 1, update: 0.5, compression: null });
  assert.deepEqual(s.classifier, { kind: null, privileged: null, precision: 1, recall: 1, mean_offset_steps: -1 });
  assert.deepEqual(s.planner, { kind: null, privileged: null, calls: 4, latency_ms_p50: 100 });
  const parts = { planner: { kind: "oracle-list", privileged: true }, classifier: { kind: "learned", privileged: false } };
  const named = summarizeRun({ task: "t", policy: "p", episodes: [], tickMs: [], lateTicks: 0, parts });
  assert.deepEqual([named.planner.kind, named.planner.privileged, named.classifier.kind, named.classifier.privileged],
    ["oracle-list", true, "learned", false]);
  assert.deepEqual(s.tick_ms, { p50: 2, p99: 4, late: 1 });
  assert.equal(s.safety.interventions, 4);
  const empty = summarizeRun({ task: "t", policy: "p", episodes: [], tickMs: [], lateTicks: 0 });
  assert.equal(empty.success_rate, null);
  assert.equal(empty.tick_ms.p50, null);
});
