/**
 * The stop's deadline holds when the main thread is blocked (as in a native rclnodejs/DDS call
 * waiting on a futex, where no timer can fire): the watchdog thread kills the process; disarmed,
 * it lets the process live on.
 */
// Runs alone (scripts/test.sh): it measures wall time.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";

function runScript(source: string): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string; ms: number }> {
  const t0 = performance.now();
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", source], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => { stderr += d.toString(); });
  return once(child, "exit").then(([code, signal]) => ({ code: code as number | null, signal: signal as NodeJS.Signals | null, stderr, ms: performance.now() - t0 }));
}

const IMPORT = `import { armExitWatchdog } from "${new URL("../../src/cli/exitWatchdog.ts", import.meta.url).pathname}";`;

test("a main thread blocked past the deadline is killed by the watchdog thread, naming the wait", { timeout: 30_000 }, async () => {
  // Atomics.wait on the main thread blocks it in a futex, as the native teardown does: timers cannot fire.
  const r = await runScript(`${IMPORT}
    armExitWatchdog(500, "the stop (SIGINT)");
    setTimeout(() => process.exit(3), 100); // the stop's own timer: never runs while blocked
    await new Promise((r) => setTimeout(r, 50));
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20_000);
    process.exit(4);`);
  assert.equal(r.signal, "SIGKILL", `exit ${r.code} ${r.signal}: ${r.stderr}`);
  assert.match(r.stderr, /\[engram\] the stop \(SIGINT\) still not done after 500 ms \(the main thread is blocked\); killing the process/);
  assert.ok(r.ms < 15_000, `killed after ${r.ms.toFixed(0)} ms`);
});

test("disarmed, or with nothing left to do, the watchdog neither kills nor keeps the process alive", { timeout: 30_000 }, async () => {
  const disarmed = await runScript(`${IMPORT}
    const w = armExitWatchdog(300, "x");
    w.disarm();
    await new Promise((r) => setTimeout(r, 800));
    process.exitCode = 5;`);
  assert.equal(disarmed.code, 5, disarmed.stderr);
  const idle = await runScript(`${IMPORT}
    armExitWatchdog(20_000, "x");`);
  assert.equal(idle.code, 0, idle.stderr);
  assert.ok(idle.ms < 10_000, `an armed watchdog kept an idle process alive ${idle.ms.toFixed(0)} ms`);
});
