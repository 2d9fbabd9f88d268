/**
 * `engram export <run> --format lerobot`: a LeRobot dataset of codebase version v3.0 (the layout
 * of lerobot's `LeRobotDataset`) from the recorded episodes of an `engram record` or `engram run`
 * folder, sampled at the control rate (episodeFrames.ts; fps = control_hz):
 *   meta/info.json        codebase_version "v3.0", robot_type, fps, totals, path templates, features
 *   meta/stats.json       min/max/mean/std/count per feature (cameras: per channel, in [0, 1])
 *   meta/tasks.parquet    task_index, indexed by task text (the episode's instruction)
 *   meta/subtasks.parquet subtask_index, indexed by subtask text (the annotation segments)
 *   meta/episodes/chunk-000/file-000.parquet  one row per episode: episode_index, tasks, length,
 *                         data/ and videos/<key>/ locations (from/to timestamps), dataset_from/to_index,
 *                         per-episode stats/<feature>/<stat>
 *   data/chunk-000/file-000.parquet  one row per frame: observation.state and action (float32, the
 *                         policy layout), timestamp (k / fps), frame_index, episode_index, index,
 *                         task_index, subtask_index (-1 outside segments), subtask_end (Mem-0's end label)
 *   videos/observation.images.<camera>/chunk-000/file-000.mp4  every episode's frames of that camera,
 *                         back to back, H.264 yuv420p at fps, encoded by the system's ffmpeg
 * All episodes fit one file of each kind (LeRobot starts a new file past 100 MB of data / 200 MB
 * of video; NOTE: larger exports are one file each all the same, which LeRobot reads too).
 */
import { spawn, type ChildProcessByStdio } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Writable, Readable } from "node:stream";
import sharp from "sharp";
import { decode } from "../msgs/codec.js";
import { layoutNames, toPolicyVector } from "../robot/layout.js";
import type { RobotProfile } from "../robot/types.js";
import { episodeIdentity, readEpisodeFrames, runEpisodes, type CameraMessage } from "./episodeFrames.js";
import { writeExportAtomically } from "./exportAtomic.js";
import { exportLayout } from "./exportHdf5.js";
import { writeParquetTable, type ParquetColumn } from "./parquetTable.js";
import { FeatureStats, ImageStats } from "./lerobotStats.js";

/** What `exportRunLeRobot` wrote. */
export interface LeRobotExport { out: string; episodes: number; frames: number; fps: number; videos: string[] }

const CODEBASE_VERSION = "v3.0";
const DATA_PATH = "data/chunk-{chunk_index:03d}/file-{file_index:03d}.parquet";
const VIDEO_PATH = "videos/{video_key}/chunk-{chunk_index:03d}/file-{file_index:03d}.mp4";
const FILE_000 = "chunk-000/file-000";

/** The LeRobot feature key of a camera. */
function videoKey(camera: string): string {
  return `observation.images.${camera}`;
}

interface Row { state: number[]; action: number[]; timestamp: number; frame: number; episode: number; index: number; task: number; subtask: number; subtaskEnd: boolean }
interface EpisodeRow { episode: number; task: string; length: number; from: number; to: number; subtasks: string[] }

/** The top-level entries of a LeRobot dataset folder. */
const LEROBOT_ENTRIES = ["meta", "data", "videos"];

/**
 * Exports every recorded episode of `runDir` into `outDir` (default `<run>/lerobot`), whole or not
 * at all (exportAtomic.ts). ffmpeg must be on PATH.
 */
export async function exportRunLeRobot(runDir: string, profile: RobotProfile, outDir = join(runDir, "lerobot")): Promise<LeRobotExport> {
  return writeExportAtomically(outDir, "lerobot", LEROBOT_ENTRIES, async ({ writeDir }) => (
    { ...await writeRunLeRobot(runDir, profile, writeDir), out: outDir }
  ));
}

