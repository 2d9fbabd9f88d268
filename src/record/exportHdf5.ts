/**
 * `engram export <run> --format hdf5`: RoboTwin's raw-data layout, which its ACT/DP
 * `process_data.py` and Mem-0's pipeline read unchanged, one file per recorded episode of an
 * `engram record` or `engram run` folder, sampled at the control rate (episodeFrames.ts):
 *   <out>/data/episode{i}.hdf5       i = 0, 1, ... in episodes.jsonl order (RoboTwin counts from 0)
 *   <out>/instructions/episode{i}.json  {"seen": [task instruction], "unseen": []}
 * In each file (T frames; <arm> = each profile arm, in profile order: left, right on the X-One):
 *   /joint_action/<arm>_arm      float64 [T, 7]  the action's arm joints (leader command, else the trajectory point for the next step)
 *   /joint_action/<arm>_gripper  float64 [T]     the action's gripper (robot units: finger opening, m)
 *   /joint_action/vector         float64 [T, D]  [left arm, left gripper, right arm, right gripper] (RoboTwin's order)
 *   /endpose/<arm>_endpose       float64 [T, 7]  measured tool (TCP) pose in the twin's world frame: x, y, z, qw, qx, qy, qz
 *                                                 (robots that declare kinematics; absent for others)
 *   /endpose/<arm>_gripper       float64 [T]     measured gripper
 *   /observation/<cam>_camera/rgb |S{n} [T]      JPEG bytes per frame in RoboTwin's channel order
 *                                                 (roboTwinJpeg.ts): what cv2.imencode(".jpg", rgb)
 *                                                 writes, red and blue swapped, so cv2.imdecode gives
 *                                                 RGB (PIL, a true-colour decoder, sees BGR); raw and
 *                                                 recorded JPEG frames alike encoded at quality 95;
 *                                                 camera names as RoboTwin's: head → head_camera, left_wrist → left_camera
 * Our extras beside them: /joint_action/policy_vector and /joint_state/policy_vector (the policy
 * layout, e.g. bimanual_16d), /joint_state/vector (measured, RoboTwin's order), /language/{text,
 * start_step, end_step, subtask_end} (subtask segments, Mem-0's end labels); root attributes robot,
 * task, seed, outcome, control_hz, layout, instruction, source_mcap, jpeg_channel_order ("bgr":
 * the JPEGs' channel order as a true-colour decoder reads them).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import sharp from "sharp";
import { decode } from "../msgs/codec.js";
import { getLayout, layoutDim, toPolicyVector } from "../robot/layout.js";
import type { LayoutSpec, RobotProfile } from "../robot/types.js";
import { armChains } from "../robot/kinematics/armChains.js";
import type { DhChain } from "../robot/kinematics/DhChain.js";
import { quatOf, translationOf } from "../robot/kinematics/transform.js";
import { readEpisodeFrames, runEpisodes, type CameraMessage, type NamedPositions } from "./episodeFrames.js";
import { writeExportAtomically } from "./exportAtomic.js";
import { JPEG_CHANNEL_ORDER_ATTR, roboTwinJpegFromJpeg, roboTwinJpegFromRgb } from "./roboTwinJpeg.js";

/** What one exported episode holds. */
export interface ExportedEpisode { mcap: string; hdf5: string; frames: number; dims: number; cameras: Record<string, [number, number]>; annotations: number }

/** The policy layout kept as an extra: the first joint layout of the profile (bimanual_16d, joint_8d). */
export function exportLayout(profile: RobotProfile): { name: string; layout: LayoutSpec } {
  const entry = Object.entries(profile.layouts).find(([, l]) => l.kind === "joint");
  if (!entry) throw new Error(`export: robot "${profile.name}" has no joint layout to export actions in (layouts: ${Object.keys(profile.layouts).join(", ")})`);
  return { name: entry[0], layout: getLayout(profile, entry[0]) };
}

/** RoboTwin's camera name for a profile camera: head → head_camera, left_wrist → left_camera. */
export function roboTwinCameraName(name: string): string {
  return `${name.replace(/_wrist$/, "")}_camera`;
}

