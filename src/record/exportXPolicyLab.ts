/**
 * `engram export <run> --format xpolicylab`: XPolicyLab's "Trajectory Data Format v1.0", the HDF5
 * layout RoboTwin main's native collection writes (envs/utils/pkl2hdf5.py create_xpolicylab_hdf5),
 * XPolicyLab's loaders read (utils/data_loader.py load, utils/load_file.py load_hdf5 with
 * utils/process_data.py pack_robot_state) and RoboTwin's scripts/process_data_xpolicylab.py
 * writes. One file per recorded episode, sampled at the control rate (episodeFrames.ts):
 *   <out>/data/episode_{i:07d}.hdf5  i = 0, 1, ... in episodes.jsonl order
 *   <out>/robot_info.json        {<env_cfg_type>: {arm_dim, ee_dim}}, the entry XPolicyLab's
 *                                utils/robot/_robot_info.json needs for this robot
 *   <out>/conversion_meta.json   what process_data_xpolicylab.py records: source, env_cfg_type,
 *                                frequency (the control rate), episode count, camera map
 * `<out>` is an XPolicyLab `data/<bench>/<task>/<env_cfg_type>/` folder. In each file (T frames):
 *   /data_format_version          utf-8 string "v1.0"
 *   /instructions                 utf-8 string, a JSON list of the task instruction (native collection's form)
 *   /instruction                  utf-8 string, the instruction (process_data_xpolicylab.py's extra)
 *   /subtasks                     utf-8 string, JSON [{text, start_step, end_step}] (when annotated)
 *   /additional_info/frequency    int32 scalar, the run's control_hz
 *   /state/<a>_arm_joint_states   float32 [T, DOF]  measured arm joints
 *   /state/<a>_ee_joint_states    float32 [T, 1]    measured gripper (robot units: finger opening, m)
 *   /state/<a>_ee_poses           float32 [T, 7]    measured TCP pose, x y z qw qx qy qz, twin world frame
 *                                                   (robots the twin models: X-One, Franka)
 *   /action/...                   the same keys: the command of each step (leader command, else the
 *                                 trajectory point for the next step) and its forward kinematics
 *   /vision/cam_<camera>/colors   |S{n} [T]  JPEG per frame as cv2.imencode of the RGB array writes it,
 *                                 so cv2.imdecode gives RGB (roboTwinJpeg.ts), at quality 95
 *   /vision/cam_<camera>/shape    int32 [3]  H, W, 3
 * <a> is left_ / right_ on two-arm robots (arms named left and right) and empty on one-arm robots,
 * which also get /state/joint_states and /action/joint_states (the arm's joints: what
 * pack_robot_state reads for one arm, where the README names arm_joint_states).
 * Root attributes: source_format "Engram", source_path, robot_type (the profile name), env_cfg_type,
 * control_hz, task, seed, outcome, jpeg_channel_order.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { toPolicyVector } from "../robot/layout.js";
import type { ArmSpec, RobotProfile } from "../robot/types.js";
import { readEpisodeFrames, runEpisodes, type EpisodeSummary, type NamedPositions } from "./episodeFrames.js";
import { writeExportAtomically } from "./exportAtomic.js";
import {
  h5wasmReady, jpegOf, kinematicChains, tcpPose, writeByteStrings, type ExportedEpisode, type H5,
} from "./exportHdf5.js";
import { JPEG_CHANNEL_ORDER_ATTR } from "./roboTwinJpeg.js";

/** What `exportRunXPolicyLab` wrote. */
export interface XPolicyLabExport {
  out: string; envCfgType: string; robotType: string; frequency: number; episodes: ExportedEpisode[];
}

/** The trajectory format version XPolicyLab's loader accepts. */
const DATA_FORMAT_VERSION = "v1.0";

/** XPolicyLab's camera group of a profile camera: head → cam_head, left_wrist → cam_left_wrist. */
function xpolicylabCameraName(camera: string): string {
  return `cam_${camera}`;
}

/** The env_cfg_type of a robot: its profile name with "-" as "_" (XPolicyLab joins names with "-"). */
export function envCfgTypeOf(robot: string): string {
  return robot.replace(/[^A-Za-z0-9_]/g, "_");
}

/** One profile arm and the prefix of its dataset names (left_, right_, or none for a one-arm robot). */
interface ArmKeys { arm: ArmSpec; prefix: string }

/** The key prefix of each arm: left_/right_ for two arms, none for one; other robots are refused. */
export function armKeysOf(profile: RobotProfile): ArmKeys[] {
  const names = profile.arms.map((a) => a.name);
  if (names.length === 1) return [{ arm: profile.arms[0]!, prefix: "" }];
  if (names.length === 2 && names[0] === "left" && names[1] === "right") {
    return profile.arms.map((arm) => ({ arm, prefix: `${arm.name}_` }));
  }
  throw new Error(`export: robot "${profile.name}" has arms [${names.join(", ")}]; XPolicyLab's trajectory layout `
    + "holds one arm or two named left and right");
}

