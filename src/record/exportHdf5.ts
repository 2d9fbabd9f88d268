/**
 * `engram export <run> --format hdf5`: one RoboTwin-style HDF5 file per saved episode (h5wasm),
 * sampled at the control rate: frame k is the state at the end of control step k (bus time
 * start + (k+1)/control_hz, the control loop's tick) and the action issued right after it.
 *
 * Layout (all datasets readable by h5py; T = frames):
 *   /joint_action/vector        float64 [T, D]   action in the policy layout (16-D bimanual / 8-D joint, via
 *                                                 robot/layout.ts toPolicyVector): the leader-arm command when
 *                                                 recorded, else point 0 of the last JointTrajectory command,
 *                                                 else the measured joint state
 *   /joint_state/vector         float64 [T, D]   measured joint state, same layout
 *   /observation/<camera>/rgb   uint8 [T, H, W, 3] latest frame of each camera at the tick (JPEG decoded by sharp),
 *                                                 chunked one frame per chunk, gzip level 1
 *   /language/text              vlen utf-8 str [S] annotation segments (subtask text)
 *   /language/start_step        int32 [S]        first frame of each segment
 *   /language/end_step          int32 [S]        last frame of each segment (inclusive)
 *   /language/subtask_end       uint8 [T]        1 on Mem-0's subtask-end label frames (last 8 of each segment)
 * Root attributes: robot, task, seed, outcome, control_hz, layout, source_mcap.
 */
import { mkdirSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import sharp from "sharp";
import { decode } from "../msgs/codec.js";
import { getLayout, layoutDim, toPolicyVector } from "../robot/layout.js";
import type { LayoutSpec, RobotProfile } from "../robot/types.js";
import { readEpisodeIndex } from "./episodeIndex.js";
import { identityOf, readMcapMetadata, ANNOTATIONS_TOPIC, type EpisodeAnnotation } from "./episodeWriter.js";
import { McapSource } from "./mcapReader.js";

/** What one exported episode holds. */
export interface ExportedEpisode { mcap: string; hdf5: string; frames: number; dims: number; cameras: Record<string, [number, number]>; annotations: number }

/** The layout exported: the first joint layout of the profile (bimanual_16d, joint_8d). */
export function exportLayout(profile: RobotProfile): { name: string; layout: LayoutSpec } {
  const entry = Object.entries(profile.layouts).find(([, l]) => l.kind === "joint");
  if (!entry) throw new Error(`export: robot "${profile.name}" has no joint layout to export actions in (layouts: ${Object.keys(profile.layouts).join(", ")})`);
  return { name: entry[0], layout: getLayout(profile, entry[0]) };
}

/** Exports every saved episode of a run folder (episodes.jsonl) into `outDir` (default `<run>/hdf5`). */
export async function exportRunHdf5(runDir: string, profile: RobotProfile, outDir = join(runDir, "hdf5")): Promise<ExportedEpisode[]> {
  const lines = readEpisodeIndex(runDir);
  if (lines.length === 0) throw new Error(`export: ${join(runDir, "episodes.jsonl")} lists no saved episodes`);
  mkdirSync(outDir, { recursive: true });
  const out: ExportedEpisode[] = [];
  for (const l of lines) {
    const mcap = resolve(runDir, l.file);
    out.push(await exportEpisodeHdf5(mcap, profile, join(outDir, `${basename(l.file, ".mcap")}.hdf5`), l.outcome));
  }
  return out;
}

/** Exports one episode MCAP (recorded by engram record) to `hdf5Path`. */
export async function exportEpisodeHdf5(mcapPath: string, profile: RobotProfile, hdf5Path: string, outcome = "unknown"): Promise<ExportedEpisode> {
  const id = identityOf(await readMcapMetadata(mcapPath));
  if (!id) throw new Error(`${mcapPath}: no engram_episode metadata: not an episode recorded by engram record`);
  const { name: layoutName, layout } = exportLayout(profile);
  const dim = layoutDim(layout);
  const periodNs = BigInt(Math.round(1e9 / id.control_hz));
  const start = BigInt(id.start_ns);
  const source = await McapSource.open(mcapPath);
  const recorded = new Set((await source.topics()).map((t) => t.topic));
  const cameras = profile.cameras.filter((c) => recorded.has(c.topic));

  // One pass: sample the latest message of each topic at every tick.
  const actions: number[][] = [], states: number[][] = [];
  const frames: Map<string, Uint8Array[]> = new Map(cameras.map((c) => [c.name, []]));
  const sizes: Record<string, [number, number]> = {};
  const annotations: EpisodeAnnotation[] = [];
  const latest = new Map<string, { type: string; cdr: Uint8Array }>();
  let tick = 0;
  const sample = async () => {
    const js = latest.get(profile.joint_state.topic);
    if (!js) return false;
    const m = decode("sensor_msgs/msg/JointState", js.cdr);
    const state = Array.from(toPolicyVector(layout, m.name, m.position));
    states.push(state);
    actions.push(actionOf(latest, profile, layout) ?? state);
    for (const cam of cameras) {
      const f = latest.get(cam.topic);
      const rgb = f ? await rgbOf(f) : null;
      if (rgb) sizes[cam.name] = [rgb.height, rgb.width];
      frames.get(cam.name)!.push(rgb?.data ?? new Uint8Array(0));
    }
    return true;
  };
  try {
    for await (const msg of source.messages()) {
      while (msg.logTimeNs > start + BigInt(tick + 1) * periodNs) { await sample(); tick++; }
      if (msg.topic === ANNOTATIONS_TOPIC) annotations.push(JSON.parse(decode("std_msgs/msg/String", msg.cdr).data) as EpisodeAnnotation);
      else latest.set(msg.topic, { type: msg.type, cdr: msg.cdr });
    }
    await sample();
  } finally {
    await source.close();
  }
  const T = states.length;
  const h5 = await h5wasmReady();
  const f = new h5.File(hdf5Path, "w");
  try {
    const attrs: Record<string, string | number> = { robot: id.robot, task: id.task, seed: id.seed, outcome, control_hz: id.control_hz, layout: layoutName, source_mcap: basename(mcapPath) };
    for (const [k, v] of Object.entries(attrs)) f.create_attribute(k, v);
    f.create_group("joint_action").create_dataset({ name: "vector", data: Float64Array.from(actions.flat()), shape: [T, dim], dtype: "<d" });
    f.create_group("joint_state").create_dataset({ name: "vector", data: Float64Array.from(states.flat()), shape: [T, dim], dtype: "<d" });
    const obs = f.create_group("observation");
    for (const cam of cameras) {
      const size = sizes[cam.name];
      if (!size) continue;
      const [H, W] = size;
      const all = new Uint8Array(T * H * W * 3);
      frames.get(cam.name)!.forEach((fr, k) => { if (fr.length === H * W * 3) all.set(fr, k * H * W * 3); });
      obs.create_group(cam.name).create_dataset({ name: "rgb", data: all, shape: [T, H, W, 3], dtype: "|B", chunks: [1, H, W, 3], compression: "gzip", compression_opts: 1 });
    }
    const lang = f.create_group("language");
    const label = new Uint8Array(T);
    for (const a of annotations) for (const s of a.end_label_steps) if (s < T) label[s] = 1;
    if (annotations.length > 0) lang.create_dataset({ name: "text", data: annotations.map((a) => a.text) });
    lang.create_dataset({ name: "start_step", data: Int32Array.from(annotations.map((a) => a.start_step)), shape: [annotations.length], dtype: "<i" });
    lang.create_dataset({ name: "end_step", data: Int32Array.from(annotations.map((a) => a.end_step)), shape: [annotations.length], dtype: "<i" });
    lang.create_dataset({ name: "subtask_end", data: label, shape: [T], dtype: "|B" });
  } finally {
    f.close();
  }
  return { mcap: mcapPath, hdf5: hdf5Path, frames: T, dims: dim, cameras: sizes, annotations: annotations.length };
}

/** The action after the tick: leader command, else trajectory point 0, else null (caller uses the state). */
function actionOf(latest: Map<string, { type: string; cdr: Uint8Array }>, profile: RobotProfile, layout: LayoutSpec): number[] | null {
  const leader = latest.get(profile.teleop.leader_topic);
  if (leader) {
    const m = decode("sensor_msgs/msg/JointState", leader.cdr);
    return Array.from(toPolicyVector(layout, m.name, m.position));
  }
  const traj = latest.get(profile.command.joint_topic);
  if (traj?.type === "trajectory_msgs/msg/JointTrajectory") {
    const m = decode("trajectory_msgs/msg/JointTrajectory", traj.cdr);
    if (m.points[0]) return Array.from(toPolicyVector(layout, m.joint_names, m.points[0].positions));
  }
  return null;
}

async function rgbOf(m: { type: string; cdr: Uint8Array }): Promise<{ data: Uint8Array; width: number; height: number } | null> {
  if (m.type === "sensor_msgs/msg/Image") {
    const img = decode("sensor_msgs/msg/Image", m.cdr);
    if (img.encoding !== "rgb8") return null;
    return { data: img.data, width: img.width, height: img.height };
  }
  if (m.type === "sensor_msgs/msg/CompressedImage") {
    const img = decode("sensor_msgs/msg/CompressedImage", m.cdr);
    const { data, info } = await sharp(img.data).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    return { data: new Uint8Array(data.buffer, data.byteOffset, data.length), width: info.width, height: info.height };
  }
  return null;
}

type H5 = typeof import("h5wasm");
let h5: Promise<H5> | undefined;
/** h5wasm's Node build (real files), initialized once. */
async function h5wasmReady(): Promise<H5> {
  h5 ??= import("h5wasm/node").then(async (mod) => { await mod.ready; return mod as unknown as H5; });
  return h5;
}
