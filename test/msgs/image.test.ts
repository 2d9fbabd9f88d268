import assert from "node:assert/strict";
import { test } from "node:test";
import sharp from "sharp";
import { compressedImageFromRgb, imageFromRgb, JPEG_FORMAT_FROM_RGB8, jpegFromRgb, pngFromRgb } from "../../src/msgs/image.js";
import { boxMesh } from "../../src/sim/render/meshes.js";
import { renderCamera } from "../../src/sim/render/rasterize.js";

const header = { stamp: { sec: 12, nanosec: 345 }, frame_id: "head_camera_optical_frame" };
// A 160x120 render: a red box in the middle of a grey background.
const frame = renderCamera([boxMesh([0.1, 0.1, 0.1], { position: [0, 0, 1], quaternion: [0, 0, 0, 1] }, [230, 20, 20])],
  { width: 160, height: 120, fx: 100, fy: 100, cx: 79.5, cy: 59.5, worldFromCamera: { position: [0, 0, 0], quaternion: [0, 0, 0, 1] } });

test("imageFromRgb fills sensor_msgs/Image rgb8 fields and copies the pixels", () => {
  const img = imageFromRgb(frame.rgb, 160, 120, header);
  assert.deepEqual([img.width, img.height, img.encoding, img.is_bigendian, img.step], [160, 120, "rgb8", 0, 480]);
  assert.equal(img.header, header);
  assert.deepEqual(img.data, frame.rgb);
  assert.notEqual(img.data.buffer, frame.rgb.buffer, "the message must not alias the reused render buffer");
  assert.equal(imageFromRgb(frame.rgb, 160, 120, header, { copy: false }).data, frame.rgb, "copy: false aliases");
  assert.throws(() => imageFromRgb(frame.rgb, 100, 120, header), /rgb buffer has 57600 bytes, expected 100x120x3 = 36000/);
});

test("JPEG and PNG encodings decode back with sharp to the right size and content", async () => {
  const jpeg = await jpegFromRgb(frame.rgb, 160, 120);
  const png = await pngFromRgb(frame.rgb, 160, 120);
  assert.deepEqual([...jpeg.subarray(0, 2)], [0xff, 0xd8]);
  assert.deepEqual([...png.subarray(1, 4)], [0x50, 0x4e, 0x47]); // "PNG"
  for (const [kind, bytes, tol] of [["jpeg", jpeg, 12], ["png", png, 0]] as const) {
    assert.equal((await sharp(bytes).metadata()).format, kind);
    const { data, info } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true });
    assert.deepEqual([info.width, info.height, info.channels], [160, 120, 3]);
    for (const [u, v] of [[80, 60], [2, 2]]) { // box centre, background corner
      for (let k = 0; k < 3; k++) {
        const o = 3 * (v * 160 + u) + k;
        assert.ok(Math.abs(data[o] - frame.rgb[o]) <= tol, `${kind} pixel (${u},${v}) channel ${k}: ${data[o]} vs ${frame.rgb[o]}`);
      }
    }
  }
  const msg = await compressedImageFromRgb(frame.rgb, 160, 120, header, 80);
  assert.equal(msg.format, JPEG_FORMAT_FROM_RGB8);
  assert.equal(msg.header, header);
  assert.equal((await sharp(msg.data).metadata()).width, 160);
  await assert.rejects(jpegFromRgb(frame.rgb, 160, 120, 0), /quality 0 must be an integer 1..100/);
});
