// Runs alone (scripts/test.sh): it measures wall time.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ReplayBus } from "../../src/bus/replay.js";
import { RELIABLE_QOS, type Qos } from "../../src/bus/types.js";
import { decode, encode } from "../../src/msgs/index.js";
import { McapRecorder } from "../../src/record/index.js";

const dir = mkdtempSync(join(tmpdir(), "engram-replay-test-"));
const file = join(dir, "chatter.mcap");
const T0 = 1_700_000_000_000_000_000n;
const STEP_NS = 20_000_000n; // 20 ms between messages, 10 messages: 180 ms of recording

before(async () => {
  const rec = await McapRecorder.open(file);
  await rec.addTopic("/chatter", "std_msgs/msg/String", RELIABLE_QOS);
  await rec.addTopic("/flag", "std_msgs/msg/Bool", RELIABLE_QOS);
  for (let i = 0; i < 10; i++) {
    await rec.write("/chatter", encode("std_msgs/msg/String", { data: `msg ${i}` }), T0 + BigInt(i) * STEP_NS);
    if (i % 3 === 0) await rec.write("/flag", encode("std_msgs/msg/Bool", { data: i % 2 === 0 }), T0 + BigInt(i) * STEP_NS + 1n);
  }
  await rec.close();
});
after(() => rmSync(dir, { recursive: true, force: true }));

function collect(bus: ReplayBus, topic: string, qos: Qos = RELIABLE_QOS): { data: string; ns: bigint }[] {
  const got: { data: string; ns: bigint }[] = [];
  bus.subscribe(topic, "std_msgs/msg/String", qos, (cdr, ns) => got.push({ data: decode("std_msgs/msg/String", cdr).data, ns }));
  return got;
}

test("as fast as possible: every message, in order, stamped with its logTime; clock follows", async () => {
  const bus = await ReplayBus.open(file, { rate: Infinity });
  assert.equal(bus.clock.nowNs(), T0, "clock starts at the first logTime");
  assert.deepEqual(bus.recordedTopics.map((t) => t.topic).sort(), ["/chatter", "/flag"]);
  const got = collect(bus, "/chatter");
  const result = await bus.play();
  assert.equal(result.messages, 14);
  assert.equal(result.durationNs, 9n * STEP_NS + 1n, "last message: /flag at msg 9 + 1 ns");
  assert.deepEqual(got.map((g) => g.data), Array.from({ length: 10 }, (_, i) => `msg ${i}`));
  assert.deepEqual(got.map((g) => g.ns), Array.from({ length: 10 }, (_, i) => T0 + BigInt(i) * STEP_NS));
  assert.equal(bus.clock.nowNs(), T0 + 9n * STEP_NS + 1n);
  await bus.close();
});

test("lock-step: advanceTo delivers what was logged up to each time, moves the clock there; exhausted after the last", async () => {
  const bus = await ReplayBus.open(file, { rate: Infinity });
  const got = collect(bus, "/chatter");
  await bus.advanceTo(T0 + 2n * STEP_NS);
  assert.deepEqual(got.map((g) => g.data), ["msg 0", "msg 1", "msg 2"], "up to and including the time");
  assert.equal(bus.clock.nowNs(), T0 + 2n * STEP_NS);
  assert.equal(bus.exhausted, false);
  await bus.advanceTo(T0 + 2n * STEP_NS + STEP_NS / 2n);
  assert.equal(got.length, 3, "nothing logged in between");
  assert.equal(bus.clock.nowNs(), T0 + 2n * STEP_NS + STEP_NS / 2n, "the clock moves to the tick's time");
  await bus.advanceTo(T0 + 9n * STEP_NS);
  assert.equal(got.length, 10);
  assert.equal(bus.exhausted, false, "the /flag message 1 ns later is still to come");
  await bus.advanceTo(T0 + 10n * STEP_NS);
  assert.equal(bus.exhausted, true);
  assert.throws(() => bus.play(), /played or stepped, not both/);
  await bus.close();
});

