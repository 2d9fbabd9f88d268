import { test } from "node:test";
import assert from "node:assert/strict";
import sharp from "sharp";
import { frameToTensor, hwcToNormalizedChw, type ImageSpec } from "../../src/observe/preprocess.js";
import type { Image } from "../../src/msgs/types.js";

const header = { stamp: { sec: 0, nanosec: 0 }, frame_id: "cam" };
const unit: ImageSpec = { width: 4, height: 2, mean: [0, 0, 0], std: [1, 1, 1] };

function solidImage(width: number, height: number, rgb: [number, number, number], encoding = "rgb8"): Image {
  const data = new Uint8Array(width * height * 3);
  for (let i = 0; i < width * height; i++) data.set(encoding === "bgr8" ? [rgb[2], rgb[1], rgb[0]] : rgb, i * 3);
  return { header, height, width, encoding, is_bigendian: 0, step: width * 3, data };
}

test("hwc → chw normalization per channel", () => {
  const rgb = new Uint8Array([255, 0, 51, 0, 255, 102]);
  const out = hwcToNormalizedChw(rgb, { width: 2, height: 1, mean: [0.5, 0.5, 0.5], std: [0.5, 0.5, 0.5] });
  assert.deepEqual(Array.from(out).map((v) => Math.round(v * 100) / 100), [1, -1, -1, 1, -0.6, -0.2]);
});

test("raw rgb8 and bgr8 frames resize to the spec with colour kept", async () => {
  for (const encoding of ["rgb8", "bgr8"]) {
    const t = await frameToTensor({ kind: "raw", msg: solidImage(64, 32, [255, 128, 0], encoding) }, unit, "/cam");
    assert.equal(t.length, 4 * 2 * 3);
    assert.ok(Math.abs(t[0]! - 1) < 0.01 && Math.abs(t[8]! - 128 / 255) < 0.01 && Math.abs(t[16]!) < 0.01, `${encoding}: ${t}`);
  }
});

test("jpeg frames decode and resize", async () => {
  const raw = solidImage(64, 48, [0, 0, 255]);
  const jpeg = await sharp(raw.data, { raw: { width: 64, height: 48, channels: 3 } }).jpeg().toBuffer();
  const t = await frameToTensor({ kind: "compressed", msg: { header, format: "jpeg", data: new Uint8Array(jpeg) } }, unit, "/cam");
  assert.ok(t[16]! > 0.95 && t[0]! < 0.05);
});

test("malformed frames are rejected naming the topic", async () => {
  const short = { ...solidImage(8, 8, [0, 0, 0]), data: new Uint8Array(10) };
  await assert.rejects(frameToTensor({ kind: "raw", msg: short }, unit, "/head/image"), /\/head\/image: image data 10 bytes too short/);
  await assert.rejects(frameToTensor({ kind: "raw", msg: { ...solidImage(2, 2, [0, 0, 0]), encoding: "yuv422" } }, unit, "/x"), /\/x: unsupported image encoding "yuv422"/);
  await assert.rejects(frameToTensor({ kind: "compressed", msg: { header, format: "jpeg", data: new Uint8Array([1, 2, 3]) } }, unit, "/y"), /\/y: cannot decode jpeg image/);
});
