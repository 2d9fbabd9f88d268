/**
 * The MCAP demonstration reader (src/trial/mcapDemonstration.ts) on small real MCAPs written here:
 * frames at the recording's control rate, prepared as the live loop prepares them (the head image
 * through frameToTensor, the joint state in the policy layout), and errors that name the file and
 * the topic when a policy camera, the joint state or the episode metadata is missing.
 */
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { RELIABLE_QOS } from "../../src/bus/types.js";
import { encode } from "../../src/msgs/codec.js";
import { sampleHeader, sampleImage } from "../../src/msgs/samples.js";
import { cameraFrameOf } from "../../src/observe/latestSensors.js";
import { frameToTensor, type ImageSpec } from "../../src/observe/preprocess.js";
import { McapRecorder } from "../../src/record/mcapRecorder.js";
import { getLayout, loadRobotProfile } from "../../src/robot/index.js";
import { mcapDemonstration } from "../../src/trial/mcapDemonstration.js";

const { profile } = loadRobotProfile("robots/x-one.yaml");
const layout = getLayout(profile, "bimanual_16d");
const HEAD = profile.cameras.find((c) => c.name === "head")!;
const SPEC: ImageSpec = { width: 16, height: 12, mean: [0.5, 0.5, 0.5], std: [0.5, 0.5, 0.5] };
const INPUTS = { profile, layout, imageSpecs: { head: SPEC } };
const MS = 1_000_000n;

/** One second of an episode: joint states at 100 Hz (joint j at 0.01·j + 0.001·k), head frames at 30 Hz. */
async function writeEpisode(opts: { head?: boolean; joints?: boolean; identity?: boolean } = {}): Promise<string> {
  const path = join(mkdtempSync(join(tmpdir(), "engram-demo-")), "demo.mcap");
  const rec = await McapRecorder.open(path);
  const joints = profile.joints.map((j) => j.name);
  await rec.addTopic(profile.joint_state.topic, "sensor_msgs/msg/JointState", RELIABLE_QOS);
  await rec.addTopic(HEAD.topic, "sensor_msgs/msg/Image", RELIABLE_QOS);
  if (opts.identity ?? true) {
    await rec.addMetadata("engram_episode", new Map([
      ["episode", "0"], ["robot", profile.name], ["task", "put-back-block"], ["seed", "0"], ["source", "test"],
      ["control_hz", "10"], ["physics_hz", "null"], ["start_ns", "0"],
    ]));
  }
  for (let t = 0n; t < 1000n; t += 10n) {
    if (opts.joints ?? true) {
      const k = Number(t / 10n);
      const position = Float64Array.from(joints, (_n, j) => 0.01 * j + 0.001 * k);
      const js = { header: sampleHeader(t * MS, "base_link"), name: joints, position, velocity: [], effort: [] };
      await rec.write(profile.joint_state.topic, encode("sensor_msgs/msg/JointState", js), t * MS);
    }
    if ((opts.head ?? true) && t % 30n === 0n) {
      await rec.write(HEAD.topic, encode("sensor_msgs/msg/Image", sampleImage(32, 24, t * MS, Number(t))), t * MS);
    }
  }
  await rec.close();
  return path;
}

test("frames at the control rate, prepared as the live loop prepares them", async () => {
  const path = await writeEpisode();
  const source = await mcapDemonstration(path, INPUTS);
  assert.equal(source.kind, "mcap");
  assert.deepEqual(source.topics, [
    { topic: HEAD.topic, type: "sensor_msgs/msg/Image" }, { topic: "/joint_states", type: "sensor_msgs/msg/JointState" },
  ]);
  const demo = await source.load("put-back-block", 0, 0);
  assert.equal(demo.controlHz, 10);
  assert.equal(demo.frames.length, 10, "ticks at 100, 200 .. 1000 ms");
  const f = demo.frames[3]!;
  assert.equal(f.observation.stampNs, 400n * MS);
  // Tick 3 ends at 400 ms: the latest joint state is sample 39 or 40, the latest head frame the one at 390 ms.
  const names = profile.joints.map((j) => j.name);
  const k = Math.round((f.observation.state[0]! - 0.01 * names.indexOf(layout.kind === "joint" ? layout.names[0]! : "")) / 0.001);
  assert.ok(k === 39 || k === 40, `joint sample ${k}`);
  const head = f.messages.find((m) => m.topic === HEAD.topic)!;
  const expected = await frameToTensor(cameraFrameOf("sensor_msgs/msg/Image", head.cdr)!, SPEC, HEAD.topic);
  assert.deepEqual(f.observation.images.head, expected);
  assert.equal(f.observation.images.head!.length, 3 * 16 * 12);
  assert.equal(f.observation.state.length, 16);
});

test("a missing policy camera names the file and the topic", async () => {
  const path = await writeEpisode({ head: false });
  await assert.rejects(mcapDemonstration(path, INPUTS),
    new RegExp(`demonstration ${path}: no messages on topic /head_camera/color/image_raw of policy camera "head"`));
});

test("a missing joint state names the file and the topic", async () => {
  const path = await writeEpisode({ joints: false });
  await assert.rejects(mcapDemonstration(path, INPUTS),
    new RegExp(`demonstration ${path}: no messages on the joint-state topic /joint_states of robot x-one`));
});

test("a file that is not an engram episode is refused by name", async () => {
  const path = await writeEpisode({ identity: false });
  await assert.rejects(mcapDemonstration(path, INPUTS), new RegExp(`${path}: no engram_episode metadata`));
});
