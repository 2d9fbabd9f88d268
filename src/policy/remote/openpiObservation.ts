/**
 * Engram's prepared observation → an openpi observation map (pure), as the bundle's `openpi:`
 * mapping says: camera tensors under the server's image keys (uint8 HWC RGB, undoing the
 * manifest's pixel normalization, or the float32 CHW tensor as prepared), state slices under their
 * keys, the instruction under the prompt key.
 */
import type { RemotePolicyManifest } from "../../config/index.js";
import type { PreparedObservation } from "../types.js";
import { f32Array, type NdArray, type WireValue } from "./wire.js";

/** The openpi `infer` request for one observation. */
export function openpiObservation(m: RemotePolicyManifest, obs: PreparedObservation, prompt: string): { [key: string]: WireValue } {
  const map = m.openpi!;
  const { width, height } = m.image;
  const out: { [key: string]: WireValue } = {};
  for (const [camera, key] of Object.entries(map.images)) {
    const chw = obs.images[camera];
    if (!chw) throw new Error(`openpi observation: no image for camera "${camera}" (has: ${Object.keys(obs.images).join(", ") || "none"})`);
    out[key] = map.image_format === "float32_chw" ? f32Array(chw, [3, height, width]) : toUint8Hwc(chw, width, height, m.image.pixel_normalization);
  }
  for (const s of map.state) out[s.key] = f32Array(Float32Array.from(obs.state.subarray(s.start, s.start + s.length)), [s.length]);
  out[map.prompt_key] = prompt;
  return out;
}

/** A prepared CHW float32 image back to uint8 HWC RGB (undoing the pixel normalization, clamped to [0, 255]). */
export function toUint8Hwc(chw: Float32Array, width: number, height: number, norm: { mean: number[]; std: number[] }): NdArray {
  const plane = width * height;
  const bytes = new Uint8Array(3 * plane);
  for (let c = 0; c < 3; c++) {
    for (let i = 0; i < plane; i++) {
      const v = chw[c * plane + i]! * norm.std[c]! + norm.mean[c]!;
      bytes[i * 3 + c] = Math.round(Math.min(1, Math.max(0, v)) * 255);
    }
  }
  return { dtype: "|u1", shape: [height, width, 3], data: bytes };
}
