/**
 * RoboTwin's JPEG channel convention for `/observation/<cam>/rgb`: RoboTwin hands its RGB arrays
 * to `cv2.imencode(".jpg", rgb)`, which takes them for BGR, so the file's JPEGs hold red where a
 * true-colour decoder (PIL, sharp, a browser) sees blue, and `cv2.imdecode` gives the RGB array
 * back. Every RoboTwin script reads frames that way, so the export writes the same bytes:
 * red and blue swapped before encoding, at OpenCV's default quality 95 (4:2:0, libjpeg-turbo).
 */
import { jpegFromRgb, rgbFromJpeg } from "../msgs/image.js";

/** OpenCV's IMWRITE_JPEG_QUALITY default, what `cv2.imencode(".jpg", img)` uses. */
const ROBOTWIN_JPEG_QUALITY = 95;

/**
 * Root attribute of an export naming the channel order its JPEGs hold as a true-colour decoder
 * reads them: "bgr" (RoboTwin's convention). A reader that decodes with PIL or sharp swaps back.
 */
export const JPEG_CHANNEL_ORDER_ATTR = "jpeg_channel_order";

/** A copy of an interleaved 3-channel buffer with channels 0 and 2 exchanged (RGB ↔ BGR). */
export function swapRedBlue(pixels: Uint8Array): Uint8Array {
  if (pixels.length % 3 !== 0) {
    throw new Error(`swapRedBlue: ${pixels.length} bytes is not a whole number of 3-channel pixels`);
  }
  const out = new Uint8Array(pixels.length);
  for (let i = 0; i < pixels.length; i += 3) {
    out[i] = pixels[i + 2]!;
    out[i + 1] = pixels[i + 1]!;
    out[i + 2] = pixels[i]!;
  }
  return out;
}

/** The bytes `cv2.imencode(".jpg", rgb)` writes for an rgb8 buffer (width x height x 3). */
export async function roboTwinJpegFromRgb(rgb: Uint8Array, width: number, height: number): Promise<Uint8Array> {
  return jpegFromRgb(swapRedBlue(rgb), width, height, ROBOTWIN_JPEG_QUALITY);
}

/** A frame re-encoded for the export, with its size in pixels. */
export interface RoboTwinJpeg { jpeg: Uint8Array; width: number; height: number }

/**
 * A true-colour JPEG (a recorded CompressedImage) re-encoded in RoboTwin's convention; `what`
 * names the frame in the error when it does not decode to 3 colour channels.
 */
export async function roboTwinJpegFromJpeg(jpeg: Uint8Array, what: string): Promise<RoboTwinJpeg> {
  const { rgb, width, height } = await rgbFromJpeg(jpeg, what);
  return { jpeg: await roboTwinJpegFromRgb(rgb, width, height), width, height };
}
