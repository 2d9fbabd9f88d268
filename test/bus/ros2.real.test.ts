/**
 * Real ROS 2: two processes exchange sensor_msgs Image and JointState through rclnodejs. This
 * process uses the ros2 bus (raw CDR from our codec); the peer (test/bus/ros2Peer.ts) echoes
 * either with rclnodejs's typed messages (it must parse our bytes and serialize its own) or raw
 * through another Ros2Bus. Skipped, saying why, where ROS 2 is not sourced (never in CI: rosGate.ts).
 */
// Runs alone (scripts/test.sh): it talks over a real DDS.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { test } from "node:test";
import { firstValueFrom } from "rxjs";
import { Ros2Bus } from "../../src/bus/ros2.js";
import { publisher, topic$ } from "../../src/bus/rx.js";
import { RELIABLE_QOS } from "../../src/bus/types.js";
import { codecFor } from "../../src/msgs/codec.js";
import type { Image, JointState } from "../../src/msgs/types.js";
import { rosSkip } from "./rosGate.js";

const SKIP = rosSkip();

const image: Image = {
  header: { stamp: { sec: 12, nanosec: 345 }, frame_id: "head_camera_optical" },
  height: 480,
  width: 640,
  encoding: "rgb8",
  is_bigendian: 0,
  step: 640 * 3,
  data: Uint8Array.from({ length: 640 * 480 * 3 }, (_, i) => (i * 7) & 255),
};
const joints: JointState = {
  header: { stamp: { sec: 12, nanosec: 400 }, frame_id: "" },
  name: Array.from({ length: 16 }, (_, i) => `joint_${i}`),
  position: Float64Array.from({ length: 16 }, (_, i) => i * 0.1 - 0.5),
  velocity: new Float64Array(16),
  effort: new Float64Array(0),
};

for (const mode of ["typed", "raw"] as const) {
  test(`two processes exchange Image and JointState (peer ${mode})`, { skip: SKIP, timeout: 90_000 }, async () => {
    const prefix = `/engram_test_${process.pid}_${mode}`;
    const peer = spawn(process.execPath, ["--import", "tsx", "test/bus/ros2Peer.ts", mode, prefix], { stdio: ["ignore", "pipe", "inherit"] });
    try {
      const [first] = (await Promise.race([once(peer.stdout!, "data"), once(peer, "exit")])) as [Buffer | number];
      assert.ok(Buffer.isBuffer(first) && first.toString().includes("ready"), `peer did not start (exit ${String(first)})`);
      const bus = await Ros2Bus.create({ nodeName: `engram_test_${mode}` });
      try {
        const imageCodec = codecFor("sensor_msgs/msg/Image");
        const jointCodec = codecFor("sensor_msgs/msg/JointState");
        const imageEcho = firstValueFrom(topic$(bus, `${prefix}/image_echo`, "sensor_msgs/msg/Image", RELIABLE_QOS, imageCodec));
        const jointEcho = firstValueFrom(topic$(bus, `${prefix}/joints_echo`, "sensor_msgs/msg/JointState", RELIABLE_QOS, jointCodec));
        const sendImage = publisher(bus, `${prefix}/image`, "sensor_msgs/msg/Image", RELIABLE_QOS, imageCodec);
        const sendJoints = publisher(bus, `${prefix}/joints`, "sensor_msgs/msg/JointState", RELIABLE_QOS, jointCodec);
        // Discovery takes a moment: publish until both echoes are back (bounded by the test timeout).
        let settled = false;
        const both = Promise.all([imageEcho, jointEcho]).finally(() => (settled = true));
        while (!settled) {
          sendImage(image);
          sendJoints(joints);
          await Promise.race([both, new Promise((r) => setTimeout(r, 250))]);
        }
        const [img, js] = await both;
        assert.equal(img.msg.width, 640);
        assert.equal(img.msg.height, 480);
        assert.equal(img.msg.encoding, "rgb8");
        assert.equal(img.msg.header.frame_id, "head_camera_optical");
        assert.deepEqual(img.msg.header.stamp, image.header.stamp);
        assert.equal(Buffer.compare(Buffer.from(img.msg.data), Buffer.from(image.data)), 0, "image bytes identical");
        assert.deepEqual(js.msg.name, joints.name);
        assert.deepEqual(Array.from(js.msg.position), Array.from(joints.position));
        assert.equal(js.msg.effort.length, 0);
      } finally {
        await bus.close();
      }
    } finally {
      if (peer.exitCode === null) {
        // SIGINT is what `ros2 launch` sends: the peer must close its node itself and exit 0
        // (rclnodejs's own SIGINT handler would shut the context down under it).
        const exited = once(peer, "exit");
        peer.kill("SIGINT");
        const [code, signal] = (await exited) as [number | null, string | null];
        assert.equal(code, 0, `peer (${mode}) exited with ${code ?? signal} on SIGINT`);
      }
    }
  });
}
