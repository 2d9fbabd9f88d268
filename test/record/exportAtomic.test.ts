/**
 * Exports are whole or absent: every format (hdf5, lerobot, xpolicylab) writes a temporary sibling
 * folder and renames it into place at the end. Real failures: a LeRobot export with no ffmpeg on
 * PATH, and a run whose second episode is not an MCAP (the first is already written by then).
 * After a failure the output folder is absent (or the previous export, untouched) and no temporary
 * folder remains; a folder holding files an export does not write is refused, not deleted.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadRunConfig } from "../../src/config/loaders.js";
import { exportRunHdf5 } from "../../src/record/exportHdf5.js";
import { exportRunLeRobot } from "../../src/record/exportLeRobot.js";
import { exportRunXPolicyLab } from "../../src/record/exportXPolicyLab.js";
import { recordEpisodes } from "../../src/app/recordSession.js";
import { loadRobotProfile } from "../../src/robot/loadRobotProfile.js";
import type { RobotProfile } from "../../src/robot/types.js";

const dir = mkdtempSync(join(tmpdir(), "engram-export-atomic-test-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const run = loadRunConfig("launch/sim-x-one.yaml");
const robot = loadRobotProfile(run.robotPath);
const profile = robot.profile;
const good = join(dir, "good");
const broken = join(dir, "broken");

type Exporter = (runDir: string, profile: RobotProfile, outDir: string) => Promise<unknown>;
const FORMATS: Array<[string, Exporter]> = [
  ["hdf5", exportRunHdf5], ["lerobot", exportRunLeRobot], ["xpolicylab", exportRunXPolicyLab],
];

before(async () => {
  const task = "put-back-block";
  await recordEpisodes({ run, robot, source: "expert", task, episodes: 2, seed: 21, outDir: good, maxSteps: 6 });
  cpSync(good, broken, { recursive: true });
  writeFileSync(join(broken, "episodes", "1.mcap"), "not an MCAP file\n");
}, { timeout: 120_000 });

/** Names in `parent` that are export temporaries. */
function temporaries(parent: string): string[] {
  return readdirSync(parent).filter((n) => n.includes(".tmp-"));
}

/** Runs `fn` with PATH naming only an empty folder (no ffmpeg). */
async function withoutFfmpeg<T>(fn: () => Promise<T>): Promise<T> {
  const saved = process.env.PATH;
  const empty = mkdtempSync(join(dir, "empty-path-"));
  process.env.PATH = empty;
  try {
    return await fn();
  } finally {
    process.env.PATH = saved;
    rmSync(empty, { recursive: true, force: true });
  }
}

test("a LeRobot export without ffmpeg leaves no output folder and no temporary folder", async () => {
  const parent = join(dir, "no-ffmpeg");
  const out = join(parent, "lerobot");
  await assert.rejects(withoutFfmpeg(() => exportRunLeRobot(good, profile, out)), /ffmpeg/);
  assert.equal(existsSync(out), false, `${out} exists after a failed export`);
  assert.deepEqual(temporaries(parent), []);
});

for (const [format, exporter] of FORMATS) {
  test(`a ${format} export failing at the second episode leaves nothing behind`, { timeout: 60_000 }, async () => {
    const out = join(dir, `broken-${format}`);
    await assert.rejects(exporter(broken, profile, out), /1\.mcap is not an MCAP file/);
    assert.equal(existsSync(out), false, `${out} exists after a failed export`);
    assert.deepEqual(temporaries(dir), []);
  });
}

test("a previous export is replaced whole, and kept untouched when the next export fails", async () => {
  const out = join(dir, "again");
  await exportRunXPolicyLab(good, profile, out);
  writeFileSync(join(out, "data", "episode_0000009.hdf5"), "stale\n");
  await exportRunXPolicyLab(good, profile, out);
  assert.deepEqual(readdirSync(join(out, "data")), ["episode_0000000.hdf5", "episode_0000001.hdf5"]);
  const previous = readFileSync(join(out, "data", "episode_0000001.hdf5"));
  await assert.rejects(exportRunXPolicyLab(broken, profile, out), /1\.mcap is not an MCAP file/);
  const kept = readFileSync(join(out, "data", "episode_0000001.hdf5"));
  assert.deepEqual(kept, previous, "the previous export survives a failed one");
  assert.deepEqual(temporaries(dir), []);
});

test("an output folder holding other files is refused, nothing in it deleted", { timeout: 30_000 }, async () => {
  const out = join(dir, "mine");
  mkdirSync(out);
  writeFileSync(join(out, "notes.txt"), "keep me\n");
  const refused = /output folder .*mine holds notes\.txt, which a hdf5 export does not write/;
  await assert.rejects(exportRunHdf5(good, profile, out), refused);
  assert.deepEqual(readdirSync(out), ["notes.txt"]);
  assert.deepEqual(temporaries(dir), []);
});
