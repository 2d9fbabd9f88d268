/**
 * scripts/test.sh runs test files two at a time, except those marked "// Runs alone (scripts/test.sh)".
 * A file that joins a real DDS graph must be marked: two such files at once would share a ROS domain
 * (or the machine's cores while one measures discovery and exits).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join, sep } from "node:path";
import { test } from "node:test";

const MARKER = /^\/\/ Runs alone \(scripts\/test\.sh\)/m;

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? testFiles(p) : e.name.endsWith(".test.ts") ? [p] : [];
  });
}

test("every test file on a real DDS graph (*.real.test.ts, or gated by test/bus/rosGate.ts) runs alone", () => {
  const dds = testFiles("test").filter((f) => f.endsWith(".real.test.ts") || /rosGate\.js"/.test(readFileSync(f, "utf8")));
  assert.ok(dds.length >= 4, `found only ${dds.join(", ")}`);
  const unmarked = dds.filter((f) => !MARKER.test(readFileSync(f, "utf8")));
  assert.deepEqual(unmarked, [], "mark them \"// Runs alone (scripts/test.sh): it talks over a real DDS.\"");
});

test("scripts/test.sh --list: every test file in exactly one pass, the marked ones alone", () => {
  const r = spawnSync("bash", ["scripts/test.sh", "--list"], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  const listed = r.stdout.trim().split("\n").map((l) => l.split(" ") as [string, string]);
  const files = testFiles("test").map((f) => f.split(sep).join("/"));
  assert.deepEqual(listed.map(([, f]) => f).sort(), files.sort());
  const alone = new Set(files.filter((f) => MARKER.test(readFileSync(f, "utf8"))));
  for (const [pass, f] of listed) assert.equal(pass, alone.has(f) ? "alone" : "paired", f);
  assert.ok(alone.has("test/cli/ros2Stop.real.test.ts") && !alone.has("test/scripts/testRunner.test.ts"));
});

test("scripts/test.sh refuses an argument it does not know, running nothing", () => {
  const r = spawnSync("bash", ["scripts/test.sh", "--lsit"], { encoding: "utf8", timeout: 10_000 });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /usage: bash scripts\/test\.sh \[--list\]\s+\(got: --lsit\)/);
  assert.equal(r.stdout, "");
});
