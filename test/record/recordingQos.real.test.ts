/**
 * Real ROS 2 (DDS): a recorder started after a latched message was sent still records it, as
 * `ros2 bag record` does, and writes the publisher's offered profile (from the graph) to the MCAP.
 * Two nodes in two contexts of this process, so the messages go through DDS. Skipped, saying why,
 * where ROS 2 is not sourced.
 */
// Runs alone (scripts/test.sh): it talks over a real DDS.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ros2Bus } from "../../src/bus/ros2.js";
import { RELIABLE_QOS, type Qos } from "../../src/bus/types.js";
import { decode, encode } from "../../src/msgs/codec.js";
import { BusRecorder } from "../../src/record/busRecorder.js";
import { McapSource } from "../../src/bus/mcapReader.js";
import { qosFromOfferedYaml } from "../../src/record/mcapQos.js";

const SKIP = process.env.ROS_DISTRO && process.env.AMENT_PREFIX_PATH
  ? false
  : "ROS_DISTRO/AMENT_PREFIX_PATH unset: no ROS 2 is sourced on this machine (source /opt/ros/<distro>/setup.bash)";

const LATCHED: Qos = { ...RELIABLE_QOS, durability: "transient_local", depth: 1 };

async function until(done: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = performance.now() + ms;
  while (!done()) {
    if (performance.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test("over DDS: a latched message sent before the recording started is recorded with its publisher's QoS", { skip: SKIP, timeout: 60_000 }, async () => {
  const domainId = Number(process.env.ROS_DOMAIN_ID ?? 0);
  const topic = `/engram_test_${process.pid}/episode`;
  const twin = await Ros2Bus.create({ nodeName: "engram_test_twin", domainId, useSimTime: false });
  const runtime = await Ros2Bus.create({ nodeName: "engram_test_recorder", domainId, useSimTime: false });
  const dir = mkdtempSync(join(tmpdir(), "engram-recqos-real-"));
  try {
    twin.advertise(topic, "std_msgs/msg/String", LATCHED)(encode("std_msgs/msg/String", { data: "sent before" }));
    await until(() => runtime.offeredQos(topic).length > 0, `the graph to show the publisher of ${topic}`);
    const path = join(dir, "0.mcap");
    const rec = await BusRecorder.start(runtime, path, [{ topic, type: "std_msgs/msg/String", qos: RELIABLE_QOS }]);
    await until(() => rec.messageCount > 0, "the latched message to be recorded", 5_000).catch(() => undefined);
    await rec.stop();
    const src = await McapSource.open(path);
    try {
      const got: string[] = [];
      for await (const m of src.messages()) got.push(decode("std_msgs/msg/String", m.cdr).data);
      assert.deepEqual(got, ["sent before"]);
      const [channel] = await src.topics();
      const offered = qosFromOfferedYaml(channel!.metadata.get("offered_qos_profiles"));
      assert.equal(offered?.durability, "transient_local");
      assert.equal(offered?.reliability, "reliable");
    } finally {
      await src.close();
    }
  } finally {
    await runtime.close();
    await twin.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
