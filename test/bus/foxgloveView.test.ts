/**
 * The live view's server (src/bus/foxgloveView.ts) against a real client implementation
 * (@foxglove/ws-protocol's FoxgloveClient, test/bus/viewClient.ts): the handshake, channels with
 * ros2msg schemas, subscribe/unsubscribe, message data decoded from the advertised schema alone,
 * time frames on a sim clock, and a stalled client that must not slow publishing.
 */
// Runs alone (scripts/test.sh): it measures wall time.
import { test } from "node:test";
import assert from "node:assert/strict";
import { WebSocket } from "ws";
import { SimClock, WallClock } from "../../src/bus/clock.js";
import { FoxgloveView } from "../../src/bus/foxgloveView.js";
import { LocalBus } from "../../src/bus/local.js";
import { RELIABLE_QOS, SENSOR_QOS } from "../../src/bus/types.js";
import { encode } from "../../src/msgs/codec.js";
import { schemaTextFor } from "../../src/msgs/schemas.js";
import type { Image, JointState } from "../../src/msgs/types.js";
import { connectView } from "./viewClient.js";

const quiet = { log: () => undefined };
const stamp = { sec: 1, nanosec: 5 };

function image(width: number, height: number, fill: number): Image {
  return {
    header: { stamp, frame_id: "head_camera" }, height, width, encoding: "rgb8", is_bigendian: 0, step: width * 3,
    data: new Uint8Array(width * height * 3).fill(fill),
  };
}

const joints: JointState = {
  header: { stamp, frame_id: "" }, name: ["j1", "j2"], position: [0.25, -1.5], velocity: [0, 0], effort: [],
};

test("sim clock: serverInfo with time, ros2msg channels; an Image and a JointState decoded, unsubscribe", async () => {
  const view = await FoxgloveView.start({ port: 0, ...quiet });
  const clock = new SimClock(1_000n);
  const bus = view.tap(new LocalBus({ clock }));
  const pubImage = bus.advertise("/head_camera/color/image_raw", "sensor_msgs/msg/Image", SENSOR_QOS);
  const pubJoints = bus.advertise("/joint_states", "sensor_msgs/msg/JointState", SENSOR_QOS);
  const client = connectView(view.url);
  try {
    const info = await client.serverInfo;
    assert.deepEqual(info.capabilities, ["time"]);
    await client.until("two channels", () => client.channels.size === 2);
    const ch = client.channels.get("/joint_states")!;
    assert.equal(ch.encoding, "cdr");
    assert.equal(ch.schemaName, "sensor_msgs/msg/JointState");
    assert.equal(ch.schemaEncoding, "ros2msg");
    assert.equal(ch.schema, schemaTextFor("sensor_msgs/msg/JointState"));
    const subImage = client.subscribe("/head_camera/color/image_raw");
    client.subscribe("/joint_states");
    await new Promise((r) => setTimeout(r, 50)); // the subscribe ops reach the server
    await clock.advanceTo(2_000n);
    pubImage(encode("sensor_msgs/msg/Image", image(4, 2, 7)));
    pubJoints(encode("sensor_msgs/msg/JointState", joints));
    await client.until("two messages", () => client.received.length === 2);
    const [img, js] = client.received;
    assert.equal(img!.timestampNs, 2_000n);
    const decoded = client.decode<Image>(img!);
    assert.equal(decoded.width, 4);
    assert.equal(decoded.encoding, "rgb8");
    assert.deepEqual([...decoded.data], new Array(24).fill(7));
    assert.deepEqual([...client.decode<JointState>(js!).position], [0.25, -1.5]);
    assert.ok(client.times.includes(2_000n), `time frames ${client.times.join(", ")} include 2000`);
    // Unsubscribed: no more images; the joint states still come.
    client.unsubscribe(subImage);
    await new Promise((r) => setTimeout(r, 50));
    pubImage(encode("sensor_msgs/msg/Image", image(4, 2, 9)));
    pubJoints(encode("sensor_msgs/msg/JointState", joints));
    await client.until("a third message", () => client.received.length === 3);
    await new Promise((r) => setTimeout(r, 50));
    const topics = client.received.map((m) => m.topic);
    assert.deepEqual(topics, ["/head_camera/color/image_raw", "/joint_states", "/joint_states"]);
  } finally {
    client.close();
    await view.close();
  }
});