test("recorded timing at rate 1 and at rate 4", async () => {
  for (const rate of [1, 4]) {
    const bus = await ReplayBus.open(file, { rate });
    const got = collect(bus, "/chatter");
    const arrivals: number[] = [];
    bus.subscribe("/flag", "std_msgs/msg/Bool", RELIABLE_QOS, () => arrivals.push(performance.now()));
    const start = performance.now();
    const result = await bus.play();
    const wallMs = performance.now() - start;
    const expectedMs = 180 / rate;
    assert.equal(got.length, 10);
    assert.ok(wallMs >= expectedMs * 0.95, `rate ${rate}: took ${wallMs.toFixed(0)} ms, recording needs ${expectedMs} ms`);
    assert.ok(wallMs < expectedMs + 2000, `rate ${rate}: took ${wallMs.toFixed(0)} ms`);
    assert.equal(result.stopped, false);
    // /flag messages are 60 ms of recording apart.
    assert.equal(arrivals.length, 4);
    // Measured from the start of play, not from the first arrival: a late first delivery on a
    // loaded machine must not make the recording's own timing look compressed.
    assert.ok(arrivals[3]! - start >= (180 / rate) * 0.95, `last flag at ${(arrivals[3]! - start).toFixed(1)} ms follows the recording (${180 / rate} ms)`);
    await bus.close();
  }
});

test("keep-last depth per subscriber: a slow subscriber keeps only the newest messages", async () => {
  const bus = await ReplayBus.open(file, { rate: Infinity });
  const slow: string[] = [];
  bus.subscribe("/chatter", "std_msgs/msg/String", { ...RELIABLE_QOS, depth: 2 }, async (cdr) => {
    slow.push(decode("std_msgs/msg/String", cdr).data);
    await new Promise((r) => setTimeout(r, 30));
  });
  const fast = collect(bus, "/chatter", { ...RELIABLE_QOS, depth: 1 });
  await bus.play();
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(fast.length, 10, "a subscriber that keeps up loses nothing, even at depth 1");
  assert.ok(slow.length < 10, `slow subscriber got ${slow.length} of 10`);
  assert.equal(slow[0], "msg 0");
  assert.equal(slow.at(-1), "msg 9", "the newest message is never dropped");
  await bus.close();
});

test("clock.sleepUntil waits on recording time", async () => {
  const bus = await ReplayBus.open(file, { rate: Infinity });
  const got = collect(bus, "/chatter");
  let seen = -1;
  const waiting = bus.clock.sleepUntil(T0 + 5n * STEP_NS).then(() => { seen = got.length; });
  await bus.play();
  await waiting;
  assert.ok(seen >= 5 && seen <= 6, `woke after ${seen} messages`);
  await bus.close();
});

test("advertise publishes into the sink and to this bus's subscribers; type conflicts throw", async () => {
  const bus = await ReplayBus.open(file, { rate: Infinity });
  const got = collect(bus, "/answer");
  const publish = bus.advertise("/answer", "std_msgs/msg/String", RELIABLE_QOS);
  publish(encode("std_msgs/msg/String", { data: "42" }));
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(got.map((g) => g.data), ["42"]);
  assert.equal(bus.published("/answer").length, 1);
  assert.equal(bus.published("/answer")[0]!.stampNs, T0);
  assert.throws(() => bus.subscribe("/chatter", "std_msgs/msg/Bool", RELIABLE_QOS, () => {}), /"\/chatter" with type std_msgs\/msg\/Bool: the topic already has type std_msgs\/msg\/String/);
  assert.throws(() => bus.advertise("chatter", "std_msgs/msg/String", RELIABLE_QOS), /must be absolute/);
  await bus.close();
  assert.throws(() => publish(new Uint8Array(8)), /after the replay bus was closed/);
});

test("close() stops a paced playback early", async () => {
  const bus = await ReplayBus.open(file, { rate: 0.1 });
  const got = collect(bus, "/chatter");
  const playing = bus.play();
  await new Promise((r) => setTimeout(r, 50));
  await bus.close();
  const result = await playing;
  assert.equal(result.stopped, true);
  assert.ok(got.length < 10);
});

test("bad input: missing file, non-MCAP file, bad rate", async () => {
  await assert.rejects(ReplayBus.open(join(dir, "nope.mcap")), /cannot open recording .*nope\.mcap: ENOENT/);
  await assert.rejects(ReplayBus.open(new URL(import.meta.url).pathname), /is not an MCAP file/);
  await assert.rejects(ReplayBus.open(file, { rate: 0 }), /rate 0 is invalid; expected a number > 0/);
});
