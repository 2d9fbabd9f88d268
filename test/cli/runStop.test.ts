/**
 * `engram run` on the sim twin, as a process: SIGINT mid-episode exits within 4 s with a valid,
 * indexed MCAP holding everything up to the signal (the shutdown hold and episode_end included)
 * and the run folder written for the episodes that ran; a policy whose act() throws holds first,
 * ends the run and exits 1 naming the reason.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { decode } from "../../src/msgs/codec.js";
import { McapSource } from "../../src/record/mcapReader.js";
import { loadRobotProfile } from "../../src/robot/index.js";
import { bundleVariant, failingActionHead } from "../control/faultSimRig.js";

const REPO = new URL("../../", import.meta.url).pathname;
const COMMAND_TOPIC = loadRobotProfile(join(REPO, "robots/x-one.yaml")).profile.command.joint_topic;
const tmp = mkdtempSync(join(tmpdir(), "engram-run-stop-"));
after(() => rmSync(tmp, { recursive: true, force: true }));

interface Exit { code: number | null; signal: NodeJS.Signals | null; atMs: number; stderr: string }

function startRun(out: string, policy: string, episodes: number): { child: ChildProcess; exited: Promise<Exit>; stderr: () => string } {
  const child = spawn(process.execPath, ["--import", "tsx", "src/cli.ts", "run", "launch/sim-x-one.yaml", "--policy", policy, "--episodes", String(episodes), "--out", out], {
    cwd: REPO, stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (c) => { stderr += String(c); });
  child.stdout!.resume();
  const exited = new Promise<Exit>((resolve) => child.on("exit", (code, signal) => resolve({ code, signal, atMs: performance.now(), stderr })));
  return { child, exited, stderr: () => stderr };
}

async function until(what: string, ok: () => boolean, timeoutMs: number, exited: Promise<Exit>): Promise<void> {
  let done: Exit | null = null;
  void exited.then((e) => { done = e; });
  const t0 = performance.now();
  while (!ok()) {
    if (done) throw new Error(`engram run exited (${(done as Exit).code}) before ${what}: ${(done as Exit).stderr}`);
    if (performance.now() - t0 > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

type Ev = { event: string; [k: string]: unknown };

/** Events, the command topic's message count and joint-state log times, read through the MCAP index. */
async function readEpisode(path: string): Promise<{ mode: string; events: Ev[]; commands: number; lastCommandPoints: number; joints: bigint[]; lastNs: bigint }> {
  const src = await McapSource.open(path, "indexed"); // throws when the file has no usable index
  try {
    const events: Ev[] = [];
    const joints: bigint[] = [];
    let commands = 0, lastCommandPoints = -1;
    let lastNs = 0n;
    for await (const m of src.messages({ topics: ["/engram/events", "/joint_states", COMMAND_TOPIC] })) {
      if (m.logTimeNs > lastNs) lastNs = m.logTimeNs;
      if (m.topic === "/engram/events") events.push(JSON.parse(decode("std_msgs/msg/String", m.cdr).data) as Ev);
      else if (m.topic === "/joint_states") joints.push(m.logTimeNs);
      else { commands++; lastCommandPoints = decode("trajectory_msgs/msg/JointTrajectory", m.cdr).points.length; }
    }
    return { mode: src.mode, events, commands, lastCommandPoints, joints, lastNs };
  } finally {
    await src.close();
  }
}

const jsonl = (path: string) => readFileSync(path, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l) as Ev);

