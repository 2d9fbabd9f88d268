/**
 * Planner training data from the twin's oracle experts: for each task and seed, an expert episode
 * on the in-process twin (SimNode, lock-step), with the planner camera rendered as the twin
 * publishes it, made a JPEG as the trial loop does (frameToJpeg) and decoded + resized by the
 * runtime's own preprocessing (frameToTensor, as LearnedPlanner feeds planner.onnx) at the
 * episode's start and at every ground-truth subtask end. Each successful episode with n subtasks gives n + 1 planner calls, as Mem-0's planning module
 * is called (episode start, then each subtask end): the task, the initial image, the key memory of
 * the finished subtasks (text + end image, last M) and the answer, the next subtask or "done".
 *
 * Writes <out>/ as engram_ml/planner/dataset.py reads a folder: one .npy per array and texts.json
 * ({tasks, vocabulary}), plus episodes.jsonl (task, seed, success, subtask texts and end steps).
 *
 * Run: npx tsx training/planner/collect.ts --tasks cover-blocks,press-button --seeds 0-199 --out data/planner/train
 *      [--robot robots/x-one.yaml] [--camera head] [--image 64x48] [--slots 8]
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { LocalBus } from "../../src/bus/local.js";
import { SimClock } from "../../src/bus/clock.js";
import { compressedImageFromRgb, imageFromRgb } from "../../src/msgs/image.js";
import { frameToJpeg, frameToTensor, type CameraFrame, type ImageSpec } from "../../src/observe/preprocess.js";
import { loadRobotProfile } from "../../src/robot/index.js";
import { SimNode } from "../../src/sim/node/SimNode.js";
import { getTask } from "../../src/sim/tasks/index.js";
import type { TaskDefinition, TaskScene } from "../../src/sim/tasks/types.js";
import { npyBytes } from "../mem0_tiny/hdf5ToNpy.js";

/** One expert episode as the planner sees it: its task text, subtask texts in order, planner-camera JPEGs. */
export interface PlannerEpisode {
  instruction: string;
  success: boolean;
  subtasks: { text: string; step: number }[];
  initialJpeg: Uint8Array;
  endJpegs: Uint8Array[];
}

/**
 * The planner camera now, as the trial loop hands it to the planner: the frame the twin publishes
 * (raw rgb8, or its JPEG at quality 90 for a jpeg camera) through the runtime's frameToJpeg.
 */
async function plannerJpeg(node: SimNode, camera: string): Promise<Uint8Array> {
  const cam = node.world.profile.cameras.find((c) => c.name === camera);
  if (!cam) throw new Error(`planner episode: robot ${node.world.profile.name} has no camera "${camera}"`);
  const { rgb, width, height } = node.sensors.render(cam, node.world.meshes());
  const header = { stamp: { sec: 0, nanosec: 0 }, frame_id: cam.frame_id };
  const frame: CameraFrame = cam.encoding === "rgb8"
    ? { kind: "raw", msg: imageFromRgb(rgb, width, height, header) }
    : { kind: "compressed", msg: await compressedImageFromRgb(rgb, width, height, header, 90) };
  return frameToJpeg(frame);
}

/** Runs the task's plan expert for `seed` on `node`, capturing the planner camera at the start and at every subtask end. */
export async function plannerEpisode(node: SimNode, task: TaskDefinition<TaskScene>, seed: number, camera: string): Promise<PlannerEpisode> {
  const episode = node.reset({ task, seed, expert: true })!;
  const initialJpeg = await plannerJpeg(node, camera);
  const endJpegs: Uint8Array[] = [];
  const unhook = node.onTickHook(async (tick) => {
    if (tick.subtaskEnded !== undefined) endJpegs.push(await plannerJpeg(node, camera));
  });
  try { await node.runEpisode(); } finally { unhook(); }
  return { instruction: episode.instruction, success: episode.success, subtasks: episode.ends(), initialJpeg, endJpegs };
}

/** A JPEG as LearnedPlanner feeds it (frameToTensor), back to CHW bytes (mean 0.5, std 0.5: exact after rounding). */
async function plannerImage(jpeg: Uint8Array, spec: ImageSpec): Promise<Uint8Array> {
  const header = { stamp: { sec: 0, nanosec: 0 }, frame_id: "" };
  const chw = await frameToTensor({ kind: "compressed", msg: { header, format: "jpeg", data: jpeg } }, spec, "planner image");
  return Uint8Array.from(chw, (x) => Math.round((x * 0.5 + 0.5) * 255));
}

/** One finished expert episode in training form: its task index, subtask texts, CHW planner images. */
interface Episode { task: number; texts: string[]; initial: Uint8Array; ends: Uint8Array[] }

/** Scenes whose subtask lists make the vocabulary: enough to draw every text, the same in every collection. */
const VOCABULARY_SCENES = 200;

/**
 * The tasks' instructions and every subtask text their scenes can ask for, in order of first
 * appearance over seeds 0..VOCABULARY_SCENES-1: independent of the seeds collected, so a training
 * and a held-out collection share class indices.
 */
function textsOf(node: SimNode, tasks: TaskDefinition<TaskScene>[]): { instructions: string[]; vocabulary: string[] } {
  const instructions: string[] = [];
  const vocabulary: string[] = [];
  for (const task of tasks) {
    for (let seed = 0; seed < VOCABULARY_SCENES; seed++) {
      const episode = node.reset({ task, seed })!;
      if (!instructions.includes(episode.instruction)) instructions.push(episode.instruction);
      for (const t of task.subtasks(episode.scene)) if (!vocabulary.includes(t)) vocabulary.push(t);
    }
  }
  return { instructions, vocabulary };
}

