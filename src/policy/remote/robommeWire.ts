/**
 * Engram's observations ↔ the frames of RoboMME's MME-VLA policy server (pure; docs/remote-policy.md,
 * `protocol: robomme`). Its server (robomme_policy_learning `mme_vla_suite/serving/websocket_policy_server.py`)
 * has no op field: a map with `reset: true` resets, one with `add_buffer: true` appends frames to the
 * memory, any other map is an `infer`. Images travel as uint8 HWC RGB; the state as float32.
 */
import type { RemotePolicyManifest } from "../../config/index.js";
import type { PreparedObservation } from "../types.js";
import { toUint8Hwc } from "./openpiObservation.js";
import { readActions } from "./replies.js";
import { f32Array, type NdArray, type WireValue } from "./wire.js";

type WireMap = { [key: string]: WireValue };
type RoboMMEMap = NonNullable<RemotePolicyManifest["robomme"]>;

/** The `reset` request: clears the server's memory buffer and its step counter. */
export const RESET_REQUEST: WireMap = { reset: true };

/** The state vector in the server's units (`state_map` applied), float32. */
export function serverState(m: RemotePolicyManifest, state: Float64Array): Float32Array {
  const out = Float32Array.from(state);
  for (const a of robommeOf(m).state_map) out[a.index] = a.scale * state[a.index]! + a.offset;
  return out;
}

/** The `infer` request for the current observation: its cameras under their keys, the state, the prompt. */
export function inferRequest(m: RemotePolicyManifest, obs: PreparedObservation, prompt: string): WireMap {
  const r = robommeOf(m);
  const out: WireMap = {};
  for (const [camera, key] of Object.entries(r.images)) out[key] = uint8Image(m, obs, camera);
  out[r.state_key] = f32Array(serverState(m, obs.state), [m.state_dim]);
  out[r.prompt_key] = prompt;
  return out;
}

/**
 * The `add_buffer` request for `frames` in step order: `images` uint8 [N, V, H, W, 3] (V = the
 * memory cameras), `state` float32 [N, state_dim], and `exec_start_idx` (the count of
 * demonstration frames before the first executed step; the server keeps it only when > 0).
 */
export function addBufferRequest(
  m: RemotePolicyManifest, frames: readonly PreparedObservation[], execStartIdx: number,
): WireMap {
  const views = robommeOf(m).memory_cameras;
  const { width, height } = m.image;
  const frameBytes = height * width * 3;
  const images = new Uint8Array(frames.length * views.length * frameBytes);
  const states = new Float32Array(frames.length * m.state_dim);
  frames.forEach((obs, i) => {
    views.forEach((camera, v) => {
      images.set(uint8Image(m, obs, camera).data as Uint8Array, (i * views.length + v) * frameBytes);
    });
    states.set(serverState(m, obs.state), i * m.state_dim);
  });
  return {
    add_buffer: true,
    images: { dtype: "|u1", shape: [frames.length, views.length, height, width, 3], data: images },
    state: f32Array(states, [frames.length, m.state_dim]),
    exec_start_idx: execStartIdx,
  };
}

/** Throws unless the reply to `reset` / `add_buffer` carries its `<op>_finished: true` flag. */
export function checkFinished(reply: WireMap, op: "reset" | "add_buffer", where: string): void {
  const flag = `${op}_finished`;
  if (reply[flag] === true) return;
  const keys = Object.keys(reply).join(", ") || "none";
  throw new Error(`${where}: ${op} reply ${flag} is ${String(reply[flag])}, expected true (keys: ${keys})`);
}

/**
 * The `infer` reply's `actions` [H ≥ 1, action_dim] (MME-VLA sends 20, of which RoboMME executes 16)
 * as float64 in Engram's units (`action_map` applied), all H rows. A bad array throws.
 */
export function readChunk(
  reply: WireMap, m: RemotePolicyManifest, where: string,
): { values: Float64Array; horizon: number } {
  const { values, horizon } = readActions(reply, m, where);
  for (let k = 0; k < horizon; k++) {
    for (const map of robommeOf(m).action_map) {
      const i = k * m.action_dim + map.index;
      values[i] = map.scale * values[i]! + map.offset;
    }
  }
  return { values, horizon };
}

function uint8Image(m: RemotePolicyManifest, obs: PreparedObservation, camera: string): NdArray {
  const chw = obs.images[camera];
  if (!chw) {
    const has = Object.keys(obs.images).join(", ") || "none";
    throw new Error(`robomme observation: no image for camera "${camera}" (has: ${has})`);
  }
  return toUint8Hwc(chw, m.image.width, m.image.height, m.image.pixel_normalization);
}

function robommeOf(m: RemotePolicyManifest): RoboMMEMap {
  if (!m.robomme) throw new Error(`remote policy "${m.name}": protocol ${m.protocol} has no robomme: mapping`);
  return m.robomme;
}
