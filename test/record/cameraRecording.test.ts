/**
 * Lean camera recording: an expert episode recorded with --camera-rate 10 --image-format jpeg
 * holds the raw head camera as JPEG CompressedImage on <topic>/compressed (as image_transport
 * publishes it) and every camera and camera info at 10 Hz, while joint states keep their rate;
 * the rate gate and the flag checks on their own.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { parseCommand } from "../../src/cli/args.js";
import { spec as recordSpec } from "../../src/cli/record.js";
import { spec as runSpec } from "../../src/cli/run.js";
import { recordingFlags } from "../../src/cli/recordingFlags.js";
import { loadRunConfig } from "../../src/config/loaders.js";
import { decode } from "../../src/msgs/codec.js";
import { rateGate } from "../../src/record/cameraRecording.js";
import { readRecordingSpec } from "../../src/record/episodeIndex.js";
import { McapSource, summarizeMcap } from "../../src/record/index.js";
import { recordEpisodes } from "../../src/app/recordSession.js";
import { loadRobotProfile } from "../../src/robot/loadRobotProfile.js";

const dir = mkdtempSync(join(tmpdir(), "engram-camrec-test-"));
after(() => rmSync(dir, { recursive: true, force: true }));

test("rate gate: a 30 Hz stream capped at 10 Hz keeps every third frame; jitter does not drop frames", () => {
  const gate = rateGate(10);
  const kept = Array.from({ length: 30 }, (_, i) => BigInt(Math.round(i * 1e9 / 30))).filter((ns) => gate(ns));
  assert.equal(kept.length, 10);
  const jittery = rateGate(10);
  assert.deepEqual([0n, 99_000_000n, 198_000_000n, 250_000_000n].map((ns) => jittery(ns)), [true, true, true, false]);
});

test("recording flags: defaults, values, and errors naming the flag", () => {
  const f = (args: string[]) => recordingFlags(parseCommand(recordSpec, ["launch/sim-x-one.yaml", ...args]));
  const viaRun = (args: string[]) => recordingFlags(parseCommand(runSpec, ["launch/sim-x-one.yaml", ...args]));
  assert.deepEqual(f([]), { compression: "zstd", cameras: { rateHz: null, format: "raw", jpegQuality: 90 } });
  assert.deepEqual(f(["--camera-rate", "10", "--image-format", "jpeg", "--jpeg-quality", "80", "--compression", "lz4"]),
    { compression: "lz4", cameras: { rateHz: 10, format: "jpeg", jpegQuality: 80 } });
  assert.deepEqual(viaRun(["--camera-rate=10", "--image-format", "jpeg", "--compression", "none"]),
    { compression: "none", cameras: { rateHz: 10, format: "jpeg", jpegQuality: 90 } });
  // Bad values are refused by the parser itself (exit 2), naming the flag, the value and the range.
  assert.throws(() => f(["--camera-rate", "0"]), /--camera-rate: expected a number above 0 up to 1000, found "0"/);
  assert.throws(() => f(["--camera-rate", "fast"]), /--camera-rate: expected a number above 0 up to 1000, found "fast"/);
  assert.throws(() => f(["--image-format", "png"]), /--image-format: expected one of raw, jpeg, found "png"/);
  assert.throws(() => f(["--jpeg-quality", "101"]), /--jpeg-quality: expected an integer from 1 to 100 \(decimal digits\), found "101"/);
  assert.throws(() => f(["--compression", "gzip"]), /--compression: expected one of zstd, lz4, none, found "gzip"/);
});

test("record --camera-rate 10 --image-format jpeg: JPEG CompressedImage at 10 Hz, joints untouched", { timeout: 120_000 }, async () => {
  const run = loadRunConfig("launch/sim-x-one.yaml");
  const robot = loadRobotProfile(run.robotPath);
  const steps = 15; // 1.5 s at 10 Hz control
  await recordEpisodes({
    run, robot, source: "expert", task: "put-back-block", episodes: 1, seed: 3, outDir: dir, maxSteps: steps,
    recording: { compression: "zstd", cameras: { rateHz: 10, format: "jpeg", jpegQuality: 85 } },
  });
  const path = join(dir, "episodes", "0.mcap");
  const info = await summarizeMcap(path);
  const count = (topic: string) => info.topics.find((t) => t.topic === topic);
  const head = count("/head_camera/color/image_raw/compressed");
  assert.ok(head, "the raw head camera is recorded on its /compressed topic");
  assert.equal(head.type, "sensor_msgs/msg/CompressedImage");
  assert.equal(count("/head_camera/color/image_raw"), undefined, "no raw head frames");
  const seconds = steps / 10;
  for (const topic of ["/head_camera/color/image_raw/compressed", "/left_wrist_camera/color/image_raw/compressed", "/head_camera/color/camera_info"]) {
    const n = count(topic)?.count ?? 0;
    assert.ok(n >= seconds * 10 - 1 && n <= seconds * 10 + 2, `${topic}: ${n} messages in ${seconds} s at 10 Hz`);
  }
  const joints = count(robot.profile.joint_state.topic)?.count ?? 0;
  assert.ok(joints >= seconds * robot.profile.joint_state.rate_hz - 2, `joint states keep their rate (${joints})`);
  assert.deepEqual(readRecordingSpec(dir).cameras.find((c) => c.name === "head"), { name: "head", topic: "/head_camera/color/image_raw/compressed", encoding: "jpeg", rate_hz: 10 });

  const src = await McapSource.open(path);
  try {
    for await (const m of src.messages({ topics: ["/head_camera/color/image_raw/compressed"] })) {
      const img = decode("sensor_msgs/msg/CompressedImage", m.cdr);
      assert.equal(img.format, "rgb8; jpeg compressed bgr8");
      assert.equal(img.header.frame_id, "head_camera_color_optical_frame");
      assert.deepEqual([img.data[0], img.data[1]], [0xff, 0xd8], "JPEG SOI marker");
      const meta = await sharp(img.data).metadata();
      assert.deepEqual([meta.format, meta.width, meta.height], ["jpeg", 640, 480]);
      break;
    }
  } finally {
    await src.close();
  }
});