/** Writes the dataset of `runDir` into the folder `outDir`. */
async function writeRunLeRobot(runDir: string, profile: RobotProfile, outDir: string): Promise<LeRobotExport> {
  const episodes = runEpisodes(runDir);
  const { layout } = exportLayout(profile);
  const names = layoutNames(layout);
  const rows: Row[] = [];
  const episodeRows: EpisodeRow[] = [];
  const tasks: string[] = [], subtasks: string[] = [];
  const videos = new Map<string, VideoEncoder>();
  const imageStats = new Map<string, ImageStats>();
  const fps = (await episodeIdentity(episodes[0]!.mcap)).control_hz;
  try {
    for (const [e, ep] of episodes.entries()) {
      const first = rows.length;
      const last = new Map<string, { cdr: Uint8Array; rgb: Rgb }>();
      const summary = await readEpisodeFrames(ep.mcap, profile, async (f) => {
        rows.push({
          state: Array.from(toPolicyVector(layout, f.state.names, f.state.positions)),
          action: Array.from(toPolicyVector(layout, f.action.names, f.action.positions)),
          timestamp: 0, frame: f.index, episode: e, index: rows.length, task: 0, subtask: -1, subtaskEnd: false,
        });
        for (const [camera, msg] of f.cameras) {
          const prev = last.get(camera);
          const rgb = prev?.cdr === msg.cdr ? prev.rgb : await rgbOf(msg);
          last.set(camera, { cdr: msg.cdr, rgb });
          let video = videos.get(camera);
          if (!video) videos.set(camera, (video = new VideoEncoder(join(outDir, "videos", videoKey(camera), `${FILE_000}.mp4`), rgb.width, rgb.height, fps)));
          // A camera silent before this frame gets black frames, so every video has one frame per row.
          while (video.frames < rows.length - 1) await video.write(new Uint8Array(rgb.width * rgb.height * 3));
          await video.write(rgb.data, `${ep.mcap} frame ${f.index}`, rgb.width, rgb.height);
          if (f.index % 5 === 0) (imageStats.get(camera) ?? imageStats.set(camera, new ImageStats()).get(camera)!).add(rgb.data);
        }
      });
      const hz = summary.identity.control_hz;
      if (hz !== fps) throw new Error(`export: ${ep.mcap} was recorded at ${hz} Hz control, the first episode at ${fps} Hz; one LeRobot dataset has one fps`);
      const task = indexOf(tasks, summary.instruction);
      for (let k = first; k < rows.length; k++) { rows[k]!.timestamp = (k - first) / hz; rows[k]!.task = task; }
      for (const a of summary.annotations) {
        const s = indexOf(subtasks, a.text);
        for (let k = a.start_step; k <= a.end_step && first + k < rows.length; k++) rows[first + k]!.subtask = s;
        for (const k of a.end_label_steps) if (first + k < rows.length) rows[first + k]!.subtaskEnd = true;
      }
      for (const v of videos.values()) while (v.frames < rows.length) await v.repeatLast();
      episodeRows.push({ episode: e, task: summary.instruction, length: rows.length - first, from: first, to: rows.length, subtasks: summary.annotations.map((a) => a.text) });
    }
    for (const v of videos.values()) await v.close();
  } catch (err) {
    for (const v of videos.values()) v.kill();
    throw err;
  }
  const rate = fps;
  writeData(join(outDir, "data", `${FILE_000}.parquet`), rows);
  const cameras = [...videos.entries()].map(([name, v]) => ({ key: videoKey(name), width: v.width, height: v.height }));
  writeEpisodes(join(outDir, "meta", "episodes", `${FILE_000}.parquet`), episodeRows, rows, cameras.map((c) => c.key), rate);
  mkdirSync(join(outDir, "meta"), { recursive: true });
  writeParquetTable(join(outDir, "meta", "tasks.parquet"), [{ name: "task", type: "string", data: tasks }, { name: "task_index", type: "int64", data: tasks.map((_, i) => i) }], { index: "task" });
  writeParquetTable(join(outDir, "meta", "subtasks.parquet"), [{ name: "subtask", type: "string", data: subtasks }, { name: "subtask_index", type: "int64", data: subtasks.map((_, i) => i) }], { index: "subtask" });
  const stats: Record<string, unknown> = {
    "observation.state": FeatureStats.of(rows.map((r) => r.state)).json(),
    action: FeatureStats.of(rows.map((r) => r.action)).json(),
    timestamp: FeatureStats.of(rows.map((r) => [r.timestamp])).json(),
  };
  for (const [name, s] of imageStats) stats[videoKey(name)] = s.json();
  writeFileSync(join(outDir, "meta", "stats.json"), JSON.stringify(stats, null, 2) + "\n");
  writeFileSync(join(outDir, "meta", "info.json"), JSON.stringify(infoJson(profile, names, rate, episodeRows.length, rows.length, tasks.length, cameras), null, 2) + "\n");
  return { out: outDir, episodes: episodeRows.length, frames: rows.length, fps: rate, videos: cameras.map((c) => c.key) };
}