test("wall clock: no time capability; a subscribed-only topic carried once; a bad request gets a status", async () => {
  const view = await FoxgloveView.start({ port: 0, ...quiet });
  const inner = new LocalBus({ clock: new WallClock() });
  const bus = view.tap(inner);
  // Two subscribers of a topic published outside the tapped bus (a robot's driver over ROS 2).
  bus.subscribe("/engram/events", "std_msgs/msg/String", RELIABLE_QOS, () => undefined);
  bus.subscribe("/engram/events", "std_msgs/msg/String", RELIABLE_QOS, () => undefined);
  const outside = inner.advertise("/engram/events", "std_msgs/msg/String", RELIABLE_QOS);
  const client = connectView(view.url);
  try {
    assert.deepEqual((await client.serverInfo).capabilities, []);
    await client.until("the events channel", () => client.channels.has("/engram/events"));
    client.subscribe("/engram/events");
    client.ws.send(JSON.stringify({ op: "subscribe", subscriptions: [{ id: 0, channelId: 999 }] }));
    await new Promise((r) => setTimeout(r, 50));
    outside(encode("std_msgs/msg/String", { data: '{"event":"episode_start"}' }));
    await client.until("one event", () => client.received.length === 1);
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(client.received.length, 1, "a topic with two subscribers is carried once");
    assert.equal(client.decode<{ data: string }>(client.received[0]!).data, '{"event":"episode_start"}');
    assert.equal(client.times.length, 0);
    assert.ok(client.statuses.some((s) => s.includes("already in use")), client.statuses.join("; "));
  } finally {
    client.close();
    await view.close();
  }
});

test("a connection without the foxglove.websocket.v1 subprotocol is refused", async () => {
  const view = await FoxgloveView.start({ port: 0, ...quiet });
  try {
    const ws = new WebSocket(view.url);
    const code = await new Promise<number>((resolve) => ws.on("close", (c) => resolve(c)));
    assert.equal(code, 1002);
  } finally {
    await view.close();
  }
});

test("a port in use is an error naming the address", async () => {
  const first = await FoxgloveView.start({ port: 0, ...quiet });
  try {
    const inUse = new RegExp(`127\\.0\\.0\\.1:${first.port}: the port is in use`);
    await assert.rejects(FoxgloveView.start({ port: first.port, ...quiet }), inUse);
  } finally {
    await first.close();
  }
});

test("a stalled client does not slow publishing: its queue stays bounded and drops its oldest frames", async () => {
  const maxQueuedBytes = 2 * 1024 * 1024, socketHighWaterBytes = 1024 * 1024;
  const view = await FoxgloveView.start({ port: 0, maxQueuedBytes, socketHighWaterBytes, ...quiet });
  const clock = new SimClock(0n);
  const bus = view.tap(new LocalBus({ clock }));
  const pub = bus.advertise("/head_camera/color/image_raw", "sensor_msgs/msg/Image", SENSOR_QOS);
  const client = connectView(view.url);
  try {
    await client.until("the channel", () => client.channels.size === 1);
    client.subscribe("/head_camera/color/image_raw");
    await new Promise((r) => setTimeout(r, 50));
    (client.ws as unknown as { _socket: { pause(): void } })._socket.pause(); // reads nothing from now on
    const frame = encode("sensor_msgs/msg/Image", image(640, 480, 3)); // 0.9 MB
    const publishMs: number[] = [];
    for (let i = 0; i < 300; i++) { // 276 MB: far more than the socket and the queue hold
      const t0 = performance.now();
      pub(frame);
      publishMs.push(performance.now() - t0);
      if (i % 20 === 0) await new Promise((r) => setImmediate(r));
    }
    publishMs.sort((a, b) => a - b);
    const p99 = publishMs[Math.floor(publishMs.length * 0.99)]!;
    assert.ok(p99 < 5, `publish p99 ${p99.toFixed(2)} ms with a stalled client`);
    const stats = await view.close();
    const c = stats.clients[0]!;
    assert.ok(c.droppedFrames > 200, `dropped ${c.droppedFrames} frames`);
    assert.ok(c.sentFrames < 100, `handed ${c.sentFrames} frames to the socket`);
  } finally {
    client.ws.terminate(); // its socket is paused: a closing handshake would wait for its timeout
    await view.close().catch(() => undefined);
  }
});