/** "a-b" or "a,b,c" as seed numbers. */
function seedsOf(text: string): number[] {
  const range = /^(\d+)-(\d+)$/.exec(text);
  if (range) return Array.from({ length: Number(range[2]) - Number(range[1]) + 1 }, (_v, i) => Number(range[1]) + i);
  const seeds = text.split(",").map(Number);
  if (seeds.some((s) => !Number.isInteger(s) || s < 0)) throw new Error(`collect: --seeds expects "A-B" or "a,b,c", got "${text}"`);
  return seeds;
}

/** The planner calls of the episodes: n + 1 per episode of n subtasks. */
function calls(episodes: Episode[], vocabulary: string[], slots: number, h: number, w: number): Record<string, Buffer> {
  const n = episodes.reduce((sum, e) => sum + e.texts.length + 1, 0);
  const plane = 3 * h * w;
  const task = new BigInt64Array(n), next = new BigInt64Array(n);
  const initial = new Uint8Array(n * plane), keyImages = new Uint8Array(n * slots * plane);
  const keySubtasks = new BigInt64Array(n * slots), keyMask = new Uint8Array(n * slots);
  let row = 0;
  for (const e of episodes) {
    for (let done = 0; done <= e.texts.length; done++, row++) {
      task[row] = BigInt(e.task);
      initial.set(e.initial, row * plane);
      const first = Math.max(0, done - slots);
      for (let k = first; k < done; k++) {
        const slot = row * slots + (k - first);
        keyImages.set(e.ends[k]!, slot * plane);
        keySubtasks[slot] = BigInt(vocabulary.indexOf(e.texts[k]!));
        keyMask[slot] = 1;
      }
      next[row] = BigInt(done < e.texts.length ? vocabulary.indexOf(e.texts[done]!) : vocabulary.length);
    }
  }
  return {
    "task.npy": npyBytes(task, [n]), "next.npy": npyBytes(next, [n]),
    "initial_image.npy": npyBytes(initial, [n, 3, h, w]), "key_images.npy": npyBytes(keyImages, [n, slots, 3, h, w]),
    "key_subtasks.npy": npyBytes(keySubtasks, [n, slots]), "key_mask.npy": npyBytes(keyMask, [n, slots]),
  };
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const flag = (name: string, def?: string): string => {
    const i = args.indexOf(`--${name}`);
    if (i >= 0 && args[i + 1] !== undefined) return args[i + 1]!;
    if (def === undefined) throw new Error(`collect: --${name} is required (usage in training/planner/collect.ts)`);
    return def;
  };
  const taskIds = flag("tasks").split(",");
  const seeds = seedsOf(flag("seeds"));
  const out = resolve(flag("out"));
  const camera = flag("camera", "head");
  const size = /^(\d+)x(\d+)$/.exec(flag("image", "64x48"));
  if (!size) throw new Error(`collect: --image expects WIDTHxHEIGHT, got "${flag("image")}"`);
  const [w, h] = [Number(size[1]), Number(size[2])];
  const slots = Number(flag("slots", "8"));
  const robot = loadRobotProfile(resolve(flag("robot", "robots/x-one.yaml")));
  if (!robot.profile.cameras.some((c) => c.name === camera)) {
    throw new Error(`collect: robot ${robot.profile.name} has no camera "${camera}" (${robot.profile.cameras.map((c) => c.name).join(", ")})`);
  }
  const spec: ImageSpec = { width: w, height: h, mean: [0.5, 0.5, 0.5], std: [0.5, 0.5, 0.5] };
  const tasks = taskIds.map((id) => getTask(id));
  const bus = new LocalBus({ clock: new SimClock(0n) });
  const node = await SimNode.create({ bus, robot, cameras: false, log: (l) => process.stderr.write(`[sim] ${l}\n`) });
  const episodes: Episode[] = [];
  const log: string[] = [];
  const { instructions, vocabulary } = textsOf(node, tasks);
  try {
    for (const task of tasks) {
      let ok = 0;
      for (const seed of seeds) {
        const e = await plannerEpisode(node, task, seed, camera);
        log.push(JSON.stringify({ task: task.id, seed, success: e.success, subtasks: e.subtasks }));
        if (!e.success) continue;
        ok++;
        const ends = await Promise.all(e.endJpegs.map((j) => plannerImage(j, spec)));
        const texts = e.subtasks.map((x) => x.text);
        episodes.push({ task: instructions.indexOf(e.instruction), texts, initial: await plannerImage(e.initialJpeg, spec), ends });
      }
      process.stderr.write(`collect: ${task.id}: ${ok}/${seeds.length} expert episodes succeeded\n`);
    }
  } finally {
    node.close();
    await bus.close();
  }
  mkdirSync(out, { recursive: true });
  for (const [name, bytes] of Object.entries(calls(episodes, vocabulary, slots, h, w))) writeFileSync(join(out, name), bytes);
  writeFileSync(join(out, "texts.json"), JSON.stringify({ tasks: instructions, vocabulary }, null, 2) + "\n");
  writeFileSync(join(out, "episodes.jsonl"), log.join("\n") + "\n");
  process.stderr.write(`collect: ${episodes.length} episodes -> ${out}\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err) => {
    process.stderr.write(`collect: ${(err as Error).message}\n`);
    process.exit(1);
  });
}
