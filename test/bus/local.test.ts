// Runs alone (scripts/test.sh): it measures wall time.
import assert from "node:assert/strict";
import { test } from "node:test";
import { SimClock } from "../../src/bus/clock.js";
import { LocalBus } from "../../src/bus/local.js";
import type { Qos } from "../../src/bus/types.js";

const RELIABLE: Qos = { reliability: "reliable", durability: "volatile", history: "keep_last", depth: 10 };
const BEST_EFFORT: Qos = { reliability: "best_effort", durability: "volatile", history: "keep_last", depth: 1 };
const LATCHED: Qos = { reliability: "reliable", durability: "transient_local", history: "keep_last", depth: 3 };
const T = "std_msgs/msg/String";

const bytes = (n: number): Uint8Array => Uint8Array.of(0, 1, 0, 0, n);
const turn = (): Promise<void> => new Promise((r) => setImmediate(r));
const settle = async (n = 5): Promise<void> => {
  for (let i = 0; i < n; i++) await turn();
};

test("delivery is asynchronous: publish returns before the callback runs", async () => {
  const bus = new LocalBus({ clock: new SimClock(5n) });
  const got: Array<[number, bigint]> = [];
  bus.subscribe("/chatter", T, RELIABLE, (cdr, ns) => got.push([cdr[4]!, ns]));
  const pub = bus.advertise("/chatter", T, RELIABLE);
  pub(bytes(1));
  assert.deepEqual(got, [], "callback must not run inside publish");
  await settle();
  assert.deepEqual(got, [[1, 5n]]);
  await bus.close();
});

test("keep-last depth 2: a slow subscriber sees only the newest 2 after its busy callback", async () => {
  const bus = new LocalBus();
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const seen: number[] = [];
  bus.subscribe("/joints", T, { ...RELIABLE, depth: 2 }, async (cdr) => {
    seen.push(cdr[4]!);
    if (seen.length === 1) await gate; // slow on the first message
  });
  const pub = bus.advertise("/joints", T, RELIABLE);
  pub(bytes(0));
  await settle(); // subscriber is now busy with message 0
  for (let i = 1; i <= 9; i++) pub(bytes(i));
  release();
  await settle();
  assert.deepEqual(seen, [0, 8, 9]);
  const [s] = bus.stats("/joints");
  assert.equal(s!.dropped, 7);
  assert.equal(s!.delivered, 3);
  await bus.close();
});

test("keep-last queue drops between drains even for synchronous callbacks; keep_all never drops", async () => {
  const bus = new LocalBus();
  const last: number[] = [];
  const all: number[] = [];
  bus.subscribe("/x", T, { ...RELIABLE, depth: 2 }, (cdr) => last.push(cdr[4]!));
  bus.subscribe("/x", T, { ...RELIABLE, history: "keep_all", depth: 0 }, (cdr) => all.push(cdr[4]!));
  const pub = bus.advertise("/x", T, RELIABLE);
  for (let i = 0; i < 6; i++) pub(bytes(i));
  await settle();
  assert.deepEqual(last, [4, 5]);
  assert.deepEqual(all, [0, 1, 2, 3, 4, 5]);
  assert.deepEqual(bus.stats("/x").map((s) => s.dropped), [4, 0]);
  await bus.close();
});

test("best-effort subscriber with depth 1 drops while a reliable depth-10 one keeps all", async () => {
  const bus = new LocalBus();
  const be: number[] = [];
  const rel: number[] = [];
  bus.subscribe("/cam", T, BEST_EFFORT, (cdr) => be.push(cdr[4]!));
  bus.subscribe("/cam", T, RELIABLE, (cdr) => rel.push(cdr[4]!));
  const pub = bus.advertise("/cam", T, RELIABLE);
  for (let i = 0; i < 5; i++) pub(bytes(i));
  await settle();
  assert.deepEqual(be, [4]);
  assert.deepEqual(rel, [0, 1, 2, 3, 4]);
  await bus.close();
});

test("a reliable subscriber does not match a best-effort publisher (rmw semantics) and a warning says why", async () => {
  const warnings: string[] = [];
  const bus = new LocalBus({ onWarning: (m) => warnings.push(m) });
  const got: number[] = [];
  bus.subscribe("/cam", T, RELIABLE, (cdr) => got.push(cdr[4]!));
  const pub = bus.advertise("/cam", T, BEST_EFFORT);
  pub(bytes(1));
  pub(bytes(2));
  await settle();
  assert.deepEqual(got, []);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0]!, /"\/cam".*RELIABILITY/);
  await bus.close();
});

test("transient_local publisher replays its last depth messages to a late transient_local subscriber only", async () => {
  const bus = new LocalBus();
  const pub = bus.advertise("/robot_description", T, LATCHED);
  for (let i = 0; i < 5; i++) pub(bytes(i));
  const late: number[] = [];
  const volatileLate: number[] = [];
  bus.subscribe("/robot_description", T, LATCHED, (cdr) => late.push(cdr[4]!));
  bus.subscribe("/robot_description", T, { ...LATCHED, durability: "volatile" }, (cdr) => volatileLate.push(cdr[4]!));
  await settle();
  assert.deepEqual(late, [2, 3, 4]);
  assert.deepEqual(volatileLate, []);
  pub(bytes(5));
  await settle();
  assert.deepEqual(late, [2, 3, 4, 5]);
  assert.deepEqual(volatileLate, [5]);
  await bus.close();
});

