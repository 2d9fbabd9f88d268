import { test } from "node:test";
import assert from "node:assert/strict";
import { LatestSensors } from "../../src/observe/latestSensors.js";

const MS = 1_000_000n;

test("snapshot is missing until every limited topic arrived", () => {
  const s = new LatestSensors<number>([{ topic: "/a", staleAfterMs: 100 }, { topic: "/b", staleAfterMs: 50 }]);
  s.update("/a", 1, 0n);
  assert.deepEqual(s.snapshot(10n * MS), { kind: "missing", topic: "/b" });
  s.update("/b", 2, 5n * MS);
  const snap = s.snapshot(10n * MS);
  assert.equal(snap.kind, "ready");
  assert.equal(snap.kind === "ready" && snap.values.get("/b")?.value, 2);
});

test("a topic older than its limit makes the snapshot stale, naming topic and age", () => {
  const s = new LatestSensors<number>([{ topic: "/joint_states", staleAfterMs: 50 }]);
  s.update("/joint_states", 1, 0n);
  assert.equal(s.snapshot(50n * MS).kind, "ready");
  assert.deepEqual(s.snapshot(80n * MS), { kind: "stale", topic: "/joint_states", ageMs: 80, limitMs: 50 });
});

test("an out-of-order older message does not replace a newer one", () => {
  const s = new LatestSensors<number>([{ topic: "/a", staleAfterMs: 100 }]);
  s.update("/a", 2, 20n * MS);
  s.update("/a", 1, 10n * MS);
  const snap = s.snapshot(30n * MS);
  assert.equal(snap.kind === "ready" && snap.values.get("/a")?.value, 2);
});
