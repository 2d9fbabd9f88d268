/**
 * RoboMMEPolicy (protocol robomme) against a stand-in of RoboMME's MME-VLA server
 * (test/fakes/robommeServer.ts): the shipped bundle policies/robomme-remote on the franka-droid
 * profile. What reset / observeDemonstration / observe / act send (flags, shapes, dtypes,
 * exec_start_idx, batching), the chunk in robot units, and the faults that must mean a hold.
 */
// Runs alone (scripts/test.sh): it measures wall time.
import assert from "node:assert/strict";
import { test } from "node:test";
import { loadRemoteManifest } from "../../src/config/index.js";
import type { RemoteEvent } from "../../src/policy/remote/RemotePolicy.js";
import { loadRemotePolicy } from "../../src/policy/remote/definition.js";
import { RoboMMEPolicy } from "../../src/policy/remote/RoboMMEPolicy.js";
import { readChunk } from "../../src/policy/remote/robommeWire.js";
import { f32Array, type NdArray } from "../../src/policy/remote/wire.js";
import type { PreparedObservation } from "../../src/policy/types.js";
import { loadRobotProfile } from "../../src/robot/loadRobotProfile.js";
import { writeRemoteBundle } from "./remoteBundle.js";
import { FakeRoboMMEServer, type RoboMMEFault, type RoboMMERequest } from "../fakes/robommeServer.js";

const BUNDLE = "policies/robomme-remote";
const robot = loadRobotProfile("robots/franka-droid.yaml").profile;
const EPISODE = {
  task: "VideoRepick", episode: 0, seed: 3, instruction: "watch the video carefully, then pick up the same cube",
};
const PIXELS = 3 * 256 * 256;

function frame(k: number, gripperM = 0.08): PreparedObservation {
  const img = new Float32Array(PIXELS).fill((k % 5) / 4);
  return {
    stampNs: BigInt(k) * 66_000_000n,
    images: { exterior_left: img, wrist: new Float32Array(PIXELS).fill(0.5) },
    state: Float64Array.from([0.1 * k, -0.5, 0, -2, 0, 1.5, 0.8, gripperM]),
  };
}

const chunks: Extract<RemoteEvent, { kind: "chunk" }>[] = [];
type FaultAt = (op: RoboMMERequest["op"], n: number) => RoboMMEFault | null;
type Body = (p: RoboMMEPolicy, s: FakeRoboMMEServer, faults: string[]) => Promise<void>;

/** The shipped bundle against a fresh stand-in server: timeout_ms 300 where a fault is injected, so a silent
 * server fails fast; the manifest's own elsewhere, so a loaded machine does not turn a reply into a fault. */
async function withPolicy(fault: FaultAt | undefined, body: Body, delayMs = 0, prefetch = true): Promise<void> {
  const server = new FakeRoboMMEServer({ fault, delayMs });
  await server.start();
  const faults: string[] = [];
  const { manifest } = loadRemoteManifest(`${BUNDLE}/policy.yaml`);
  const latency = { ...manifest.latency, prefetch };
  const timeout_ms = fault ? 300 : manifest.timeout_ms;
  const policy = new RoboMMEPolicy({ ...manifest, latency, timeout_ms }, `${BUNDLE}/policy.yaml`, {
    robot, url: server.url, onProgress: () => undefined,
    onRemoteEvent: (e) => {
      if (e.kind === "fault") faults.push(e.reason);
      if (e.kind === "chunk") chunks.push(e);
    },
  });
  try {
    await body(policy, server, faults);
  } finally {
    await policy.close();
    await server.stop();
  }
}

const shape = (v: unknown) => [(v as NdArray).dtype, (v as NdArray).shape];

