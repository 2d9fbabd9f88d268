/**
 * The one image encode/decode path of the runtime (DESIGN §2 "one JPEG path"): sensor_msgs/Image
 * rgb8 fields, JPEG for sensor_msgs/CompressedImage, PNG for snapshots, and the JPEG decode,
 * resize and transcode the exports and the planner need. The sim's cameras, the recorder, the
 * exports and the planner all encode here.
 *
 * Two JPEG encoders sit behind `jpegFromRgb`'s `encoder` option, because they write different
 * bytes for the same pixels and recordings must not change: "turbo" (libjpeg-turbo, synchronous,
 * the default: camera frames and exports) and "sharp" (libvips on its thread pool: the planner's
 * images, which have always been sharp's).
 */
import { createRequire } from "node:module";
import sharp from "sharp";
import type { CompressedImage, Header, Image } from "./types.js";

/** CompressedImage.format for a JPEG made from rgb8, as ROS compressed_image_transport writes it. */
export const JPEG_FORMAT_FROM_RGB8 = "rgb8; jpeg compressed bgr8";

function checkSize(rgb: Uint8Array, width: number, height: number, what: string): void {
  if (!Number.isInteger(width) || width <= 0 || !Number.isInteger(height) || height <= 0) {
    throw new Error(`${what}: image size ${width}x${height} must be positive integers`);
  }
  if (rgb.length !== width * height * 3) {
    throw new Error(`${what}: rgb buffer has ${rgb.length} bytes, expected ${width}x${height}x3 = ${width * height * 3}`);
  }
}

// The TurboJPEG binding is CommonJS whose constants Node's ESM import cannot see by name.
const turbo = createRequire(import.meta.url)("@julusian/jpeg-turbo") as typeof import("@julusian/jpeg-turbo");

/**
 * A sensor_msgs/Image (encoding rgb8, step = width·3, little-endian flag 0). By default `data` is a
 * copy, so the render frame can be reused while the message is queued. With `copy: false` it aliases
 * `rgb` (no 1 MB allocation per frame): only for a caller that serializes it before the next render.
 */
export function imageFromRgb(rgb: Uint8Array, width: number, height: number, header: Header, opts: { copy?: boolean } = {}): Image {
  checkSize(rgb, width, height, "imageFromRgb");
  return { header, height, width, encoding: "rgb8", is_bigendian: 0, step: width * 3, data: opts.copy === false ? rgb : rgb.slice() };
}

/** TurboJPEG's output buffer per worst-case size, reused: the JPEG is copied out of it. */
const jpegScratch = new Map<number, Buffer>();

/** Which JPEG encoder writes the bytes (they differ byte for byte; see the header). */
export type JpegEncoder = "turbo" | "sharp";

/**
 * JPEG bytes of an rgb8 buffer (quality 1..100, default 90; 4:2:0, standard Huffman tables, as
 * camera drivers and OpenCV's imencode write them). "turbo" encodes synchronously with
 * libjpeg-turbo: ~0.8 ms CPU per 640x480 frame where sharp took ~3.3 ms, two thirds of that in
 * libvips' pipeline set-up and thread hand-offs (perf); a lock-step evaluation encodes 20 such
 * frames per simulated second. "sharp" encodes on libvips' threads.
 */
export async function jpegFromRgb(
  rgb: Uint8Array, width: number, height: number, quality = 90, encoder: JpegEncoder = "turbo",
): Promise<Uint8Array> {
  checkSize(rgb, width, height, "jpegFromRgb");
  if (!(Number.isInteger(quality) && quality >= 1 && quality <= 100)) {
    throw new Error(`jpegFromRgb: quality ${quality} must be an integer 1..100`);
  }
  if (encoder === "sharp") {
    const out = await sharp(rgb, { raw: { width, height, channels: 3 } }).jpeg({ quality }).toBuffer();
    return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
  }
  const options = { format: turbo.FORMAT_RGB, width, height, subsampling: turbo.SAMP_420, quality };
  const size = turbo.bufferSize(options);
  let scratch = jpegScratch.get(size);
  if (!scratch) jpegScratch.set(size, (scratch = Buffer.allocUnsafeSlow(size)));
  const jpeg = turbo.compressSync(Buffer.from(rgb.buffer, rgb.byteOffset, rgb.byteLength), scratch, options);
  return new Uint8Array(jpeg); // a copy: the scratch is reused
}

/** A sensor_msgs/CompressedImage (format "rgb8; jpeg compressed bgr8") of an rgb8 buffer. */
export async function compressedImageFromRgb(rgb: Uint8Array, width: number, height: number, header: Header, quality = 90): Promise<CompressedImage> {
  return { header, format: JPEG_FORMAT_FROM_RGB8, data: await jpegFromRgb(rgb, width, height, quality) };
}

/** PNG bytes of an rgb8 buffer (for `--snapshot` files). Reads `rgb` before the first await. */
export async function pngFromRgb(rgb: Uint8Array, width: number, height: number): Promise<Uint8Array> {
  checkSize(rgb, width, height, "pngFromRgb");
  const out = await sharp(Buffer.from(rgb), { raw: { width, height, channels: 3 } }).png().toBuffer(); // copies rgb now
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}

/** Decoded pixels: interleaved rgb8, width x height x 3. */
export interface RgbImage { rgb: Uint8Array; width: number; height: number }

/** The rgb8 pixels of a JPEG (or PNG); `what` names the image in the error when it is not 3-channel colour. */
export async function rgbFromJpeg(jpeg: Uint8Array, what: string): Promise<RgbImage> {
  const decoded = sharp(jpeg).removeAlpha().toColourspace("srgb").raw();
  const { data, info } = await decoded.toBuffer({ resolveWithObject: true });
  if (info.channels !== 3) throw new Error(`${what}: JPEG decoded to ${info.channels} channels, expected 3 (RGB)`);
  return { rgb: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
}

/** PNG bytes of a JPEG at its own size. */
export async function pngFromJpeg(jpeg: Uint8Array): Promise<Uint8Array> {
  const out = await sharp(jpeg).png().toBuffer();
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}

/** A JPEG resized to fit `maxSide` x `maxSide` (aspect kept, never enlarged), re-encoded by sharp at `quality`. */
export async function resizeJpeg(jpeg: Uint8Array, maxSide: number, quality: number): Promise<Uint8Array> {
  const resize = { width: maxSide, height: maxSide, fit: "inside" as const, withoutEnlargement: true };
  const out = await sharp(jpeg).resize(resize).jpeg({ quality }).toBuffer();
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}