function indexOf(list: string[], text: string): number {
  const i = list.indexOf(text);
  return i >= 0 ? i : list.push(text) - 1;
}

function infoJson(profile: RobotProfile, names: string[], fps: number, episodes: number, frames: number, tasks: number, cameras: Array<{ key: string; width: number; height: number }>) {
  const scalar = (dtype: string) => ({ dtype, shape: [1], names: null });
  const features: Record<string, unknown> = {};
  for (const c of cameras) {
    features[c.key] = {
      dtype: "video", shape: [c.height, c.width, 3], names: ["height", "width", "channels"],
      info: { "video.height": c.height, "video.width": c.width, "video.codec": "h264", "video.pix_fmt": "yuv420p", "video.is_depth_map": false, "video.fps": fps, "video.channels": 3, "has_audio": false },
    };
  }
  Object.assign(features, {
    "observation.state": { dtype: "float32", shape: [names.length], names },
    action: { dtype: "float32", shape: [names.length], names },
    timestamp: scalar("float32"), frame_index: scalar("int64"), episode_index: scalar("int64"), index: scalar("int64"),
    task_index: scalar("int64"), subtask_index: scalar("int64"), subtask_end: scalar("bool"),
  });
  return {
    codebase_version: CODEBASE_VERSION, robot_type: profile.name, total_episodes: episodes, total_frames: frames, total_tasks: tasks,
    chunks_size: 1000, data_files_size_in_mb: 100, video_files_size_in_mb: 200, fps, splits: { train: `0:${episodes}` },
    data_path: DATA_PATH, video_path: cameras.length > 0 ? VIDEO_PATH : null, features,
  };
}

function writeData(path: string, rows: readonly Row[]): void {
  mkdirSync(join(path, ".."), { recursive: true });
  writeParquetTable(path, [
    { name: "observation.state", type: "float32", list: true, data: rows.map((r) => r.state) },
    { name: "action", type: "float32", list: true, data: rows.map((r) => r.action) },
    { name: "timestamp", type: "float32", data: rows.map((r) => r.timestamp) },
    { name: "frame_index", type: "int64", data: rows.map((r) => r.frame) },
    { name: "episode_index", type: "int64", data: rows.map((r) => r.episode) },
    { name: "index", type: "int64", data: rows.map((r) => r.index) },
    { name: "task_index", type: "int64", data: rows.map((r) => r.task) },
    { name: "subtask_index", type: "int64", data: rows.map((r) => r.subtask) },
    { name: "subtask_end", type: "bool", data: rows.map((r) => r.subtaskEnd) },
  ]);
}

function writeEpisodes(path: string, episodes: readonly EpisodeRow[], rows: readonly Row[], videoKeys: readonly string[], fps: number): void {
  mkdirSync(join(path, ".."), { recursive: true });
  const zeros = episodes.map(() => 0);
  const columns: ParquetColumn[] = [
    { name: "episode_index", type: "int64", data: episodes.map((e) => e.episode) },
    { name: "tasks", type: "string", list: true, data: episodes.map((e) => [e.task]) },
    { name: "subtasks", type: "string", list: true, data: episodes.map((e) => e.subtasks) },
    { name: "length", type: "int64", data: episodes.map((e) => e.length) },
    { name: "data/chunk_index", type: "int64", data: zeros },
    { name: "data/file_index", type: "int64", data: zeros },
    { name: "dataset_from_index", type: "int64", data: episodes.map((e) => e.from) },
    { name: "dataset_to_index", type: "int64", data: episodes.map((e) => e.to) },
  ];
  for (const key of videoKeys) {
    columns.push(
      { name: `videos/${key}/chunk_index`, type: "int64", data: zeros },
      { name: `videos/${key}/file_index`, type: "int64", data: zeros },
      { name: `videos/${key}/from_timestamp`, type: "float64", data: episodes.map((e) => e.from / fps) },
      { name: `videos/${key}/to_timestamp`, type: "float64", data: episodes.map((e) => e.to / fps) },
    );
  }
  columns.push({ name: "meta/episodes/chunk_index", type: "int64", data: zeros }, { name: "meta/episodes/file_index", type: "int64", data: zeros });
  for (const [feature, pick] of [["observation.state", (r: Row) => r.state], ["action", (r: Row) => r.action]] as const) {
    const per = episodes.map((e) => FeatureStats.of(rows.slice(e.from, e.to).map(pick)));
    for (const stat of ["min", "max", "mean", "std"] as const) columns.push({ name: `stats/${feature}/${stat}`, type: "float64", list: true, data: per.map((s) => s[stat]) });
    columns.push({ name: `stats/${feature}/count`, type: "int64", list: true, data: per.map((s) => [s.count]) });
  }
  writeParquetTable(path, columns);
}

