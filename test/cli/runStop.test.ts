/**
 * `engram run` on the sim twin, as a process: SIGINT mid-episode exits within 4 s with a valid,
 * indexed MCAP holding everything up to the signal (the shutdown hold and episode_end included)
 * and the run folder written for the episodes that ran. The signal comes twice, 30 ms apart, as
 * under `ros2 launch` (the terminal's Ctrl-C reaches the process group and launch forwards a
 * second SIGINT): the same logic as under a real ROS 2, which this machine lacks; it is one stop
 * request, and a clean stop exits 0. Repeated signals through the whole stop never kill the process
 * by the signal; a stop while the run is still starting exits at once with an empty summary.
 */
// Runs alone (scripts/test.sh): it measures wall time.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { jsonl, readEpisode, startRun, until } from "./runHarness.js";

const tmp = mkdtempSync(join(tmpdir(), "engram-run-stop-"));
after(() => rmSync(tmp, { recursive: true, force: true }));

test("SIGINT twice mid-episode (as under ros2 launch): one stop, exit 0 within 4 s, MCAP indexed and complete up to the signal, run folder written", { timeout: 150_000 }, async () => {
  const out = join(tmp, "sigint");
  const mcap = join(out, "episodes", "0.mcap");
  const run = startRun(out, "policies/test-tiny", 3);
  try {
    // Wait until the first episode has been running for a while (the MCAP has grown past a few chunks:
    // zstd chunks of the twin's frames, ~8 MB per 400-step episode, so 512 KiB is ~25 steps in).
    await until("episode 0's MCAP to grow past 512 KiB", () => existsSync(mcap) && statSync(mcap).size > 512 * 2 ** 10, 120_000, run.exited);
  } catch (err) {
    run.child.kill("SIGKILL");
    throw err;
  }
  const signalAt = performance.now();
  run.child.kill("SIGINT");
  await new Promise((r) => setTimeout(r, 30));
  run.child.kill("SIGINT");
  const exit = await run.exited;
  const exitMs = exit.atMs - signalAt;
  process.stdout.write(`# SIGINT → exit in ${exitMs.toFixed(0)} ms\n`);
  assert.ok(exitMs < 4000, `exit took ${exitMs.toFixed(0)} ms after SIGINT (limit 4000): ${exit.stderr}`);
  assert.equal(exit.code, 0, exit.stderr);
  assert.match(exit.stderr, /SIGINT: holding the robot/);
  assert.match(exit.stderr, /SIGINT again within 2000 ms: the same stop/);
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

test("SIGINT repeated every 20 ms through the stop (3 runs): always one clean stop, exit 0, never killed by the signal", { timeout: 240_000 }, async () => {
  for (let attempt = 0; attempt < 3; attempt++) {
    const out = join(tmp, `burst-${attempt}`);
    const mcap = join(out, "episodes", "0.mcap");
    const run = startRun(out, "policies/test-tiny", 3);
    try {
      await until("episode 0's MCAP to grow past 128 KiB", () => existsSync(mcap) && statSync(mcap).size > 128 * 2 ** 10, 120_000, run.exited);
    } catch (err) {
      run.child.kill("SIGKILL");
      throw err;
    }
    // Every signal falls within the 2 s in which a repeat is the same stop, up to and past the
    // moment the files are written and the command returns (its handlers' last moments included).
    const first = performance.now();
    let exited = false;
    void run.exited.then(() => { exited = true; });
    while (!exited && performance.now() - first < 1800) {
      run.child.kill("SIGINT");
      await new Promise((r) => setTimeout(r, 20));
    }
    const exit = await run.exited;
    assert.equal(exit.signal, null, `attempt ${attempt}: killed by ${exit.signal} after: ${exit.stderr.slice(-400)}`);
    assert.equal(exit.code, 0, exit.stderr);
    assert.ok(existsSync(join(out, "summary.json")));
  }
});

test("SIGINT during a blocking start-up step (test/fakes/blockStartup.ts): exit 0 within 1 s of that step, a summary of zero episodes", { timeout: 120_000 }, async () => {
  const out = join(tmp, "startup");
  const mark = join(tmp, "startup-blocking");
  const blockMs = 2000;
  const run = startRun(out, "policies/mem0-tiny", 2, {
    preload: "./test/fakes/blockStartup.ts",
    env: { ENGRAM_TEST_BLOCK_WHEN: join(out, "run.json"), ENGRAM_TEST_BLOCK_MARK: mark, ENGRAM_TEST_BLOCK_MS: String(blockMs) },
  });
  try {
    await until("the run's start-up to block", () => existsSync(mark), 90_000, run.exited);
  } catch (err) {
    run.child.kill("SIGKILL");
    throw err;
  }
  const blockSeenAt = performance.now(); // at most one poll (100 ms) after the step began
  run.child.kill("SIGINT");
  const exit = await Promise.race([run.exited, new Promise<null>((r) => setTimeout(() => r(null), 15_000))]);
  if (!exit) run.child.kill("SIGKILL");
  assert.ok(exit, `still running 15 s after SIGINT: ${run.stderr()}`);
  const afterStepMs = exit.atMs - blockSeenAt - blockMs;
  process.stdout.write(`# SIGINT in start-up → exit ${afterStepMs.toFixed(0)} ms after the blocking step\n`);
  assert.equal(exit.code, 0, exit.stderr);
  assert.ok(afterStepMs < 1000, `exit came ${afterStepMs.toFixed(0)} ms after the blocking step (limit 1000): ${exit.stderr}`);
  assert.match(exit.stderr, /\[run\] stopped during start-up, before episode 0: nothing ran/);
  const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as { episodes: number; policy: string; aborted: unknown };
  assert.equal(summary.episodes, 0);
  assert.equal(summary.policy, "mem0-tiny");
  assert.deepEqual(summary.aborted, { episode: 0, reason: "interrupted (SIGINT)", interrupted: true });
  assert.ok(!existsSync(join(out, ".reserve")), "the reserve is given back");
});