test("a topic has one type: a mismatch names the topic and both types", () => {
  const bus = new LocalBus();
  bus.advertise("/joint_states", "sensor_msgs/msg/JointState", RELIABLE);
  assert.throws(
    () => bus.subscribe("/joint_states", "sensor_msgs/msg/Image", RELIABLE, () => {}),
    /"\/joint_states" with type sensor_msgs\/msg\/Image: the topic already has type sensor_msgs\/msg\/JointState/,
  );
  assert.throws(() => bus.advertise("/joint_states", T, RELIABLE), /already has type sensor_msgs\/msg\/JointState/);
});

test("invalid QoS and relative topic names are rejected with the field and value", () => {
  const bus = new LocalBus();
  assert.throws(() => bus.subscribe("/a", T, { ...RELIABLE, depth: 0 }, () => {}), /subscriber QoS on topic "\/a": depth 0; expected an integer >= 1/);
  assert.throws(() => bus.advertise("a", T, RELIABLE), /topic names must be absolute/);
});

test("unsubscribe stops delivery, discards queued messages and frees the topic type", async () => {
  const bus = new LocalBus();
  const got: number[] = [];
  const off = bus.subscribe("/t", T, RELIABLE, (cdr) => got.push(cdr[4]!));
  const pub = bus.advertise("/t", T, RELIABLE);
  pub(bytes(1));
  off();
  off(); // idempotent
  pub(bytes(2));
  await settle();
  assert.deepEqual(got, []);
  const other = new LocalBus();
  other.subscribe("/u", T, RELIABLE, () => {})();
  assert.doesNotThrow(() => other.subscribe("/u", "std_msgs/msg/Bool", RELIABLE, () => {}));
  await bus.close();
  assert.throws(() => pub(bytes(3)), /publish on topic "\/t" after the local bus was closed/);
});

test("a callback that publishes back to its own topic does not starve the event loop", { timeout: 5000 }, async () => {
  const bus = new LocalBus();
  const pub = bus.advertise("/ping", T, RELIABLE);
  let count = 0;
  let running = true;
  bus.subscribe("/ping", T, RELIABLE, () => {
    count++;
    if (running) pub(bytes(0));
  });
  pub(bytes(0));
  while (count < 3) await turn();
  // If delivery re-entered synchronously (or via microtasks) this timer would never fire.
  await new Promise((r) => setTimeout(r, 1));
  running = false;
  const atStop = count;
  await settle();
  assert.ok(count <= atStop + 1, `ping-pong stopped (ran ${count} times)`);
  await bus.close();
});

test("a throwing callback is reported with the topic and later messages are still delivered", async () => {
  const errors: string[] = [];
  const bus = new LocalBus({ onCallbackError: (e) => errors.push(e.message) });
  const got: number[] = [];
  bus.subscribe("/t", T, RELIABLE, (cdr) => {
    if (cdr[4] === 1) throw new Error("boom");
    got.push(cdr[4]!);
  });
  const pub = bus.advertise("/t", T, RELIABLE);
  pub(bytes(1));
  pub(bytes(2));
  await settle();
  assert.deepEqual(got, [2]);
  assert.deepEqual(errors, ['subscriber callback on topic "/t" (std_msgs/msg/String) failed: boom']);
  await bus.close();
});

test("keep_all delivers a 20000-message burst complete and in order (the FIFO is not quadratic)", { timeout: 5000 }, async () => {
  const bus = new LocalBus();
  const pub = bus.advertise("/burst", T, RELIABLE);
  const got: number[] = [];
  bus.subscribe("/burst", T, { ...RELIABLE, history: "keep_all", depth: 1 }, (cdr) => got.push(new DataView(cdr.buffer).getUint32(0, true)));
  const t0 = performance.now();
  for (let i = 0; i < 20000; i++) pub(new Uint8Array(new Uint32Array([i]).buffer));
  while (got.length < 20000) await turn();
  assert.ok(performance.now() - t0 < 2000, `took ${performance.now() - t0} ms`);
  assert.ok(got.every((v, i) => v === i));
  assert.deepEqual(bus.stats("/burst").map((s) => [s.delivered, s.dropped, s.queued]), [[20000, 0, 0]]);
  await bus.close();
});

test("lock-step: messages a sleeper publishes are delivered, stamped with sim time, before advanceTo returns", async () => {
  const clock = new SimClock(0n);
  const bus = new LocalBus({ clock });
  const pub = bus.advertise("/tick", T, RELIABLE);
  const got: bigint[] = [];
  bus.subscribe("/tick", T, RELIABLE, (_cdr, ns) => got.push(ns));
  void (async () => {
    for (let t = 100n; t <= 300n; t += 100n) {
      await clock.sleepUntil(t);
      pub(bytes(0));
    }
  })();
  await clock.advanceTo(250n);
  assert.deepEqual(got, [100n, 200n]);
  await clock.advanceTo(300n);
  assert.deepEqual(got, [100n, 200n, 300n]);
  await bus.close();
});