interface Rgb { data: Uint8Array; width: number; height: number }

/** rgb8 pixels of a camera message (a CompressedImage decoded by sharp). */
async function rgbOf(m: CameraMessage): Promise<Rgb> {
  if (m.type === "sensor_msgs/msg/CompressedImage") {
    const { data, info } = await sharp(decode("sensor_msgs/msg/CompressedImage", m.cdr).data).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    return { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
  }
  const img = decode("sensor_msgs/msg/Image", m.cdr);
  if (img.encoding !== "rgb8") throw new Error(`export: camera frame encoding ${img.encoding} is not supported (rgb8 or JPEG)`);
  return { data: img.data, width: img.width, height: img.height };
}

/** One ffmpeg process turning raw rgb24 frames on stdin into an H.264 MP4 (LeRobot decodes it with torchcodec or PyAV). */
class VideoEncoder {
  frames = 0;
  private last: Uint8Array;
  private readonly child: ChildProcessByStdio<Writable, null, Readable>;
  private readonly exited: Promise<number | null>;
  private stderr = "";

  constructor(readonly path: string, readonly width: number, readonly height: number, fps: number) {
    mkdirSync(join(path, ".."), { recursive: true });
    this.last = new Uint8Array(width * height * 3);
    this.child = spawn("ffmpeg", [
      "-hide_banner", "-loglevel", "error", "-y", "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", `${width}x${height}`, "-r", String(fps), "-i", "-",
      // LeRobot's own encoder settings: short GOP (fast random access), yuv420p.
      "-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-g", "2", "-pix_fmt", "yuv420p", path,
    ], { stdio: ["pipe", "ignore", "pipe"] });
    this.child.stderr.on("data", (d: Buffer) => { this.stderr += d.toString(); });
    this.exited = new Promise((resolve, reject) => {
      this.child.on("error", (err) => reject(new Error(`export: cannot run ffmpeg (apt install ffmpeg): ${err.message}`)));
      this.child.on("exit", resolve);
    });
    this.exited.catch(() => undefined);
  }

  /** Appends one frame; a size other than the video's is an error naming `where`. */
  async write(rgb: Uint8Array, where = "", width = this.width, height = this.height): Promise<void> {
    if (width !== this.width || height !== this.height) throw new Error(`export: ${where}: camera frame is ${width}x${height}, the video is ${this.width}x${this.height}`);
    this.last = rgb;
    this.frames++;
    if (!this.child.stdin.write(rgb)) await new Promise<void>((resolve, reject) => {
      this.child.stdin.once("drain", resolve);
      this.exited.then(() => reject(new Error(`export: ffmpeg exited while encoding ${this.path}: ${this.stderr.trim()}`)), reject);
    });
  }

  /** Appends the last frame again (a camera slower than the control rate, or one that stopped). */
  repeatLast(): Promise<void> {
    return this.write(this.last);
  }

  async close(): Promise<void> {
    this.child.stdin.end();
    const code = await this.exited;
    if (code !== 0) throw new Error(`export: ffmpeg failed (${code}) encoding ${this.path}: ${this.stderr.trim()}`);
  }

  kill(): void {
    this.child.kill("SIGKILL");
  }
}