/** RoboTwin's vector order: each arm's joints, then its gripper, arms in profile order. */
function roboTwinOrder(profile: RobotProfile): { kind: "joint"; names: string[] } {
  return { kind: "joint", names: profile.arms.flatMap((a) => [...a.joints, ...(a.gripper ? [a.gripper] : [])]) };
}

/** Exports every recorded episode of a run folder into `outDir` (default `<run>/hdf5`). */
export async function exportRunHdf5(runDir: string, profile: RobotProfile, outDir = join(runDir, "hdf5")): Promise<ExportedEpisode[]> {
  const episodes = runEpisodes(runDir);
  return writeExportAtomically(outDir, "hdf5", ["data", "instructions"], async ({ writeDir }) => {
    mkdirSync(join(writeDir, "data"));
    mkdirSync(join(writeDir, "instructions"));
    const out: ExportedEpisode[] = [];
    for (const [i, e] of episodes.entries()) {
      const file = join("data", `episode${i}.hdf5`);
      const done = await exportEpisodeHdf5(e.mcap, profile, join(writeDir, file), e.outcome);
      const seen = JSON.stringify({ seen: [done.instruction], unseen: [] }) + "\n";
      writeFileSync(join(writeDir, "instructions", `episode${i}.json`), seen);
      out.push({ ...done.exported, hdf5: join(outDir, file) });
    }
    return out;
  });
}

/** Exports one episode MCAP to `hdf5Path`. */
async function exportEpisodeHdf5(mcapPath: string, profile: RobotProfile, hdf5Path: string, outcome = "unknown"): Promise<{ exported: ExportedEpisode; instruction: string }> {
  const { name: layoutName, layout } = exportLayout(profile);
  const order = roboTwinOrder(profile);
  const chains = kinematicChains(profile);
  const vec = (p: NamedPositions, l: LayoutSpec) => Array.from(toPolicyVector(l, p.names, p.positions));
  const rows = { action: [] as number[][], state: [] as number[][], actionPolicy: [] as number[][], statePolicy: [] as number[][], endpose: [] as number[][] };
  const jpegs = new Map<string, Uint8Array[]>(profile.cameras.map((c) => [c.name, []]));
  const last = new Map<string, { cdr: Uint8Array; jpeg: Uint8Array }>();
  const sizes: Record<string, [number, number]> = {};
  const summary = await readEpisodeFrames(mcapPath, profile, async (f) => {
    rows.action.push(vec(f.action, order));
    rows.state.push(vec(f.state, order));
    rows.actionPolicy.push(vec(f.action, layout));
    rows.statePolicy.push(vec(f.state, layout));
    if (chains) rows.endpose.push(profile.arms.flatMap((a, i) => tcpPose(chains[i]!, vec(f.state, { kind: "joint", names: a.joints }))));
    // One frame's cameras in parallel (bounded memory); a frame repeated at the next tick is not encoded again.
    await Promise.all(profile.cameras.map(async (cam) => {
      const msg = f.cameras.get(cam.name);
      const prev = last.get(cam.name);
      const jpeg = !msg ? new Uint8Array(0) : prev?.cdr === msg.cdr ? prev.jpeg : await jpegOf(msg, (w, h) => { sizes[cam.name] = [h, w]; });
      if (msg) last.set(cam.name, { cdr: msg.cdr, jpeg });
      jpegs.get(cam.name)!.push(jpeg);
    }));
  });
  const T = summary.frames;
  const D = order.names.length;
  const h5 = await h5wasmReady();
  const f = new h5.File(hdf5Path, "w");
  try {
    const attrs: Record<string, string | number> = {
      robot: summary.identity.robot, task: summary.identity.task, seed: summary.identity.seed, outcome, control_hz: summary.identity.control_hz,
      layout: layoutName, instruction: summary.instruction, source_mcap: basename(mcapPath),
      [JPEG_CHANNEL_ORDER_ATTR]: "bgr",
    };
    for (const [k, v] of Object.entries(attrs)) f.create_attribute(k, v);
    const matrix = (g: ReturnType<typeof f.create_group>, name: string, data: number[][], cols: number[]) => {
      g.create_dataset({ name, data: Float64Array.from(data.flatMap((r) => cols.map((c) => r[c]!))), shape: cols.length === 1 ? [T] : [T, cols.length], dtype: "<d" });
    };
    const action = f.create_group("joint_action");
    const endpose = chains ? f.create_group("endpose") : null;
    let col = 0;
    profile.arms.forEach((a, i) => {
      const joints = Array.from({ length: a.joints.length }, (_, j) => col + j);
      matrix(action, `${a.name}_arm`, rows.action, joints);
      if (endpose) matrix(endpose, `${a.name}_endpose`, rows.endpose, Array.from({ length: 7 }, (_, j) => i * 7 + j));
      col += a.joints.length;
      if (a.gripper) {
        matrix(action, `${a.name}_gripper`, rows.action, [col]);
        if (endpose) matrix(endpose, `${a.name}_gripper`, rows.state, [col]);
        col++;
      }
    });
    matrix(action, "vector", rows.action, range(D));
    matrix(action, "policy_vector", rows.actionPolicy, range(layoutDim(layout)));
    const state = f.create_group("joint_state");
    matrix(state, "vector", rows.state, range(D));
    matrix(state, "policy_vector", rows.statePolicy, range(layoutDim(layout)));
    const obs = f.create_group("observation");
    for (const cam of profile.cameras) {
      if (!summary.cameras.has(cam.name)) continue;
      obs.create_group(roboTwinCameraName(cam.name));
      writeByteStrings(h5, f, `/observation/${roboTwinCameraName(cam.name)}/rgb`, jpegs.get(cam.name)!);
    }
    const lang = f.create_group("language");
    const label = new Uint8Array(T);
    const annotations = summary.annotations;
    for (const a of annotations) for (const s of a.end_label_steps) if (s < T) label[s] = 1;
    if (annotations.length > 0) lang.create_dataset({ name: "text", data: annotations.map((a) => a.text) });
    lang.create_dataset({ name: "start_step", data: Int32Array.from(annotations.map((a) => a.start_step)), shape: [annotations.length], dtype: "<i" });
    lang.create_dataset({ name: "end_step", data: Int32Array.from(annotations.map((a) => a.end_step)), shape: [annotations.length], dtype: "<i" });
    lang.create_dataset({ name: "subtask_end", data: label, shape: [T], dtype: "|B" });
  } finally {
    f.close();
  }
  return {
    exported: { mcap: mcapPath, hdf5: hdf5Path, frames: T, dims: D, cameras: sizes, annotations: summary.annotations.length },
    instruction: summary.instruction,
  };
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}

