/**
 * Image encoding for rendered frames: sensor_msgs/Image rgb8 fields, JPEG for
 * sensor_msgs/CompressedImage, PNG for snapshots (the last two through sharp).
 */
import sharp from "sharp";
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

/**
 * A sensor_msgs/Image (encoding rgb8, step = width·3, little-endian flag 0). Copies `rgb`, so the
 * render frame's buffer can be reused for the next frame while the message is still queued.
 */
export function imageFromRgb(rgb: Uint8Array, width: number, height: number, header: Header): Image {
  checkSize(rgb, width, height, "imageFromRgb");
  return { header, height, width, encoding: "rgb8", is_bigendian: 0, step: width * 3, data: rgb.slice() };
}

/** JPEG bytes of an rgb8 buffer (quality 1..100, default 90). Reads `rgb` before the first await. */
export async function jpegFromRgb(rgb: Uint8Array, width: number, height: number, quality = 90): Promise<Uint8Array> {
  checkSize(rgb, width, height, "jpegFromRgb");
  const input = Buffer.from(rgb); // copy now: the caller may render into rgb again while sharp works
  const out = await sharp(input, { raw: { width, height, channels: 3 } }).jpeg({ quality }).toBuffer();
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}

/** A sensor_msgs/CompressedImage (format "rgb8; jpeg compressed bgr8") of an rgb8 buffer. */
export async function compressedImageFromRgb(rgb: Uint8Array, width: number, height: number, header: Header, quality = 90): Promise<CompressedImage> {
  return { header, format: JPEG_FORMAT_FROM_RGB8, data: await jpegFromRgb(rgb, width, height, quality) };
}

/** PNG bytes of an rgb8 buffer (for `--snapshot` files). Reads `rgb` before the first await. */
export async function pngFromRgb(rgb: Uint8Array, width: number, height: number): Promise<Uint8Array> {
  checkSize(rgb, width, height, "pngFromRgb");
  const out = await sharp(Buffer.from(rgb), { raw: { width, height, channels: 3 } }).png().toBuffer();
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}
