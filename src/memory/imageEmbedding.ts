/**
 * A frame's thumbnail (what a history store keeps of it) and the fixed image embedding computed from
 * it, which retrieval splits and searches on. The embedding is the thumbnail mean-pooled to a 16 x 12
 * grid per channel, centred on its own mean, so 1 - cos compares the layout of colour in the picture.
 * Measured on the Franka twin (a Video Unmask demonstration, then stored Put Back Block and Observe and
 * Pick Up sessions): adjacent frames of one session differ by at most 0.009, the end of one stored
 * session and the start of the next by 0.045-0.065. The policy's own encoder features do not separate
 * these (a cube going out of sight moves them as much as a change of scene), so retrieval does not use them.
 */

/** The thumbnail's size: the first policy camera sampled down (nearest pixel). */
export const THUMBNAIL = { width: 64, height: 48 } as const;
const GRID = { x: 16, y: 12 } as const;
/** Values in one embedding: GRID cells x 3 channels. */
export const IMAGE_EMBEDDING_DIM = GRID.x * GRID.y * 3;

/**
 * A policy camera's image (CHW float, normalized by `normalization`: pixel = (v - mean) / std in
 * [0, 1] units) as a THUMBNAIL-sized rgb8 buffer, row-major HWC.
 */
export function thumbnailRgb(
  chw: Float32Array, width: number, height: number, normalization?: { mean: readonly number[]; std: readonly number[] },
): Uint8Array {
  const { mean, std } = normalization ?? { mean: [0, 0, 0], std: [1, 1, 1] };
  const { width: w, height: h } = THUMBNAIL;
  if (chw.length !== 3 * width * height) {
    throw new Error(`thumbnail: image has ${chw.length} values, expected 3 x ${width} x ${height}`);
  }
  const rgb = new Uint8Array(w * h * 3);
  for (let y = 0; y < h; y++) {
    const sy = Math.floor(((y + 0.5) * height) / h);
    for (let x = 0; x < w; x++) {
      const sx = Math.floor(((x + 0.5) * width) / w);
      for (let c = 0; c < 3; c++) {
        const v = chw[c * width * height + sy * width + sx]! * std[c]! + mean[c]!;
        rgb[(y * w + x) * 3 + c] = Math.max(0, Math.min(255, Math.round(v * 255)));
      }
    }
  }
  return rgb;
}

/**
 * The fixed embedding of a THUMBNAIL-sized rgb8 image (a live frame's, or a stored thumbnail decoded);
 * `what` names the image in the error a wrong size gets.
 */
export function imageEmbedding(rgb: Uint8Array, width: number, height: number, what = "image"): Float32Array {
  if (width !== THUMBNAIL.width || height !== THUMBNAIL.height || rgb.length !== width * height * 3) {
    throw new Error(`image embedding: ${what} is ${width}x${height} (${rgb.length} bytes), `
      + `expected the ${THUMBNAIL.width}x${THUMBNAIL.height} rgb8 thumbnail`);
  }
  const out = new Float32Array(IMAGE_EMBEDDING_DIM);
  const cellW = width / GRID.x, cellH = height / GRID.y, perCell = cellW * cellH * 255;
  for (let y = 0; y < height; y++) {
    const gy = Math.floor(y / cellH);
    for (let x = 0; x < width; x++) {
      const cell = gy * GRID.x + Math.floor(x / cellW);
      for (let c = 0; c < 3; c++) out[c * GRID.x * GRID.y + cell]! += rgb[(y * width + x) * 3 + c]! / perCell;
    }
  }
  const mean = out.reduce((a, b) => a + b, 0) / out.length;
  return out.map((v) => v - mean);
}

/** The fixed embedding of a policy camera's image (thumbnailRgb, then imageEmbedding). */
export function embedCamera(
  chw: Float32Array, width: number, height: number, normalization?: { mean: readonly number[]; std: readonly number[] },
): Float32Array {
  return imageEmbedding(thumbnailRgb(chw, width, height, normalization), THUMBNAIL.width, THUMBNAIL.height);
}
