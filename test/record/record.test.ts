/**
 * engram record with the sim's scripted expert: 2 episodes (cameras off to keep it fast) give two
 * MCAPs with the expert's targets as leader commands, annotations (topic + metadata) and an
 * episodes.jsonl; --resume refuses a run whose rates differ; a recorder killed with SIGKILL
 * mid-episode leaves a file `engram recover` turns into a valid one with every complete chunk.
 */
// Runs alone (scripts/test.sh): it measures wall time.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadRunConfig } from "../../src/config/loaders.js";
import { decode } from "../../src/msgs/codec.js";
import { readEpisodeIndex } from "../../src/record/episodeIndex.js";
import { identityOf, readMcapMetadata, type EpisodeAnnotation } from "../../src/record/episodeWriter.js";
import { McapSource } from "../../src/bus/mcapReader.js";
import { recoverMcap } from "../../src/record/mcapRecover.js";
import { parseKeys, type KeyPress, type KeySource } from "../../src/record/teleop/keys.js";
import { recordEpisodes } from "../../src/app/recordSession.js";
import { loadRobotProfile } from "../../src/robot/loadRobotProfile.js";

const dir = mkdtempSync(join(tmpdir(), "engram-record-test-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const run = loadRunConfig("launch/sim-x-one.yaml");
const robot = loadRobotProfile(run.robotPath);

test("records 2 expert episodes: commands, annotations, index", { timeout: 90_000 }, async () => {
  const out = join(dir, "run");
  const progress: string[] = [];
  const r = await recordEpisodes({ run, robot, source: "expert", task: "put-back-block", episodes: 2, seed: 0, outDir: out, cameras: false, onProgress: (p) => progress.push(p.phase) });
  assert.equal(r.saved.length, 2);
  const index = readEpisodeIndex(out);
  assert.deepEqual(index.map((l) => [l.episode, l.seed, l.outcome, l.file]), [[0, 0, "success", "episodes/0.mcap"], [1, 1, "success", "episodes/1.mcap"]]);
  assert.ok(progress.includes("recording") && progress.filter((p) => p === "saved").length === 2);
  for (const line of index) {
    assert.equal(line.dropped, 0);
    assert.ok(line.steps > 50, `episode ${line.episode}: ${line.steps} steps`);
    const path = join(out, line.file);
    const meta = await readMcapMetadata(path);
    const id = identityOf(meta)!;
    assert.deepEqual([id.task, id.seed, id.robot, id.control_hz], ["put-back-block", line.seed, "x-one", 10]);
    const metaAnn = JSON.parse(meta.get("engram_annotations")!.get("annotations")!) as EpisodeAnnotation[];
    const src = await McapSource.open(path, "indexed");
    let leader = 0;
    const topicAnn: EpisodeAnnotation[] = [];
    for await (const m of src.messages()) {
      if (m.topic === robot.profile.teleop.leader_topic) {
        const js = decode("sensor_msgs/msg/JointState", m.cdr);
        assert.equal(js.name.length, 16);
        leader++;
      }
      if (m.topic === "/engram/annotations") topicAnn.push(JSON.parse(decode("std_msgs/msg/String", m.cdr).data) as EpisodeAnnotation);
    }
    await src.close();
    // One expert command per control step until the expert is done (it stops when the task succeeds).
    assert.ok(leader >= line.steps - 1 && leader <= line.steps, `${leader} leader commands for ${line.steps} steps`);
    assert.equal(line.annotations, 3);
    assert.deepEqual(topicAnn, metaAnn);
    for (const a of metaAnn) {
      assert.ok(a.end_step >= a.start_step);
      assert.deepEqual(a.end_label_steps, Array.from({ length: 8 }, (_, i) => a.end_step - 7 + i));
      assert.ok(BigInt(a.end_ns) > BigInt(a.start_ns));
    }
    assert.equal(metaAnn[0]!.start_step, 0);
  }
});

test("--perturb: the leader commands are the expert's clean targets, the arm runs off them (DART-style data)", { timeout: 60_000 }, async () => {
  const out = join(dir, "perturbed");
  const r = await recordEpisodes({ run, robot, source: "expert", task: "put-back-block", episodes: 1, seed: 3, outDir: out, cameras: false, maxSteps: 40, perturbRad: 0.08 });
  assert.equal(r.saved[0]!.perturb_rad, 0.08);
  assert.equal(readEpisodeIndex(out)[0]!.perturb_rad, 0.08);
  const src = await McapSource.open(join(out, r.saved[0]!.file), "indexed");
  type Joints = { name: string[]; position: ArrayLike<number> };
  let command: Joints | null = null, measured: Joints | null = null;
  let largest = 0;
  for await (const m of src.messages({ topics: [robot.profile.teleop.leader_topic, "/joint_states"] })) {
    const js = decode("sensor_msgs/msg/JointState", m.cdr);
    if (m.topic === "/joint_states") { measured = js; continue; }
    // The arm joints measured just before the next command: where the last command took the arm,
    // i.e. the executed (perturbed) target, not the recorded one.
    if (command && measured) {
      command.name.forEach((n, i) => {
        if (!n.includes("gripper")) largest = Math.max(largest, Math.abs(measured!.position[measured!.name.indexOf(n)]! - command!.position[i]!));
      });
    }
    command = js;
  }
  await src.close();
  assert.ok(largest > 0.03, `measured joints at most ${largest} rad from the recorded command`);
  await assert.rejects(
    recordEpisodes({ run, robot, source: "expert", task: "put-back-block", episodes: 1, seed: 0, outDir: join(dir, "bad"), cameras: false, perturbRad: 0.5 }),
    /std 0\.5 rad is outside \[0, 0\.3\]/);
  assert.equal(existsSync(join(dir, "bad")), false, "a refused --perturb creates nothing");
  await assert.rejects(
    recordEpisodes({ run, robot, source: "leader", task: "put-back-block", episodes: 1, seed: 0, outDir: join(dir, "bad"), cameras: false, perturbRad: 0.05 }),
    /--perturb applies to --source expert only \(got --source leader\)/);
});

/** Operator keys typed by the test: each entry is sent when `when()` first holds (checked every 20 ms). */
function scriptedKeys(script: Array<{ when: () => boolean; keys: string }>): KeySource {
  const listeners = new Set<(k: KeyPress) => void>();
  const timer = setInterval(() => {
    const next = script[0];
    if (next && next.when()) { script.shift(); for (const k of parseKeys(next.keys)) for (const l of [...listeners]) l(k); }
  }, 20);
  return { onKey: (l) => { listeners.add(l); return () => listeners.delete(l); }, close: () => clearInterval(timer) };
}

test("expert with operator keys: r discards and re-records the same seed, f saves as failure, resume continues", { timeout: 60_000 }, async () => {
  const out = join(dir, "keys");
  const phases: string[] = [];
  const keys = scriptedKeys([
    { when: () => phases.includes("recording"), keys: "r" },
    { when: () => phases.includes("discarded") && phases.lastIndexOf("recording") > phases.indexOf("discarded"), keys: "f" },
  ]);
  try {
    const r = await recordEpisodes({ run, robot, source: "expert", task: "put-back-block", episodes: 1, seed: 4, outDir: out, cameras: false, maxSteps: 12, keys, onProgress: (p) => phases.push(p.phase) });
    assert.equal(r.discarded, 1);
    assert.deepEqual(readEpisodeIndex(out).map((l) => [l.episode, l.seed, l.outcome, l.steps]), [[0, 4, "failure", 12]]);
  } finally {
    keys.close();
  }
  const more = await recordEpisodes({ run, robot, source: "expert", task: "put-back-block", episodes: 1, seed: 4, outDir: out, cameras: false, maxSteps: 12, resume: true });
  assert.deepEqual(more.saved.map((l) => [l.episode, l.seed, l.file]), [[1, 5, "episodes/1.mcap"]]);
  assert.equal(readEpisodeIndex(out).length, 2);
});

test("keyboard jog on the sim twin (real time): keys move the arm through the forwarder, n saves", { timeout: 60_000 }, async () => {
  const out = join(dir, "keyboard");
  let frames = 0, resetSeen = false;
  const keys = scriptedKeys([
    { when: () => resetSeen, keys: " " }, // skips the 30 s reset countdown
    { when: () => frames >= 3, keys: "wwwg" },
    { when: () => frames >= 15, keys: "n" },
  ]);
  try {
    const t0 = Date.now();
    const r = await recordEpisodes({ run, robot, source: "keyboard", task: "put-back-block", episodes: 1, seed: 0, outDir: out, cameras: false, keys, resetSeconds: 30, onProgress: (p) => { frames = p.frames; resetSeen ||= p.phase === "reset"; } });
    assert.deepEqual(r.saved.map((l) => [l.outcome, l.source]), [["success", "keyboard"]]);
    assert.ok(resetSeen && Date.now() - t0 < 28_000, "space skipped the reset countdown");
  } finally {
    keys.close();
  }
  const src = await McapSource.open(join(out, "episodes", "0.mcap"), "indexed");
  const names = robot.profile.joints.map((j) => j.name);
  const g = names.indexOf("left_gripper");
  let leaderClosed = false, commands = 0, firstGripper: number | null = null, lastGripper = 0;
  for await (const m of src.messages()) {
    if (m.topic === robot.profile.teleop.leader_topic) leaderClosed ||= decode("sensor_msgs/msg/JointState", m.cdr).position[g] === 0;
    if (m.topic === robot.profile.command.joint_topic) commands++;
    if (m.topic === robot.profile.joint_state.topic) {
      const js = decode("sensor_msgs/msg/JointState", m.cdr);
      lastGripper = js.position[js.name.indexOf("left_gripper")]!;
      firstGripper ??= lastGripper;
    }
  }
  await src.close();
  assert.ok(leaderClosed, "the gripper toggle reached the leader topic");
  assert.ok(commands >= 10, `${commands} forwarded commands`);
  assert.ok(firstGripper! - lastGripper > 0.02, `left gripper ${firstGripper} -> ${lastGripper} m: the follower closed it`);
});

test("--resume refuses a run whose rates differ, naming the field", async () => {
  const out = join(dir, "run");
  const other = { ...run, config: { ...run.config, sim: { ...run.config.sim, physics_hz: 480 } } };
  await assert.rejects(
    recordEpisodes({ run: other, robot, source: "expert", task: "put-back-block", episodes: 1, seed: 0, outDir: out, cameras: false, resume: true }),
    /does not match the recording it continues:\n {2}physics_hz: was 240, now 480/,
  );
  await assert.rejects(
    recordEpisodes({ run, robot, source: "expert", task: "put-back-block", episodes: 1, seed: 0, outDir: out, cameras: true, resume: true }),
    /cameras\.head: was null, now \{"name":"head"/,
  );
  await assert.rejects(
    recordEpisodes({ run, robot, source: "expert", task: "put-back-block", episodes: 1, seed: 0, outDir: out, cameras: false }),
    /already lists episodes; pass --resume/,
  );
});

/** Complete chunks in a file being written and the messages they hold (a streaming pass over what is there). */
async function completeChunks(path: string): Promise<{ chunks: number; messages: number }> {
  const src = await McapSource.open(path, "stream");
  let messages = 0;
  try {
    const chunks = (await src.scan((rec) => { if (rec.type === "Message") messages++; })).chunkCount;
    return { chunks, messages };
  } finally {
    await src.close();
  }
}

test("kill -9 mid-episode: engram recover keeps every complete chunk", { timeout: 90_000 }, async () => {
  const out = join(dir, "killed");
  // Two episodes: kill while the second is being written (the first is complete and indexed).
  const child = spawn(process.execPath, ["--import", "tsx", "src/cli.ts", "record", "launch/sim-x-one.yaml", "--episodes", "2", "--out", out, "--no-cameras"], { stdio: "ignore" });
  const file = join(out, "episodes", "1.mcap");
  const t0 = Date.now();
  // Wait until two (zstd) chunks of 256 KiB of records of episode 1 are on disk (an episode is ~850 KiB of records without cameras).
  // Messages of the complete chunks seen before the kill: recover must keep at least these (chunks
  // close by size or by time, so how many messages two chunks hold depends on the machine's load).
  let seen = { chunks: 0, messages: 0 };
  const grown = async () => existsSync(file) && statSync(file).size > 0 && (seen = await completeChunks(file)).chunks >= 2;
  while (!await grown()) {
    if (child.exitCode !== null) assert.fail(`recorder exited (${child.exitCode}) before the file grew`);
    if (Date.now() - t0 > 75_000) { child.kill("SIGKILL"); assert.fail("recording did not grow within 75 s"); }
    await new Promise((r) => setTimeout(r, 20));
  }
  child.kill("SIGKILL");
  await new Promise((r) => child.once("exit", r));
  assert.deepEqual(readEpisodeIndex(out).map((l) => l.episode), [0], "only the finished episode is indexed");
  await assert.rejects(McapSource.open(file, "indexed"), /no usable index/);
  const rec = await recoverMcap(file);
  assert.equal(rec.truncated, true);
  assert.ok(rec.chunkCount >= 2, `${rec.chunkCount} complete chunks`);
  assert.ok(rec.messageCount >= seen.messages && seen.messages > 0, `recovered ${rec.messageCount} messages, ${seen.messages} were in the complete chunks before the kill`);
  const src = await McapSource.open(rec.outPath, "indexed");
  let n = 0;
  for await (const _ of src.messages()) n++;
  await src.close();
  assert.equal(n, rec.messageCount);
  assert.equal(identityOf(await readMcapMetadata(rec.outPath))?.task, "put-back-block");
});