/** Exports every recorded episode of `runDir` into `outDir` (default `<run>/xpolicylab`), whole or not at all. */
export async function exportRunXPolicyLab(
  runDir: string, profile: RobotProfile, outDir = join(runDir, "xpolicylab"),
): Promise<XPolicyLabExport> {
  const episodes = runEpisodes(runDir);
  const arms = armKeysOf(profile);
  const envCfgType = envCfgTypeOf(profile.name);
  const entries = ["data", "robot_info.json", "conversion_meta.json"];
  return writeExportAtomically(outDir, "xpolicylab", entries, async ({ writeDir }) => {
    mkdirSync(join(writeDir, "data"));
    const done: ExportedEpisode[] = [];
    const summaries: EpisodeSummary[] = [];
    for (const [i, e] of episodes.entries()) {
      const file = join("data", `episode_${String(i).padStart(7, "0")}.hdf5`);
      const ep = await exportEpisodeXPolicyLab(e.mcap, profile, join(writeDir, file), e.outcome);
      checkSameRate(ep.summary, summaries[0]);
      summaries.push(ep.summary);
      done.push({ ...ep.exported, hdf5: join(outDir, file) });
    }
    const frequency = summaries[0]?.identity.control_hz ?? 0;
    writeJson(join(writeDir, "robot_info.json"), { [envCfgType]: robotInfoOf(arms) });
    writeJson(join(writeDir, "conversion_meta.json"), {
      source_format: "Engram", target_format: `XPolicyLab trajectory ${DATA_FORMAT_VERSION}`, source_dir: runDir,
      task_name: summaries[0]?.identity.task ?? "", env_cfg_type: envCfgType, robot_type: profile.name,
      expert_data_num: done.length, converted_episodes: done.length, frequency,
      action_alignment: "recorded_command", keep_last_frame: true,
      camera_map: Object.fromEntries(profile.cameras.map((c) => [c.name, xpolicylabCameraName(c.name)])),
    });
    return { out: outDir, envCfgType, robotType: profile.name, frequency, episodes: done };
  });
}

/** Throws when an episode's control rate differs from the first's (one dataset has one frequency). */
function checkSameRate(summary: EpisodeSummary, first: EpisodeSummary | undefined): void {
  if (!first || summary.identity.control_hz === first.identity.control_hz) return;
  throw new Error(`export: ${summary.mcap} was recorded at ${summary.identity.control_hz} Hz control, `
    + `${first.mcap} at ${first.identity.control_hz} Hz; one XPolicyLab dataset has one frequency`);
}

/** The arm_dim / ee_dim entry of XPolicyLab's _robot_info.json for these arms (ee: the gripper, 1 value). */
function robotInfoOf(arms: ArmKeys[]): { arm_dim: number[]; ee_dim: number[] } {
  return { arm_dim: arms.map((a) => a.arm.joints.length), ee_dim: arms.map((a) => (a.arm.gripper ? 1 : 0)) };
}

/** Each arm's joints then its gripper, arms in profile order: the column order of the rows. */
function jointOrder(arms: ArmKeys[]): { kind: "joint"; names: string[] } {
  return { kind: "joint", names: arms.flatMap((a) => [...a.arm.joints, ...(a.arm.gripper ? [a.arm.gripper] : [])]) };
}

function writeJson(path: string, value: unknown): void {
  writeFileSync(path, JSON.stringify(value, null, 2) + "\n");
}

/** Per-frame rows of one episode: each arm's state and action columns, TCP poses, JPEG frames. */
interface EpisodeRows {
  state: number[][]; action: number[][]; statePose: number[][]; actionPose: number[][];
  jpegs: Map<string, Uint8Array[]>; sizes: Record<string, [number, number]>;
}

/** Exports one episode MCAP to `path`. */
async function exportEpisodeXPolicyLab(
  mcapPath: string, profile: RobotProfile, path: string, outcome = "unknown",
): Promise<{ exported: ExportedEpisode; summary: EpisodeSummary }> {
  const arms = armKeysOf(profile);
  const { rows, summary } = await readRows(mcapPath, profile, arms);
  const hz = summary.identity.control_hz;
  if (!Number.isInteger(hz) || hz <= 0) {
    throw new Error(`export: ${mcapPath} control_hz ${hz}, expected a positive whole number `
      + "(XPolicyLab's additional_info/frequency is an int)");
  }
  const h5 = await h5wasmReady();
  const f = new h5.File(path, "w");
  try {
    writeHeader(f, summary, profile, mcapPath, outcome);
    writeArms(f, arms, rows, summary.frames);
    writeVision(h5, f, profile, rows, summary);
  } finally {
    f.close();
  }
  const exported = {
    mcap: mcapPath, hdf5: path, frames: summary.frames, dims: jointOrder(arms).names.length, cameras: rows.sizes,
    annotations: summary.annotations.length,
  };
  return { exported, summary };
}

