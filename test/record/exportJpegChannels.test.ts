/**
 * RoboTwin's JPEG channel convention in `engram export --format hdf5`: two short expert episodes,
 * one recorded with raw rgb8 cameras and one with --image-format jpeg, are exported and read back
 * with h5py as RoboTwin's scripts read them, `cv2.imdecode(bytes)`. OpenCV is not installed here,
 * so cv2.imdecode is emulated as it behaves: Pillow decodes the JPEG in true colour and the
 * channels are reversed (cv2 returns the JPEG's colours in BGR order). Read that way a frame must
 * match the recorded camera frame (as RGB); read as true colour (Pillow alone) it must not.
 * training/mem0_tiny/hdf5ToNpy.ts, which decodes in true colour, must give the recorded colours.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { loadRunConfig } from "../../src/config/loaders.js";
import { decode } from "../../src/msgs/codec.js";
import { frameToTensor } from "../../src/observe/preprocess.js";
import { readEpisodeFrames, type CameraMessage } from "../../src/record/episodeFrames.js";
import { exportRunHdf5 } from "../../src/record/exportHdf5.js";
import { swapRedBlue } from "../../src/record/roboTwinJpeg.js";
import { recordEpisodes } from "../../src/app/recordSession.js";
import { loadRobotProfile } from "../../src/robot/loadRobotProfile.js";
import { convertEpisode } from "../../training/mem0_tiny/hdf5ToNpy.js";
import { missingPython, PROJECT_PYTHON, runPython } from "./externalTools.js";

const dir = mkdtempSync(join(tmpdir(), "engram-export-jpeg-test-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const run = loadRunConfig("launch/sim-x-one.yaml");
const robot = loadRobotProfile(run.robotPath);
const profile = robot.profile;
const STEPS = 8;
const FRAMES = [2, STEPS - 1];
const RECORDINGS = ["raw", "jpeg"] as const;

/** The recorded frame as rgb8 pixels: a raw Image's data, a CompressedImage decoded in true colour. */
async function rgbOf(m: CameraMessage): Promise<{ rgb: Uint8Array; width: number; height: number }> {
  if (m.type === "sensor_msgs/msg/Image") {
    const img = decode("sensor_msgs/msg/Image", m.cdr);
    return { rgb: img.data, width: img.width, height: img.height };
  }
  const jpeg = decode("sensor_msgs/msg/CompressedImage", m.cdr).data;
  const { data, info } = await sharp(jpeg).raw().toBuffer({ resolveWithObject: true });
  return { rgb: new Uint8Array(data), width: info.width, height: info.height };
}

/** Writes frames FRAMES of every camera of an episode as `<cam>-<k>.rgb`; returns each one's [height, width]. */
async function writeReferenceFrames(mcap: string, outDir: string): Promise<Record<string, [number, number]>> {
  const shapes: Record<string, [number, number]> = {};
  await readEpisodeFrames(mcap, profile, async (f) => {
    if (!FRAMES.includes(f.index)) return;
    for (const [cam, msg] of f.cameras) {
      const { rgb, width, height } = await rgbOf(msg);
      writeFileSync(join(outDir, `${cam}-${f.index}.rgb`), rgb);
      shapes[`${cam}-${f.index}`] = [height, width];
    }
  });
  return shapes;
}

const shapes: Record<string, Record<string, [number, number]>> = {};
before(async () => {
  for (const format of RECORDINGS) {
    const outDir = join(dir, format);
    await recordEpisodes({
      run, robot, source: "expert", task: "put-back-block", episodes: 1, seed: 5, outDir, maxSteps: STEPS,
      recording: { compression: "zstd", cameras: { rateHz: null, format, jpegQuality: 90 } },
    });
    await exportRunHdf5(outDir, profile);
    shapes[format] = await writeReferenceFrames(join(outDir, "episodes", "0.mcap"), outDir);
  }
}, { timeout: 120_000 });

test("swapRedBlue exchanges channels 0 and 2 of every pixel and refuses a partial pixel", () => {
  assert.deepEqual(Array.from(swapRedBlue(Uint8Array.of(1, 2, 3, 10, 20, 30))), [3, 2, 1, 30, 20, 10]);
  assert.deepEqual(Array.from(swapRedBlue(new Uint8Array(0))), []);
  assert.throws(() => swapRedBlue(Uint8Array.of(1, 2, 3, 4)), /4 bytes is not a whole number of 3-channel pixels/);
});