/**
 * Forward kinematics of each profile arm in the world frame (`kinematics.world`), or null for a
 * robot that declares no kinematics (no /endpose then).
 */
export function kinematicChains(profile: RobotProfile): DhChain[] | null {
  if (!profile.kinematics) return null;
  return armChains(profile, "world").map((c) => c.chain);
}

/** The TCP pose of an arm in the world frame: x, y, z, qw, qx, qy, qz. */
export function tcpPose(chain: DhChain, q: number[]): number[] {
  const tcp = chain.fk(q).tcp;
  const [x, y, z, w] = quatOf(tcp);
  return [...translationOf(tcp), w, x, y, z];
}

/**
 * JPEG bytes of a camera message in RoboTwin's channel convention: a CompressedImage's JPEG
 * re-encoded, a raw rgb8 Image encoded (both at quality 95, red and blue swapped).
 */
export async function jpegOf(m: CameraMessage, size: (width: number, height: number) => void): Promise<Uint8Array> {
  if (m.type === "sensor_msgs/msg/CompressedImage") {
    const data = decode("sensor_msgs/msg/CompressedImage", m.cdr).data;
    const meta = await sharp(data).metadata();
    if (meta.format !== "jpeg") throw new Error(`export: a CompressedImage frame is ${meta.format}, not JPEG (RoboTwin's rgb datasets hold JPEG)`);
    const out = await roboTwinJpegFromJpeg(data, "export: a CompressedImage frame");
    size(out.width, out.height);
    return out.jpeg;
  }
  const img = decode("sensor_msgs/msg/Image", m.cdr);
  if (img.encoding !== "rgb8") throw new Error(`export: camera frame encoding ${img.encoding} is not supported (rgb8 or JPEG)`);
  size(img.width, img.height);
  return roboTwinJpegFromRgb(packedRgb(img), img.width, img.height);
}

