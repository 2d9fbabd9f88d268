/**
 * `engram run --history DIR`: the run appends each episode (and each demonstration) to a history
 * store as a session of the policy's features and thumbnails; a second run on the same store adds
 * to it; `--jobs` with a store is refused (one writer at a time).
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { HistoryStore } from "../../src/memory/historyStore.js";
import { writeTestBundle } from "../../src/policy/mem0/testBundle.js";
import { startRun, type Ev } from "./runHarness.js";

const root = mkdtempSync(join(tmpdir(), "engram-history-run-"));
after(() => rmSync(root, { recursive: true, force: true }));

async function run(out: string, episodes: number, args: string[]): Promise<Ev[]> {
  const r = startRun(out, "policies/test-tiny", episodes, { args: ["--max-steps", "4", ...args] });
  const exit = await r.exited;
  assert.equal(exit.code, 0, exit.stderr);
  return readFileSync(join(out, "events.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as Ev);
}

test("each episode and each demonstration becomes a stored session; a later run adds to the store", {
  timeout: 240_000,
}, async () => {
  const store = join(root, "store");
  const first = await run(join(root, "a"), 2, ["--history", store]);
  const stored = first.filter((e) => e.event === "history_session");
  assert.deepEqual(stored.map((e) => [e.id, e.kind, e.frames]), [
    ["000000-put-back-block", "episode", 4], ["000001-put-back-block", "episode", 4],
  ]);
  const ends = first.map((e, i) => [e.event, i] as const).filter(([e]) => e === "episode_end").map(([, i]) => i);
  assert.ok(first.findIndex((e) => e.event === "history_session") > ends[0]!, "stored once its episode ended");

  const demo = join(root, "a", "episodes", "0.mcap");
  const second = await run(join(root, "b"), 1, ["--history", store, "--demonstration", demo]);
  const kinds = second.filter((e) => e.event === "history_session").map((e) => [e.id, e.kind]);
  assert.deepEqual(kinds, [["000002-put-back-block", "demonstration"], ["000003-put-back-block", "episode"]]);

  const { store: opened } = await HistoryStore.open(store, 32);
  try {
    assert.deepEqual(opened.sessions().map((s) => [s.kind, s.frames > 0]), [
      ["episode", true], ["episode", true], ["demonstration", true], ["episode", true],
    ]);
    const features = opened.features("000000-put-back-block");
    assert.ok(features.every((f) => f.length === 32 && f.some((v) => v !== 0)), "the policy's features were stored");
    const nearest = opened.nearest(features[1]!);
    assert.equal(nearest?.distance, 0, "a stored frame finds itself");
  } finally {
    opened.close();
  }
});

test("--history with --jobs 2 is refused: one process writes a store", { timeout: 60_000 }, async () => {
  const r = startRun(join(root, "jobs"), "policies/test-tiny", 2, {
    args: ["--history", join(root, "jobs-store"), "--jobs", "2"],
  });
  const exit = await r.exited;
  assert.equal(exit.code, 2);
  assert.match(exit.stderr, /one process at a time writes the history store .*jobs-store: run without --jobs 2/);
});

test("--interference K draws K sessions of other tasks from the pool into memory before each episode", {
  timeout: 240_000,
}, async () => {
  const pool = join(root, "pool");
  await run(join(root, "p"), 2, ["--history", pool, "--task", "swap-blocks"]);
  const events = await run(join(root, "q"), 2, ["--interference", "2", "--distractor-pool", pool]);
  const drawn = events.filter((e) => e.event === "interference");
  assert.deepEqual(drawn.map((e) => [e.k, (e.sessions as string[]).length, e.frames]), [[2, 2, 8], [2, 2, 8]]);
  assert.ok((drawn[0]!.sessions as string[]).every((id) => id.endsWith("-swap-blocks")), "other tasks only");
  const firstStart = events.findIndex((e) => e.event === "episode_start");
  const memory = events.filter((e, i) => i > firstStart && e.event === "memory");
  assert.equal(memory[0]?.step, 0, "Mem-0's anchor is the first distractor frame (memory step 0), before any tick");
  const firstTick = events.find((e) => e.event === "first_chunk");
  assert.ok(events.indexOf(drawn[0]!) < events.indexOf(firstTick!), "the distractors are in before the first act");

  // Retrieval embeds the stored thumbnails of the drawn sessions (the split and search run on them).
  const retrieved = await run(join(root, "s"), 1, [
    "--interference", "2", "--distractor-pool", pool, "--memory", "retrieval",
  ]);
  assert.deepEqual(retrieved.filter((e) => e.event === "interference").map((e) => e.frames), [8]);
  assert.equal(retrieved.filter((e) => e.event === "episode_end").length, 1);

  const r = startRun(join(root, "r"), "policies/test-tiny", 1, {
    args: ["--interference", "3", "--distractor-pool", pool],
  });
  const exit = await r.exited;
  assert.equal(exit.code, 1);
  assert.match(
    exit.stderr,
    /interference k=3: the pool .*pool holds 2 session\(s\) of tasks other than put-back-block/,
  );

  // Another bundle's encoder (same feature length, other weights) reads nothing from this pool's features.
  const other = join(root, "other-bundle");
  writeTestBundle(other, { seed: 99 });
  const foreign = startRun(join(root, "f"), other, 1, { args: ["--interference", "1", "--distractor-pool", pool] });
  const refused = await foreign.exited;
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, new RegExp("the pool .*pool holds 2 session\\(s\\) whose features another encoder "
    + "computed \\(000000-swap-blocks: encoder [0-9a-f]{12}; this policy's encoder.onnx is [0-9a-f]{12}\\)"));
});
