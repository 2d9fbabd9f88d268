/**
 * engram replay to the sim twin: an expert episode recorded (cameras off) and replayed from its
 * leader commands on a fresh sim re-creates the scene from task + seed and succeeds with a small
 * tracking error; the move to a start pose ramps through the safety filter at a fraction of the
 * limits; tracking error pairs samples by offset; a file without episode metadata is refused.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync, rmSync, statSync, truncateSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SimClock } from "../../src/bus/clock.js";
import { LocalBus } from "../../src/bus/local.js";
import { loadRunConfig } from "../../src/config/loaders.js";
import { McapRecorder } from "../../src/record/mcapRecorder.js";
import { replayEpisode } from "../../src/app/replayCommands.js";
import { moveToStart, readRecordedEpisode, trackingError } from "../../src/record/replayEpisode.js";
import { recordEpisodes } from "../../src/app/recordSession.js";
import { loadRobotProfile } from "../../src/robot/loadRobotProfile.js";
import { SimNode } from "../../src/sim/node/SimNode.js";

const dir = mkdtempSync(join(tmpdir(), "engram-replay-test-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const run = loadRunConfig("launch/sim-x-one.yaml");
const robot = loadRobotProfile(run.robotPath);
const profile = robot.profile;

before(async () => {
  await recordEpisodes({ run, robot, source: "expert", task: "put-back-block", episodes: 1, seed: 3, outDir: dir, cameras: false });
}, { timeout: 90_000 });

test("replaying a recorded expert episode on the sim reproduces success", { timeout: 90_000 }, async () => {
  const path = join(dir, "episodes", "0.mcap");
  const ep = await readRecordedEpisode(path, profile);
  assert.equal(ep.identity.seed, 3);
  assert.ok(ep.commands.length > 50 && ep.commands.every((c) => c.topic === profile.teleop.leader_topic));
  const r = await replayEpisode({ run, robot, path, to: "sim" });
  assert.equal(r.sim?.success, true, JSON.stringify(r.sim));
  // Replay stops re-sending once the task has succeeded (the expert's last commands only settle).
  assert.ok(r.commands > 50 && r.commands <= ep.commands.length, `${r.commands} of ${ep.commands.length} commands`);
  assert.deepEqual([r.start_move.reached, r.start_move.steps], [true, 0]); // the re-created scene starts at the recorded pose
  assert.ok(r.tracking.samples > 500, `${r.tracking.samples} samples`);
  assert.ok(r.tracking.rmsRad < 0.02, `tracking rms ${r.tracking.rmsRad} rad`);
  assert.ok(r.tracking.maxRad < 0.2, `tracking max ${r.tracking.maxRad} rad`);
  assert.equal(Object.keys(r.tracking.joints).length, 16);
  assert.equal(r.warning, null, "a complete file replays whole");
});

test("a truncated episode reads as a prefix, with a warning that says so", async () => {
  const path = join(dir, "episodes", "0.mcap");
  const cut = join(dir, "cut.mcap");
  copyFileSync(path, cut);
  truncateSync(cut, Math.floor(statSync(path).size / 2));
  const whole = await readRecordedEpisode(path, profile);
  const prefix = await readRecordedEpisode(cut, profile);
  assert.equal(whole.prefixWarning, null);
  assert.ok(prefix.commands.length < whole.commands.length);
  assert.match(prefix.prefixWarning ?? "", /cut\.mcap has no usable index \(it was cut or its recorder killed\): replaying only its first \d+\.\d\d s/);
});

test("moveToStart ramps to a distant pose at a quarter of the step limit", { timeout: 90_000 }, async () => {
  const bus = new LocalBus({ clock: new SimClock(1_700_000_000_000_000_000n) });
  const node = await SimNode.create({ bus, robot, cameras: false });
  try {
    node.reset();
    const target = { ...profile.home, left_joint1: 0.6, right_joint4: -1.2 };
    const moved = await moveToStart({ bus, profile, controlHz: 10, target, fraction: 0.25, pace: (ns) => node.advanceTo(ns) });
    assert.equal(moved.reached, true, JSON.stringify(moved));
    // 0.6 rad at 0.25 x 0.15 rad per tick needs >= 16 ticks.
    assert.ok(moved.steps >= 16 && moved.steps < 60, `${moved.steps} steps`);
    const q = node.world.jointPositions(), names = node.world.jointNames();
    assert.ok(Math.abs(q[names.indexOf("left_joint1")]! - 0.6) <= 0.01);
  } finally {
    node.close();
    await bus.close();
  }
});

test("trackingError pairs samples by offset, per joint, rate-scaled", () => {
  const s = (ms: number, a: number) => ({ offsetNs: BigInt(ms) * 1_000_000n, names: ["left_joint1", "left_gripper"], positions: Float64Array.of(a, 0.05) });
  const recorded = [s(0, 0), s(10, 0.1), s(20, 0.2)];
  const replayed = [s(0, 0), s(5, 0.12), s(10, 0.2)]; // at rate 2: offsets 0, 10, 20
  const e = trackingError(recorded, replayed, profile, 2);
  assert.equal(e.samples, 3);
  assert.ok(Math.abs(e.joints.left_joint1!.max - 0.02) < 1e-9);
  assert.ok(Math.abs(e.joints.left_joint1!.rms - Math.sqrt(0.0004 / 3)) < 1e-6);
  assert.equal(e.joints.left_gripper!.max, 0);
});

test("a recording without engram_episode metadata is refused, naming the file", async () => {
  const path = join(dir, "plain.mcap");
  const rec = await McapRecorder.open(path);
  await rec.close();
  await assert.rejects(readRecordedEpisode(path, profile), new RegExp(`${path.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}: no engram_episode metadata`));
});
