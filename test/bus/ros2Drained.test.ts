/**
 * What a process publishes reaches its own recording before the recording closes, over a
 * middleware that takes time even to this process's readers (settle + Ros2Bus.drained). FAKE:
 * test/fakes/rclnodejs.ts with a delivery latency stands for rclnodejs over DDS.
 */
// Runs alone (scripts/test.sh): it measures wall time.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Ros2Bus } from "../../src/bus/ros2.js";
import { RELIABLE_QOS } from "../../src/bus/types.js";
import { settle } from "../../src/record/episodeWriter.js";
import { createFakeRclnodejs, FakeGraph } from "../fakes/rclnodejs.js";

test("settle waits for the bus's own messages to come back through the middleware (bounded)", async () => {
  const graph = new FakeGraph();
  graph.latencyMs = 40;
  const bus = await Ros2Bus.create({ loadRclnodejs: async () => createFakeRclnodejs({ graph }), nodeName: "engram", useSimTime: false });
  try {
    const got: number[] = [];
    const off = bus.subscribe("/engram/events", "std_msgs/msg/String", RELIABLE_QOS, (cdr) => { got.push(cdr.length); });
    const publish = bus.advertise("/engram/events", "std_msgs/msg/String", RELIABLE_QOS);
    publish(new Uint8Array([0, 1, 0, 0, 2, 0, 0, 0, 97, 0]));
    publish(new Uint8Array([0, 1, 0, 0, 2, 0, 0, 0, 98, 0]));
    await settle(bus, [{ topic: "/engram/events" }]);
    assert.equal(got.length, 2, "both events reached the subscription before settle resolved");
    // Nothing comes back (no subscription matches a publisher of ours that never arrives): bounded.
    graph.latencyMs = 1500;
    publish(new Uint8Array([0, 1, 0, 0, 2, 0, 0, 0, 99, 0]));
    const t0 = performance.now();
    await bus.drained(["/engram/events"], 100);
    assert.ok(performance.now() - t0 < 1000, "drained gives up at its timeout");
    off();
  } finally {
    await bus.close();
  }
});
