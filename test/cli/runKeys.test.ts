/**
 * `engram run`'s terminal keys (src/cli/runDir.ts installRunKeys): on a TTY, `r` resumes the run's
 * latched e-stop and `q` stops like SIGINT; on a pipe nothing is installed and stdin is untouched.
 * FAKE terminal: a PassThrough with `isTTY` and `setRawMode`, standing for a real TTY stdin
 * (node:test runs without one).
 */
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { test } from "node:test";
import { installRunKeys, installStopSignals } from "../../src/cli/runDir.js";
import { StopLatch } from "../../src/control/index.js";

function fakeTty(isTTY: boolean): NodeJS.ReadStream & { rawModes: boolean[] } {
  const s = new PassThrough() as unknown as NodeJS.ReadStream & { rawModes: boolean[] };
  s.rawModes = [];
  Object.assign(s, { isTTY, setRawMode(on: boolean) { s.rawModes.push(on); return s; } });
  return s;
}

const tick = () => new Promise<void>((r) => setImmediate(r));

test("TTY: r resumes a latched e-stop, q aborts the run's signal; dispose restores the terminal", async () => {
  const stops = new StopLatch({ safety: { estop_topic: "/engram/estop", resume_topic: "/engram/resume" } });
  stops.onMessage("/engram/estop", true, 0n);
  const signals = installStopSignals();
  const tty = fakeTty(true);
  const resumed: boolean[] = [];
  const keys = installRunKeys({ resume: () => resumed.push(stops.resume("key")), stop: () => signals.stop("q") }, tty);
  const stderrWrite = process.stderr.write;
  try {
    assert.deepEqual(tty.rawModes, [true]);
    assert.equal(stops.check(1n).kind, "hold");
    tty.write("x"); // other keys do nothing
    await tick();
    assert.ok(stops.latched);
    tty.write("r");
    await tick();
    assert.deepEqual(resumed, [true]);
    assert.equal(stops.latched, false);
    assert.equal(stops.check(2n).kind, "ok");
    assert.equal(signals.signal.aborted, false);
    process.stderr.write = (() => true) as typeof process.stderr.write; // the stop notice
    tty.write("q");
    await tick();
    assert.equal(signals.signal.aborted, true);
    assert.equal((signals.signal.reason as Error).message, "q");
  } finally {
    process.stderr.write = stderrWrite;
    keys.dispose();
    signals.dispose();
  }
  assert.deepEqual(tty.rawModes, [true, false]);
  assert.equal(tty.listenerCount("data"), 0);
});

test("not a TTY (pipe, ros2 launch, CI): no raw mode, no listener, keys ignored", async () => {
  const pipe = fakeTty(false);
  let calls = 0;
  const keys = installRunKeys({ resume: () => { calls++; }, stop: () => { calls++; } }, pipe);
  assert.equal(pipe.listenerCount("data"), 0);
  pipe.write("rq");
  await tick();
  keys.dispose();
  assert.equal(calls, 0);
  assert.deepEqual(pipe.rawModes, []);
});
