/**
 * The recorder subscribes each topic as rosbag2 does (src/record/recordingQos.ts) and writes what
 * its publishers offer to offered_qos_profiles. On the in-process bus, which keeps ROS 2's
 * durability and compatibility rules; test/record/recordingQos.real.test.ts does it over DDS.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalBus } from "../../src/bus/local.js";
import { RELIABLE_QOS, SENSOR_QOS, type Qos } from "../../src/bus/types.js";
import { decode, encode } from "../../src/msgs/codec.js";
import { BusRecorder } from "../../src/record/busRecorder.js";
import { McapSource } from "../../src/bus/mcapReader.js";
import { recordingQos } from "../../src/record/recordingQos.js";

const LATCHED: Qos = { ...RELIABLE_QOS, durability: "transient_local", depth: 1 };

test("recordingQos: reliable / transient_local only when every publisher offers it; the declared profile until one is known", () => {
  const req = (declared: Qos, offered: Qos[]) => recordingQos(declared, offered).request;
  assert.deepEqual(req(LATCHED, []), { ...LATCHED, history: "keep_all" });
  assert.deepEqual(req(SENSOR_QOS, []), { ...SENSOR_QOS, history: "keep_all" });
  assert.deepEqual(req(SENSOR_QOS, [LATCHED]), { ...LATCHED, depth: 5, history: "keep_all" }, "the graph wins over the declaration");
  assert.deepEqual(req(LATCHED, [LATCHED, RELIABLE_QOS]), { ...RELIABLE_QOS, history: "keep_all" }, "one volatile publisher: volatile");
  assert.deepEqual(req(RELIABLE_QOS, [RELIABLE_QOS, SENSOR_QOS]), { ...SENSOR_QOS, depth: 10, history: "keep_all" }, "one best-effort publisher: best effort");
  const unreported = recordingQos(LATCHED, [{ ...LATCHED, depth: 0 }]);
  assert.deepEqual(unreported.offered, [LATCHED], "a depth the rmw does not report is the declared one");
});

test("a latched topic published before the recording starts is recorded; offered_qos_profiles lists each publisher's profile", async () => {
  const dir = mkdtempSync(join(tmpdir(), "engram-recqos-"));
  const bus = new LocalBus();
  try {
    const episode = bus.advertise("/sim/episode", "std_msgs/msg/String", LATCHED);
    episode(encode("std_msgs/msg/String", { data: "{\"seed\":3}" }));
    const reliable = bus.advertise("/mixed", "std_msgs/msg/String", RELIABLE_QOS);
    const bestEffort = bus.advertise("/mixed", "std_msgs/msg/String", SENSOR_QOS);
    const path = join(dir, "0.mcap");
    const rec = await BusRecorder.start(bus, path, [
      { topic: "/sim/episode", type: "std_msgs/msg/String", qos: LATCHED },
      { topic: "/mixed", type: "std_msgs/msg/String", qos: RELIABLE_QOS },
    ]);
    reliable(encode("std_msgs/msg/String", { data: "r" }));
    bestEffort(encode("std_msgs/msg/String", { data: "b" }));
    await new Promise((r) => setTimeout(r, 20));
    await rec.stop();
    const src = await McapSource.open(path);
    try {
      const got: string[] = [];
      for await (const m of src.messages()) got.push(`${m.topic} ${decode("std_msgs/msg/String", m.cdr).data}`);
      assert.deepEqual(got.sort(), ["/mixed b", "/mixed r", "/sim/episode {\"seed\":3}"]);
      const meta = new Map((await src.topics()).map((t) => [t.topic, t.metadata.get("offered_qos_profiles") ?? ""]));
      assert.match(meta.get("/sim/episode")!, /^- history: 1\n  depth: 1\n  reliability: 1\n  durability: 1\n/);
      const mixed = meta.get("/mixed")!;
      assert.equal((mixed.match(/^- history/gm) ?? []).length, 2, mixed);
      assert.match(mixed, /reliability: 1[\s\S]*reliability: 2/);
    } finally {
      await src.close();
    }
  } finally {
    await bus.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
