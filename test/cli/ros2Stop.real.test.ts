/**
 * Real ROS 2 (DDS), two processes: the twin as its own node (`engram sim launch/sim-ros2-x-one.yaml`)
 * and `engram run` against it, as `ros2 launch launch/sim.launch.yaml` starts them. Two episodes
 * run on the scenes asked over /sim/reset (seeds recorded truthfully); then a stop by SIGINT, by a
 * double SIGINT, and by SIGINT then SIGTERM (what launch sends, here sooner than its 5 s) each
 * hold the arm, leave a complete run folder and exit within 4 s. Idle-machine figures; skipped,
 * saying why, where ROS 2 is not sourced.
 */
// Runs alone (scripts/test.sh): it talks over a real DDS.
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { jsonl, readEpisode, until, type Exit } from "./runHarness.js";

const SKIP = process.env.ROS_DISTRO && process.env.AMENT_PREFIX_PATH
  ? false
  : "ROS_DISTRO/AMENT_PREFIX_PATH unset: no ROS 2 is sourced on this machine (source /opt/ros/<distro>/setup.bash)";
const REPO = new URL("../../", import.meta.url).pathname;
const CONFIG = "launch/sim-ros2-x-one.yaml";
const tmp = mkdtempSync(join(tmpdir(), "engram-ros2-stop-"));
// A domain of this test's own, so other ROS 2 work on the machine neither sees nor disturbs it.
const env = { ...process.env, ROS_DOMAIN_ID: String(100 + (process.pid % 100)) };

function start(args: string[]): { child: ChildProcess; exited: Promise<Exit>; stderr: () => string } {
  const child = spawn(process.execPath, ["--import", "tsx", "src/cli.ts", ...args], { cwd: REPO, env, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr!.on("data", (c) => { stderr += String(c); });
  child.stdout!.resume();
  const exited = new Promise<Exit>((resolve) => child.on("exit", (code, signal) => resolve({ code, signal, atMs: performance.now(), stderr })));
  return { child, exited, stderr: () => stderr };
}

let twin: ReturnType<typeof start> | null = null;
before(() => { if (!SKIP) twin = start(["sim", CONFIG, "--seed", "50"]); });
after(async () => {
  if (twin && twin.child.exitCode === null) {
    twin.child.kill("SIGINT");
    await twin.exited;
  }
  rmSync(tmp, { recursive: true, force: true });
});

function runAgainstTwin(out: string, episodes: number, seed: number, extra: string[] = []) {
  return start(["run", CONFIG, "--policy", "policies/test-tiny", "--episodes", String(episodes), "--seed", String(seed),
    "--out", out, "--operator=sim", "--topic-timeout-ms", "60000", ...extra]);
}

test("over DDS: two episodes on the scenes asked over /sim/reset, seeds recorded", { skip: SKIP, timeout: 180_000 }, async () => {
  const out = join(tmp, "episodes");
  // 30 steps (3 s) each: the scene and seed are set before the first tick; the task's own limit adds nothing here.
  const run = runAgainstTwin(out, 2, 7, ["--max-steps", "30"]);
  const exit = await run.exited;
  assert.equal(exit.code, 0, exit.stderr);
  assert.deepEqual(jsonl(join(out, "episodes.jsonl")).map((e) => e.seed), [7, 8]);
  const scenes = [...twin!.stderr().matchAll(/reset to task (\S+) seed (\d+)/g)].map((m) => `${m[1]} ${m[2]}`);
  assert.deepEqual(scenes, ["put-back-block 7", "put-back-block 8"], "the twin set each episode's scene");
  for (const [i, seed] of [[0, 7], [1, 8]] as const) {
    const ep = await readEpisode(join(out, "episodes", `${i}.mcap`));
    assert.equal(ep.mode, "indexed");
    assert.equal(ep.events[0]?.event, "episode_start");
    assert.equal(ep.events[0]?.seed, seed);
  }
});

for (const signals of [["SIGINT"], ["SIGINT", "SIGINT"], ["SIGINT", "SIGTERM"]] as const) {
  test(`over DDS: ${signals.join(" then ")} mid-episode holds, closes the files and exits within 4 s`, { skip: SKIP, timeout: 180_000 }, async () => {
    const out = join(tmp, signals.join("-"));
    const run = runAgainstTwin(out, 3, 20);
    const events = join(out, "events.jsonl");
    try {
      await until("episode 0 to run 2 s", () => existsSync(events) && readFileSync(events, "utf8").includes("episode_start"), 120_000, run.exited);
      await new Promise((r) => setTimeout(r, 2000));
    } catch (err) {
      run.child.kill("SIGKILL");
      throw err;
    }
    const signalAt = performance.now();
    for (const [k, s] of signals.entries()) {
      if (k > 0) await new Promise((r) => setTimeout(r, s === "SIGTERM" ? 1000 : 250));
      run.child.kill(s);
    }
    const exit = await run.exited;
    const exitMs = exit.atMs - signalAt;
    process.stdout.write(`# ${signals.join("+")} → exit in ${exitMs.toFixed(0)} ms (code ${exit.code})\n`);
    assert.ok(exitMs < 4000, `exit took ${exitMs.toFixed(0)} ms (limit 4000): ${exit.stderr}`);
    assert.notEqual(exit.signal, "SIGKILL", `the watchdog had to kill it: ${exit.stderr}`);
    assert.ok(existsSync(join(out, "summary.json")), "summary.json written");
    const ep = await readEpisode(join(out, "episodes", "0.mcap"));
    assert.equal(ep.mode, "indexed");
    const names = ep.events.map((e) => `${e.event}${e.reason ? `:${String(e.reason)}` : ""}`).join(", ");
    const logged = jsonl(join(out, "events.jsonl")).filter((e) => e.episode === 0)
      .map((e) => `${e.event}:${String(e.reason ?? "")}`);
    assert.ok(ep.events.some((e) => e.event === "safety_hold" && e.reason === "shutdown"),
      `the arm was held: MCAP ${names}; events.jsonl ${logged.join(", ")}`);
    assert.equal(ep.events.at(-1)?.event, "episode_end");
  });
}