test("reset, a demonstration, observe and act send RoboMME's flags, shapes, dtypes, exec_start_idx", async () => {
  await withPolicy(undefined, async (p, s) => {
    await p.reset(EPISODE);
    assert.deepEqual(s.of("reset"), [{ reset: true }]);
    await p.observeDemonstration(Array.from({ length: 20 }, (_, k) => frame(k)));
    // 20 demonstration frames, batches of max_buffer_frames 16, sent and acknowledged before any act.
    assert.deepEqual(s.of("add_buffer").map((r) => [shape(r.images), shape(r.state), r.exec_start_idx]), [
      [["|u1", [16, 1, 256, 256, 3]], ["<f4", [16, 8]], 20],
      [["|u1", [4, 1, 256, 256, 3]], ["<f4", [4, 8]], 20],
    ]);
    for (let k = 0; k < 3; k++) await p.observe(frame(20 + k, 0.06));
    assert.equal(s.of("add_buffer").length, 2, "observe() batches: nothing sent before the act");
    const chunk = await p.act();
    assert.deepEqual(s.requests.slice(3).map((r) => r.op), ["add_buffer", "infer"]);
    const third = s.of("add_buffer")[2]!;
    assert.deepEqual([shape(third.images), third.exec_start_idx], [["|u1", [3, 1, 256, 256, 3]], 20]);
    const req = s.of("infer")[0]!;
    const keys = ["observation/image", "observation/state", "observation/wrist_image", "prompt"];
    assert.deepEqual(Object.keys(req).sort(), keys);
    assert.deepEqual(shape(req["observation/image"]), ["|u1", [256, 256, 3]]);
    assert.deepEqual(shape(req["observation/wrist_image"]), ["|u1", [256, 256, 3]]);
    assert.deepEqual(shape(req["observation/state"]), ["<f4", [8]]);
    assert.equal(req.prompt, EPISODE.instruction);
    // The current frame's pixels (k = 22: 0.5 → 128) and its state, the gripper as one finger's travel (0.06 m / 2).
    assert.equal(((req["observation/image"] as NdArray).data as Uint8Array)[0], 128);
    const sent = Array.from((req["observation/state"] as NdArray).data as Float32Array);
    assert.deepEqual(sent, Array.from(Float32Array.from([2.2, -0.5, 0, -2, 0, 1.5, 0.8, 0.03])));
    // The server's 20 rows cut to the bundle's 16, in the profile's joint order, the gripper -1 → 0 m (closed).
    assert.equal(chunk.horizon, 16);
    assert.deepEqual(chunk.jointNames, robot.joints.map((j) => j.name));
    const last = Array.from(chunk.actions.slice(15 * 8, 16 * 8)).map((v) => Number(v.toFixed(5)));
    assert.deepEqual(last, [2.2, -0.5, 0, -2, 0, 1.5, 0.8, 0]);
    // The next chunk: only the frames since, exec_start_idx 0 (the server keeps the first one's).
    for (let k = 0; k < 16; k++) await p.observe(frame(23 + k));
    await p.act();
    const why = "16 frames: one add_buffer (sent by the 16th observe), then infer";
    assert.deepEqual(s.requests.slice(5).map((r) => r.op), ["add_buffer", "infer"], why);
    const fourth = s.of("add_buffer")[3]!;
    assert.deepEqual([shape(fourth.images)[1], fourth.exec_start_idx], [[16, 1, 256, 256, 3], 0]);
    assert.equal(s.of("infer").length, 2);
  }, 0, false); // no prefetch: a loaded machine's measured round trip would send the next infer a tick early
});

test("an episode without a demonstration sends exec_start_idx 0; reset clears what was unsent", async () => {
  await withPolicy(undefined, async (p, s) => {
    await p.reset(EPISODE);
    await p.observe(frame(0));
    await p.reset({ ...EPISODE, episode: 1, instruction: "second" });
    await p.observe(frame(1));
    p.setInstruction("watch the video carefully, then press the button");
    await p.act();
    assert.deepEqual(s.requests.map((r) => r.op), ["reset", "reset", "add_buffer", "infer"]);
    const first = s.of("add_buffer")[0]!;
    assert.deepEqual([shape(first.images)[1], first.exec_start_idx], [[1, 1, 256, 256, 3], 0]);
    assert.equal(s.of("infer")[0]!.prompt, "watch the video carefully, then press the button");
    const late = /observeDemonstration\(\) after the episode's first observe\(\)/;
    await assert.rejects(p.observeDemonstration([frame(2)]), late);
  });
});

for (const [fault, op, cause] of [
  ["silent", "infer", /infer: no reply within 300 ms \(timeout_ms\)/],
  ["text_error", "infer", /server error on infer: .*AssertionError: history feats is empty/],
  ["unfinished", "add_buffer", /add_buffer reply add_buffer_finished is undefined, expected true/],
  ["silent", "add_buffer", /add_buffer: no reply within 300 ms \(timeout_ms\)/],
] as const) {
  test(`a ${fault} ${op} makes act() reject naming the cause (the loop holds) and is reported as a fault`, async () => {
    await withPolicy((o, n) => (o === op && n === 0 ? fault : null), async (p, _s, faults) => {
      await p.reset(EPISODE);
      await p.observe(frame(0));
      const t0 = Date.now();
      await assert.rejects(p.act(), cause);
      assert.ok(Date.now() - t0 < 2000, "a late server is a fault within timeout_ms, not a wait");
      assert.equal(faults.length, 1);
      assert.match(faults[0]!, cause);
      // The next episode reconnects and runs.
      await p.reset({ ...EPISODE, episode: 1 });
      await p.observe(frame(1));
      assert.equal((await p.act()).horizon, 16);
    });
  });
}

