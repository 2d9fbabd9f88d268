// Runs alone (scripts/test.sh): it measures wall time.
import assert from "node:assert/strict";
import { test } from "node:test";
import { SimClock, TopicClock, WallClock } from "../../src/bus/clock.js";

test("SimClock wakes sleepers in time order (ties in call order) with nowNs at their wake time", async () => {
  const clock = new SimClock(100n);
  const order: Array<[string, bigint]> = [];
  const sleep = (name: string, at: bigint): void => {
    void clock.sleepUntil(at).then(() => order.push([name, clock.nowNs()]));
  };
  sleep("c", 300n);
  sleep("a", 150n);
  sleep("b", 200n);
  sleep("b2", 200n);
  sleep("late", 900n);
  assert.equal(clock.pendingSleepers, 5);
  await clock.advanceTo(300n);
  assert.deepEqual(order, [["a", 150n], ["b", 200n], ["b2", 200n], ["c", 300n]]);
  assert.equal(clock.nowNs(), 300n);
  assert.equal(clock.pendingSleepers, 1);
  await clock.advanceBy(1000n);
  assert.deepEqual(order.at(-1), ["late", 900n]);
  assert.equal(clock.nowNs(), 1300n);
});

test("SimClock runs a periodic loop in lock-step, including sleepers added during the advance", async () => {
  const clock = new SimClock(0n);
  const ticks: bigint[] = [];
  void (async () => {
    for (let t = 10n; t <= 50n; t += 10n) {
      await clock.sleepUntil(t);
      ticks.push(clock.nowNs());
    }
  })();
  await clock.advanceTo(35n);
  assert.deepEqual(ticks, [10n, 20n, 30n]);
  await clock.advanceTo(100n);
  assert.deepEqual(ticks, [10n, 20n, 30n, 40n, 50n]);
});

test("SimClock refuses to go backwards and resolves past times at once", async () => {
  const clock = new SimClock(50n);
  await assert.rejects(clock.advanceTo(10n), /target 10 ns is before current sim time 50 ns/);
  await assert.rejects(clock.advanceBy(-1n), /delta -1 ns is negative/);
  await clock.sleepUntil(20n); // already past
  await clock.advanceTo(60n); // still usable after a rejected advance
  assert.equal(clock.nowNs(), 60n);
});

test("WallClock is epoch nanoseconds and sleepUntil waits at least until the target", async () => {
  const clock = new WallClock();
  const now = clock.nowNs();
  assert.ok(Math.abs(Number(now / 1_000_000n) - Date.now()) < 1000);
  const target = now + 15_000_000n;
  await clock.sleepUntil(target);
  assert.ok(clock.nowNs() >= target);
});

test("TopicClock: 0 before /clock, advances with messages, treats an earlier message as a jump", async () => {
  const clock = new TopicClock();
  assert.equal(clock.nowNs(), 0n);
  assert.equal(clock.hasTime, false);
  let woke = false;
  void clock.sleepUntil(2_000_000_000n).then(() => (woke = true));
  await clock.feed(1_500_000_000n);
  assert.equal(woke, false);
  await clock.feed(2_000_000_000n);
  assert.equal(woke, true);
  await clock.feed(1_000_000_000n);
  assert.equal(clock.nowNs(), 1_000_000_000n);
});

test("SimClock: an aborted sleep rejects with the signal's reason and leaves no waiter", async () => {
  const clock = new SimClock(0n);
  const ctl = new AbortController();
  const sleeping = clock.sleepUntil(1_000n, ctl.signal);
  const kept = clock.sleepUntil(2_000n, new AbortController().signal);
  assert.equal(clock.pendingSleepers, 2);
  ctl.abort(new Error("work won"));
  await assert.rejects(sleeping, /work won/);
  assert.equal(clock.pendingSleepers, 1);
  await clock.advanceTo(2_000n);
  await kept; // a signal that never aborts changes nothing
  assert.equal(clock.pendingSleepers, 0);
  await assert.rejects(clock.sleepUntil(5_000n, AbortSignal.abort(new Error("already"))), /already/);
  assert.equal(clock.pendingSleepers, 0);
});

test("WallClock: an aborted sleep rejects at once and clears its timer", async () => {
  const clock = new WallClock();
  const timers = () => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
  const before = timers();
  const ctl = new AbortController();
  const t0 = performance.now();
  const sleeping = clock.sleepUntil(clock.nowNs() + 5_000_000_000n, ctl.signal);
  assert.equal(timers(), before + 1);
  ctl.abort(new Error("work won"));
  await assert.rejects(sleeping, /work won/);
  assert.ok(performance.now() - t0 < 1000, "rejects without waiting for the deadline");
  assert.equal(timers(), before);
});
