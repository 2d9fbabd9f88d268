/**
 * scripts/test.sh runs test files two at a time, except those marked "// Runs alone (scripts/test.sh)".
 * A file that joins a real DDS graph must be marked: two such files at once would share a ROS domain
 * (or the machine's cores while one measures discovery and exits).
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
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

test("scripts/test.sh picks the files to run alone by that marker", () => {
  const script = readFileSync("scripts/test.sh", "utf8");
  assert.match(script, /grep -l '\^\/\/ Runs alone \(scripts\/test\.sh\)'/);
  assert.match(script, /--test-concurrency=2 "\$\{paired\[@\]\}"/);
});