test("a slow server: the next infer goes out d ticks early, its chunk aligned to the tick it is used at", async () => {
  await withPolicy(undefined, async (p, s) => {
    chunks.length = 0;
    await p.reset(EPISODE);
    await p.observe(frame(0));
    await p.act(); // the first chunk: asked for at the tick, its round trip (~150 ms) measured
    for (let k = 1; k <= 16; k++) await p.observe(frame(k));
    const chunk = await p.act();
    // Ticks are 66 ms apart (the stamps), the round trip ~150 ms: d = ceil((150 + 33) / 66) - 1 = 2, more where a
    // loaded machine measured a longer trip; whatever d, the chunk starts at the observation d ticks back.
    const seen = chunks.map((c) => [c.step, c.fromStep, c.dropped, c.prefetched]);
    const d = chunks[1]?.dropped ?? 0;
    assert.ok(d >= 2 && d <= 4, `d = ${d}: a 150 ms round trip at 66 ms ticks is 2 ticks early (a loaded machine 3 or 4)`);
    assert.deepEqual(seen, [[0, 0, 0, false], [16, 16 - d, d, true]]);
    assert.equal(chunk.horizon, 16, "MME-VLA's 20 rows less the d past still cover the 16 to execute");
    assert.equal(Number(chunk.actions[0]!.toFixed(5)), (16 - d) / 10, `the rows of the observation at step ${16 - d}`);
    assert.equal(s.of("infer").length, 2);
  }, 150);
});

test("a reset reply without reset_finished fails the reset", async () => {
  await withPolicy((op) => (op === "reset" ? "unfinished" : null), async (p) => {
    await assert.rejects(p.reset(EPISODE), /reset reply reset_finished is undefined, expected true/);
  });
});

test("the robomme mapping is checked on load: protocol robomme needs it, its cameras and dims must exist", () => {
  const { manifest } = loadRemoteManifest(`${BUNDLE}/policy.yaml`);
  assert.equal(manifest.protocol, "robomme");
  assert.deepEqual(manifest.robomme!.memory_cameras, ["exterior_left"]);
  const mapping = { images: { head: "observation/image" }, memory_cameras: ["head"] };
  const URL = "ws://127.0.0.1:1";
  const bundle = (over: Record<string, unknown>) => writeRemoteBundle(URL, { protocol: "robomme", ...over });
  const load = (over: Record<string, unknown>) => () => loadRemoteManifest(`${bundle(over)}/policy.yaml`);
  assert.doesNotThrow(load({ robomme: mapping }));
  assert.throws(load({}), /robomme.*expected a robomme: mapping/s);
  assert.throws(load({ robomme: { ...mapping, memory_cameras: ["front"] } }),
    /robomme\.memory_cameras\[0\]: camera "front" is not in cameras \[head, left_wrist, right_wrist\]/s);
  assert.throws(load({ robomme: { ...mapping, action_map: [{ index: 16, scale: 1 }] } }),
    /robomme\.action_map\[0\]\.index: index 16 is past action_dim 16/s);
  const loaded = loadRemotePolicy(BUNDLE, { robot });
  assert.ok(loaded instanceof RoboMMEPolicy, "protocol: robomme loads a RoboMMEPolicy");
  void loaded.close();
});

test("a chunk with a non-finite value or another action width is refused whole", async () => {
  const { manifest } = loadRemoteManifest(`${BUNDLE}/policy.yaml`);
  const values = (n: number, bad: boolean) => Float32Array.from({ length: n }, (_, i) => (bad && i === 9 ? NaN : 0));
  const rows = (h: number, d: number, bad = false) => ({ actions: f32Array(values(h * d, bad), [h, d]) });
  assert.equal(readChunk(rows(20, 8), manifest, "t").horizon, 20, "all rows: the policy aligns, then cuts to horizon");
  assert.equal(readChunk(rows(10, 8), manifest, "t").horizon, 10);
  assert.throws(() => readChunk(rows(20, 8, true), manifest, "t"), /actions\[1\]\[1\] is NaN, expected a finite/);
  assert.throws(() => readChunk(rows(20, 7), manifest, "t"), /actions shape \[20, 7\], expected \[H, 8\]/);
});