/** Reads the episode's frames into rows; a camera frame repeated at the next tick is not encoded again. */
async function readRows(
  mcapPath: string, profile: RobotProfile, arms: ArmKeys[],
): Promise<{ rows: EpisodeRows; summary: EpisodeSummary }> {
  const order = jointOrder(arms);
  const chains = kinematicChains(profile);
  const rows: EpisodeRows = {
    state: [], action: [], statePose: [], actionPose: [], sizes: {},
    jpegs: new Map(profile.cameras.map((c) => [c.name, []])),
  };
  const armJoints = (p: NamedPositions, a: ArmKeys) =>
    Array.from(toPolicyVector({ kind: "joint", names: a.arm.joints }, p.names, p.positions));
  const poses = (p: NamedPositions) => arms.flatMap((a, i) => tcpPose(chains![i]!, armJoints(p, a)));
  const last = new Map<string, { cdr: Uint8Array; jpeg: Uint8Array }>();
  const summary = await readEpisodeFrames(mcapPath, profile, async (frame) => {
    rows.state.push(Array.from(toPolicyVector(order, frame.state.names, frame.state.positions)));
    rows.action.push(Array.from(toPolicyVector(order, frame.action.names, frame.action.positions)));
    if (chains) { rows.statePose.push(poses(frame.state)); rows.actionPose.push(poses(frame.action)); }
    await Promise.all(profile.cameras.map(async (cam) => {
      const msg = frame.cameras.get(cam.name);
      const prev = last.get(cam.name);
      const size = (w: number, h: number) => { rows.sizes[cam.name] = [h, w]; };
      const jpeg = !msg ? new Uint8Array(0) : prev?.cdr === msg.cdr ? prev.jpeg : await jpegOf(msg, size);
      if (msg) last.set(cam.name, { cdr: msg.cdr, jpeg });
      rows.jpegs.get(cam.name)!.push(jpeg);
    }));
  });
  return { rows, summary };
}

type File = InstanceType<H5["File"]>;

/** Root attributes, version, instructions, subtasks and additional_info/frequency. */
function writeHeader(f: File, summary: EpisodeSummary, profile: RobotProfile, mcapPath: string, outcome: string) {
  const { identity } = summary;
  const attrs: Record<string, string | number> = {
    source_format: "Engram", source_path: basename(mcapPath), robot_type: profile.name,
    env_cfg_type: envCfgTypeOf(profile.name), control_hz: identity.control_hz, task: identity.task,
    seed: identity.seed, outcome, [JPEG_CHANNEL_ORDER_ATTR]: "bgr",
  };
  for (const [k, v] of Object.entries(attrs)) f.create_attribute(k, v);
  f.create_dataset({ name: "data_format_version", data: DATA_FORMAT_VERSION });
  f.create_dataset({ name: "instructions", data: JSON.stringify([summary.instruction]) });
  f.create_dataset({ name: "instruction", data: summary.instruction });
  if (summary.annotations.length > 0) {
    const subtasks = summary.annotations.map(({ text, start_step, end_step }) => ({ text, start_step, end_step }));
    f.create_dataset({ name: "subtasks", data: JSON.stringify(subtasks) });
  }
  const info = f.create_group("additional_info");
  info.create_dataset({ name: "frequency", data: Int32Array.of(identity.control_hz), shape: [], dtype: "<i" });
}

/** /state and /action: per-arm joints, gripper and TCP pose, float32. */
function writeArms(f: File, arms: ArmKeys[], rows: EpisodeRows, T: number): void {
  const groups = [["state", rows.state, rows.statePose], ["action", rows.action, rows.actionPose]] as const;
  for (const [group, joints, pose] of groups) {
    const g = f.create_group(group);
    const matrix = (name: string, data: number[][], from: number, n: number) => g.create_dataset({
      name, data: Float32Array.from(data.flatMap((r) => r.slice(from, from + n))), shape: [T, n], dtype: "<f",
    });
    let col = 0;
    arms.forEach(({ arm, prefix }, i) => {
      matrix(`${prefix}arm_joint_states`, joints, col, arm.joints.length);
      if (arms.length === 1) matrix("joint_states", joints, col, arm.joints.length);
      col += arm.joints.length;
      if (arm.gripper) matrix(`${prefix}ee_joint_states`, joints, col++, 1);
      if (pose.length > 0) matrix(`${prefix}ee_poses`, pose, i * 7, 7);
    });
  }
}

/** /vision/cam_<camera>/{colors, shape} for each camera the episode recorded. */
function writeVision(h5: H5, f: File, profile: RobotProfile, rows: EpisodeRows, summary: EpisodeSummary): void {
  const vision = f.create_group("vision");
  for (const cam of profile.cameras) {
    if (!summary.cameras.has(cam.name)) continue;
    const name = xpolicylabCameraName(cam.name);
    const g = vision.create_group(name);
    writeByteStrings(h5, f, `/vision/${name}/colors`, rows.jpegs.get(cam.name)!);
    const [h, w] = rows.sizes[cam.name] ?? [0, 0];
    g.create_dataset({ name: "shape", data: Int32Array.of(h, w, 3), shape: [3], dtype: "<i" });
  }
}
