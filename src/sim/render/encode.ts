/**
 * Image encoding for rendered frames: sensor_msgs/Image rgb8 fields, JPEG for
 * sensor_msgs/CompressedImage, PNG for snapshots (the last two through sharp).
 */
import sharp, { type Sharp } from "sharp";
import type { CompressedImage, Header, Image } from "../../msgs/types.js";

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

// NOTE: a free list of sharp input buffers, reused across calls. Allocating a fresh 1 MB buffer per
// frame costs more than the JPEG encode itself (page faults); a buffer returns here once sharp is done.
const freeInputs: Buffer[] = [];
const MAX_FREE_INPUTS = 8;

/** Encodes a copy of `rgb` (taken before any await, so the caller may render into rgb again meanwhile). */
async function withSharpInput<T>(rgb: Uint8Array, width: number, height: number, run: (img: Sharp) => Promise<T>): Promise<T> {
  const k = freeInputs.findIndex((b) => b.length === rgb.length);
  const input = k >= 0 ? freeInputs.splice(k, 1)[0]! : Buffer.allocUnsafeSlow(rgb.length);
  input.set(rgb);
  try {
    return await run(sharp(input, { raw: { width, height, channels: 3 } }));
  } finally {
    if (freeInputs.length < MAX_FREE_INPUTS) freeInputs.push(input);
  }
}

/**
 * A sensor_msgs/Image (encoding rgb8, step = width·3, little-endian flag 0). By default `data` is a
 * copy, so the render frame can be reused while the message is queued. With `copy: false` it aliases
 * `rgb` (no 1 MB allocation per frame): only for a caller that serializes it before the next render.
 */
export function imageFromRgb(rgb: Uint8Array, width: number, height: number, header: Header, opts: { copy?: boolean } = {}): Image {
  checkSize(rgb, width, height, "imageFromRgb");
  return { header, height, width, encoding: "rgb8", is_bigendian: 0, step: width * 3, data: opts.copy === false ? rgb : rgb.slice() };
}

/**
 * JPEG bytes of an rgb8 buffer (quality 1..100, default 90). Reads `rgb` before the first await.
 * NOTE: standard (not optimised) Huffman tables, as camera drivers and OpenCV's imencode write them:
 * ~5x faster in sharp for ~10 % more bytes.
 */
export async function jpegFromRgb(rgb: Uint8Array, width: number, height: number, quality = 90): Promise<Uint8Array> {
  checkSize(rgb, width, height, "jpegFromRgb");
  if (!(Number.isInteger(quality) && quality >= 1 && quality <= 100)) throw new Error(`jpegFromRgb: quality ${quality} must be an integer 1..100`);
  const out = await withSharpInput(rgb, width, height, (img) => img.jpeg({ quality, optimiseCoding: false }).toBuffer());
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}

/** A sensor_msgs/CompressedImage (format "rgb8; jpeg compressed bgr8") of an rgb8 buffer. */
export async function compressedImageFromRgb(rgb: Uint8Array, width: number, height: number, header: Header, quality = 90): Promise<CompressedImage> {
  return { header, format: JPEG_FORMAT_FROM_RGB8, data: await jpegFromRgb(rgb, width, height, quality) };
}

/** PNG bytes of an rgb8 buffer (for `--snapshot` files). Reads `rgb` before the first await. */
export async function pngFromRgb(rgb: Uint8Array, width: number, height: number): Promise<Uint8Array> {
  checkSize(rgb, width, height, "pngFromRgb");
  const out = await withSharpInput(rgb, width, height, (img) => img.png().toBuffer());
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}
