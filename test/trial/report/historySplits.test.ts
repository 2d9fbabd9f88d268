/** The report's retrieval split: each episode's logged split against the session starts its events name. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { historySplitsOf, splitScores } from "../../../src/trial/report/historySplits.js";

test("a split is scored against the demonstration's and each drawn session's frames, per episode", () => {
  const split = (episode: number, starts: number[], retrieved: [number, number]) => ({
    event: "memory", episode, step: 0, op: { kind: "history_split", frames: 0, starts, retrieved },
  });
  const lines = [
    { event: "demonstration_end", episode: 0, frames: 230 },
    { event: "interference", episode: 0, k: 2, frames: 64, session_frames: [32, 32] },
    split(0, [0, 262], [0, 262]),
    { event: "demonstration_end", episode: 1, frames: 231 },
    { event: "interference", episode: 1, k: 2, frames: 64, session_frames: [32, 32] },
    split(1, [0, 100, 263], [100, 263]),
    { event: "memory", episode: 1, step: 296, op: { kind: "window_clear", dropped: 3, anchorCleared: false } },
  ];
  const splits = historySplitsOf(lines);
  assert.deepEqual(splits.map((s) => [s.episode, s.truth, s.demonstrationFrames]), [
    [0, [0, 230, 262], 230], [1, [0, 231, 263], 231],
  ]);
  const scores = splitScores(splits);
  assert.equal(scores.precision, (1 + 0.5) / 2, "episode 1's split at 100 is not a boundary");
  assert.equal(scores.recall, 0.5, "the demonstration's end went unfound in both");
  assert.deepEqual([scores.demonstrationWhole, scores.withDemonstration], [1, 2]);
  assert.deepEqual(historySplitsOf([{ event: "episode_start", episode: 0 }]), [], "no retrieval, no split");
});