test("SIGINT mid-episode: exit 130 within 4 s, MCAP indexed and complete up to the signal, run folder written", { timeout: 150_000 }, async () => {
  const out = join(tmp, "sigint");
  const mcap = join(out, "episodes", "0.mcap");
  const run = startRun(out, "policies/test-tiny", 3);
  try {
    // Wait until the first episode has been running for a while (the MCAP has grown past a few chunks).
    await until("episode 0's MCAP to grow past 24 MB", () => existsSync(mcap) && statSync(mcap).size > 24 * 2 ** 20, 120_000, run.exited);
  } catch (err) {
    run.child.kill("SIGKILL");
    throw err;
  }
  const signalAt = performance.now();
  run.child.kill("SIGINT");
  const exit = await run.exited;
  const exitMs = exit.atMs - signalAt;
  process.stdout.write(`# SIGINT → exit in ${exitMs.toFixed(0)} ms\n`);
  assert.ok(exitMs < 4000, `exit took ${exitMs.toFixed(0)} ms after SIGINT (limit 4000): ${exit.stderr}`);
  assert.equal(exit.code, 130, exit.stderr);
  assert.match(exit.stderr, /SIGINT: holding the robot/);
  assert.doesNotMatch(exit.stderr, /still stopping after/, "the hard deadline fired instead of a clean stop");

  const ep = await readEpisode(mcap);
  assert.equal(ep.mode, "indexed");
  const names = ep.events.map((e) => e.event);
  assert.equal(names[0], "episode_start");
  const shutdown = ep.events.find((e) => e.event === "safety_hold" && e.reason === "shutdown");
  assert.ok(shutdown, `no shutdown hold in ${names.join(",")}`);
  assert.match(String(shutdown.details), /interrupted \(SIGINT\)/);
  const end = ep.events.at(-1)!;
  assert.equal(end.event, "episode_end");
  assert.equal(end.outcome, "aborted");
  assert.ok(names.indexOf("safety_hold") < names.indexOf("episode_end"));
  // Complete up to the signal: the joint states (100 Hz, on 240 Hz physics steps: 8.3 or 12.5 ms
  // apart) cover the whole episode without a gap, up to the tick the abort was seen.
  const steps = end.steps as number;
  assert.ok(steps >= 5, `${steps} steps before the signal`);
  const gaps = ep.joints.slice(1).map((t, i) => t - ep.joints[i]!);
  assert.ok(gaps.every((g) => g > 0n && g <= 12_500_000n), `joint-state gaps ${[...new Set(gaps)].join(",")}`);
  const coveredNs = ep.joints.at(-1)! - ep.joints[0]!;
  assert.ok(coveredNs >= BigInt(steps - 1) * 100_000_000n, `joint states cover ${coveredNs} ns for ${steps} steps`);
  assert.ok(ep.commands >= 2, `${ep.commands} commands`);
  assert.equal(ep.lastCommandPoints, 1, "the last command recorded is the one-point hold");
  assert.ok(ep.lastNs - ep.joints.at(-1)! <= 100_000_000n, "nothing recorded long after the last tick");

  const episodes = jsonl(join(out, "episodes.jsonl"));
  assert.equal(episodes.length, 1, "only the interrupted episode ran");
  assert.equal(episodes[0]!.outcome, "aborted");
  assert.equal(episodes[0]!.mcap, "episodes/0.mcap");
  const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as { episodes: number; aborted: { episode: number; reason: string; interrupted: boolean } };
  assert.equal(summary.episodes, 1);
  assert.deepEqual(summary.aborted, { episode: 0, reason: "interrupted (SIGINT)", interrupted: true });
  assert.ok(existsSync(join(out, "report.md")));
  const logged = jsonl(join(out, "events.jsonl"));
  assert.ok(logged.some((e) => e.event === "safety_hold" && e.reason === "shutdown"));
  assert.ok(!existsSync(join(out, "episodes", "1.mcap")), "no second episode started");
});

test("a policy whose act() throws: hold first, the run ends, exit 1 naming the reason", { timeout: 150_000 }, async () => {
  const out = join(tmp, "act-throws");
  const bundle = bundleVariant("act-throws", { actionHead: failingActionHead() });
  try {
    const run = startRun(out, bundle, 2);
    const timer = setTimeout(() => run.child.kill("SIGKILL"), 120_000);
    const exit = await run.exited;
    clearTimeout(timer);
    assert.equal(exit.code, 1, exit.stderr);
    assert.match(exit.stderr, /\[run\] aborted in episode 0: .*(out of (data )?bounds|indices)/i);

    const ep = await readEpisode(join(out, "episodes", "0.mcap"));
    const names = ep.events.map((e) => e.event);
    const hold = names.findIndex((n, i) => n === "safety_hold" && ep.events[i]!.reason === "error");
    assert.ok(hold >= 0, names.join(","));
    assert.ok(hold < names.indexOf("fault") && names.indexOf("fault") < names.indexOf("episode_end"), names.join(","));
    assert.equal(ep.events.at(-1)!.outcome, "aborted");
    assert.ok(ep.commands >= 1, "the hold command was published and recorded");
    assert.equal(ep.lastCommandPoints, 1, "the last command is the one-point hold");

    const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as { episodes: number; aborted: { reason: string; interrupted: boolean } };
    assert.equal(summary.episodes, 1, "the run stopped after the failed episode");
    assert.equal(summary.aborted.interrupted, false);
    assert.match(summary.aborted.reason, /out of (data )?bounds|indices/i);
    assert.ok(!existsSync(join(out, "episodes", "1.mcap")));
  } finally {
    rmSync(bundle, { recursive: true, force: true });
  }
});