// What RoboTwin's process_data.py does with each frame, then the error against the recorded RGB frame.
const SCRIPT = `
import h5py, io, json, sys
import numpy as np
from PIL import Image
def cv2_imdecode(bits):
    # cv2.imdecode(np.frombuffer(bits, np.uint8), cv2.IMREAD_COLOR): the JPEG's colours in BGR order
    return np.asarray(Image.open(io.BytesIO(bytes(bits))).convert("RGB"))[..., ::-1]
path, ref_dir, shapes = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
out = {}
with h5py.File(path, "r") as root:
    out["attr"] = str(root.attrs.get("jpeg_channel_order"))
    for key, (h, w) in shapes.items():
        cam, k = key.rsplit("-", 1)
        name = cam.replace("_wrist", "") + "_camera"
        robotwin = cv2_imdecode(root[f"/observation/{name}/rgb"][int(k)]).astype(np.int16)
        ref = np.fromfile(f"{ref_dir}/{key}.rgb", np.uint8).reshape(h, w, 3).astype(np.int16)
        out[key] = {"as_rgb": float(np.abs(robotwin - ref).mean()),
                    "true_colour": float(np.abs(robotwin[..., ::-1] - ref).mean())}
print(json.dumps(out))
`;

for (const format of RECORDINGS) {
  test(`${format} cameras: cv2.imdecode of the export gives the recorded RGB frames, true colour does not`, (t) => {
    const missing = missingPython(PROJECT_PYTHON, ["h5py", "numpy", "PIL"]);
    if (missing) { t.skip(missing); return; }
    const outDir = join(dir, format);
    const file = join(outDir, "hdf5", "data", "episode0.hdf5");
    type Errors = { attr: string } & Record<string, { as_rgb: number; true_colour: number }>;
    const args = [file, outDir, JSON.stringify(shapes[format])];
    const out = JSON.parse(runPython(PROJECT_PYTHON, SCRIPT, args)) as Errors;
    const keys = Object.keys(shapes[format]!);
    assert.equal(keys.length, FRAMES.length * profile.cameras.length, `frames compared: ${keys.join(", ")}`);
    for (const key of keys) {
      const e = out[key]!;
      t.diagnostic(`${key}: mean abs error as RGB ${e.as_rgb.toFixed(2)}, as true colour ${e.true_colour.toFixed(2)}`);
      assert.ok(e.as_rgb < 4, `${format} ${key}: mean abs error read as RoboTwin does ${e.as_rgb.toFixed(2)}`);
      assert.ok(e.true_colour > 4 * e.as_rgb && e.true_colour > 8,
        `${format} ${key}: read in true colour the error ${e.true_colour.toFixed(2)} should be large`);
    }
    assert.equal(out.attr, "bgr", "the root attribute names the convention");
  });
}

/** The data of a .npy file (format 1.0, as hdf5ToNpy.ts writes it). */
function npyData(file: string): Uint8Array {
  const npy = readFileSync(file);
  return npy.subarray(10 + npy.readUInt16LE(8));
}

test("hdf5ToNpy (a true-colour decoder) reads the export in the recorded colours", { timeout: 60_000 }, async (t) => {
  const outDir = join(dir, "raw");
  const [width, height] = [64, 48];
  const opts = { width, height, cameras: ["head"] };
  const meta = await convertEpisode(join(outDir, "hdf5", "data", "episode0.hdf5"), join(outDir, "npy", "ep"), opts);
  const pixels = npyData(join(outDir, "npy", "ep.images.npy"));
  const plane = width * height;
  assert.equal(pixels.length, meta.frames * plane * 3);
  const k = FRAMES[1]!;
  const [h, w] = shapes["raw"]![`head-${k}`]!;
  const header = { stamp: { sec: 0, nanosec: 0 }, frame_id: "head" };
  const data = new Uint8Array(readFileSync(join(outDir, `head-${k}.rgb`)));
  const msg = { header, height: h, width: w, encoding: "rgb8", is_bigendian: 0, step: w * 3, data };
  const want = await frameToTensor({ kind: "raw", msg }, { width, height, mean: [0, 0, 0], std: [1, 1, 1] }, "head");
  const got = pixels.subarray(k * plane * 3, (k + 1) * plane * 3);
  let asRgb = 0;
  let swapped = 0;
  for (let i = 0; i < plane; i++) {
    for (let c = 0; c < 3; c++) {
      asRgb += Math.abs(got[i * 3 + c]! - want[c * plane + i]! * 255);
      swapped += Math.abs(got[i * 3 + c]! - want[(2 - c) * plane + i]! * 255);
    }
  }
  asRgb /= plane * 3;
  swapped /= plane * 3;
  t.diagnostic(`head-${k}: mean abs error ${asRgb.toFixed(2)}, swapped ${swapped.toFixed(2)}`);
  assert.ok(asRgb < 4 && swapped > 4 * asRgb, `hdf5ToNpy error ${asRgb.toFixed(2)} (swapped ${swapped.toFixed(2)})`);
});