/** An rgb8 Image's pixels without row padding (step may exceed width x 3); throws when the data is short. */
function packedRgb(img: { width: number; height: number; step: number; data: Uint8Array }): Uint8Array {
  const row = img.width * 3;
  const bytes = img.height > 0 ? img.step * (img.height - 1) + row : 0;
  if (img.step < row || img.data.length < bytes) {
    const frame = `rgb8 frame ${img.width}x${img.height} step ${img.step}`;
    throw new Error(`export: ${frame} holds ${img.data.length} bytes, expected step >= ${row} and >= ${bytes} bytes`);
  }
  if (img.step === row) return img.data.subarray(0, row * img.height);
  const out = new Uint8Array(row * img.height);
  for (let y = 0; y < img.height; y++) out.set(img.data.subarray(y * img.step, y * img.step + row), y * row);
  return out;
}

/** The h5wasm module, as loaded by h5wasmReady. */
export type H5 = typeof import("h5wasm");
let h5: Promise<H5> | undefined;
/** h5wasm's Node build (real files), initialized once. */
export async function h5wasmReady(): Promise<H5> {
  h5 ??= import("h5wasm/node").then(async (mod) => { await mod.ready; return mod as unknown as H5; });
  return h5;
}

/**
 * Writes `items` as a fixed-length byte-string dataset `|S{n}` (n = the longest item), as
 * RoboTwin's pkl2hdf5 writes JPEG frames and h5py reads them back as bytes.
 * NOTE: h5wasm's create_dataset UTF-8-encodes JS strings, which would corrupt binary data, so the
 * padded bytes go to its low-level create_dataset. The type is space-padded (FORTRAN_S1): HDF5 strips
 * only trailing spaces when h5py reads it, never a 0x00 inside a JPEG (a NULLTERM type would cut there),
 * and a JPEG ends with its EOI marker FF D9, never a space.
 */
export function writeByteStrings(h5: H5, f: InstanceType<H5["File"]>, path: string, items: readonly Uint8Array[]): void {
  const n = Math.max(1, ...items.map((x) => x.byteLength));
  const padded = new Uint8Array(items.length * n).fill(0x20);
  items.forEach((x, i) => padded.set(x, i * n));
  const low = (h5 as unknown as { Module: H5LowLevel }).Module;
  const meta = (h5 as unknown as { dtype_to_metadata(d: string): object }).dtype_to_metadata(`S${n}`);
  const ptr = low._malloc(padded.byteLength);
  try {
    low.HEAPU8.set(padded, ptr);
    const shape = [BigInt(items.length)];
    low.create_dataset(f.file_id, path, BigInt(ptr), { ...meta, shape, maxshape: shape, chunks: null, compression: 0, compression_opts: [], track_order: false });
  } finally {
    low._free(ptr);
  }
}

/** Reads a dataset written by `writeByteStrings` (or by RoboTwin) back as one byte array per item, trailing pad bytes removed. */
export async function readByteStrings(f: { file_id: bigint }, path: string, count: number, itemBytes: number): Promise<Uint8Array[]> {
  const low = (await h5wasmReady() as unknown as { Module: H5LowLevel }).Module;
  const ptr = low._malloc(count * itemBytes);
  try {
    low.get_dataset_data(f.file_id, path, null, null, null, BigInt(ptr));
    const all = low.HEAPU8.slice(ptr, ptr + count * itemBytes);
    return Array.from({ length: count }, (_, i) => {
      let end = (i + 1) * itemBytes;
      while (end > i * itemBytes && (all[end - 1] === 0x20 || all[end - 1] === 0)) end--;
      return all.subarray(i * itemBytes, end);
    });
  } finally {
    low._free(ptr);
  }
}

interface H5LowLevel {
  get_dataset_data(fileId: bigint, path: string, count: null, offset: null, strides: null, dataPtr: bigint): void;
  _malloc(bytes: number): number;
  _free(ptr: number): void;
  HEAPU8: Uint8Array;
  create_dataset(fileId: bigint, path: string, dataPtr: bigint, metadata: object): void;
}
