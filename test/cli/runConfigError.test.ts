/**
 * `engram run` with a config error found before the first episode exits at once with code 1, even
 * while something keeps the event loop alive: test/fakes/liveBus.ts stands for a live ROS 2 bus
 * (rclnodejs spinning while the twin publishes), the same logic as under a real ROS 2, which this
 * machine lacks.
 */
// Runs alone (scripts/test.sh): it measures wall time.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { test } from "node:test";

const REPO = new URL("../../", import.meta.url).pathname;

test("a bundle that does not fit the robot: exit 1 within a second of the error, naming the layout, while the bus is live", { timeout: 60_000 }, async () => {
  const child = spawn(process.execPath, ["--import", "tsx", "--import", "./test/fakes/liveBus.ts", "src/cli.ts", "run", "launch/sim-franka.yaml", "--policy", "policies/test-tiny"], { cwd: REPO, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  let errorAtMs = 0;
  child.stderr.on("data", (c) => { stderr += String(c); errorAtMs ||= performance.now(); });
  child.stdout.resume();
  const killer = setTimeout(() => child.kill("SIGKILL"), 30_000);
  const code = await new Promise<number | null>((resolve) => child.on("exit", (c) => resolve(c)));
  const exitMs = performance.now() - errorAtMs;
  clearTimeout(killer);
  assert.equal(code, 1, stderr);
  assert.match(stderr, /layout\.(state|action): expected a layout of robot "franka-droid" .*found "bimanual_16d"/);
  assert.ok(exitMs < 2000, `exited ${exitMs.toFixed(0)} ms after the error`);
});
