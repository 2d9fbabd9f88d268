/**
 * Exported HDF5 episodes (`engram export <run> --format hdf5`) → plain .npy arrays + one JSON per
 * episode, the input of engram_ml/mem0_tiny/data.py (Debian's python3 has numpy and torch but no h5py).
 * Images are resized here with the runtime's own preprocessing (src/observe/preprocess.ts: sharp,
 * fill, linear kernel), so training sees the pixels the policy sees at run time.
 *
 * Per episode `<out>/<run>-<n>.*`:
 *   images.npy  uint8   [T, C, H, W, 3]  cameras in the order given (default head, left_wrist, right_wrist)
 *   state.npy   float32 [T, D]           /joint_state/policy_vector
 *   action.npy  float32 [T, D]           /joint_action/policy_vector
 *   <out>/vocabulary.json  the closed word vocabulary over the sim tasks' instructions (testBundle.ts
 *               wordVocabulary(DEFAULT_INSTRUCTIONS)), max_length 32, pad id 0: the bundle's tokenizer
 *   json        { task, tmc, instruction, seed, outcome, frames, cameras, width, height,
 *                 segments: [{ text, start, end }], subtask_end: number[] }
 *
 * Run: `npx tsx training/mem0_tiny/hdf5ToNpy.ts --out data/npy [--width 64 --height 48] <export dir>...`
 * (an export dir holds data/episode{i}.hdf5, RoboTwin's layout: src/record/exportHdf5.ts).
 */
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import h5wasm from "h5wasm/node";
import { frameToTensor } from "../../src/observe/preprocess.js";
import { readByteStrings, roboTwinCameraName } from "../../src/record/exportHdf5.js";
import { JPEG_CHANNEL_ORDER_ATTR } from "../../src/record/roboTwinJpeg.js";
import { DEFAULT_INSTRUCTIONS, wordVocabulary } from "../../src/policy/mem0/testBundle.js";
import { getTask } from "../../src/sim/tasks/index.js";

/** Conversion options. */
export interface ConvertOptions { width: number; height: number; cameras: string[] }

/** Metadata JSON written next to each episode's arrays. */
export interface EpisodeMeta {
  task: string; tmc: "M1" | "Mn"; instruction: string; seed: number; outcome: string; frames: number;
  cameras: string[]; width: number; height: number;
  segments: { text: string; start: number; end: number }[];
  subtask_end: number[];
}

/** A .npy file (format 1.0, C order) for a typed array. */
export function npyBytes(data: Uint8Array | Float32Array | BigInt64Array, shape: number[]): Buffer {
  const descr = data instanceof Uint8Array ? "|u1" : data instanceof BigInt64Array ? "<i8" : "<f4";
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${shape.join(", ")}${shape.length === 1 ? "," : ""}), }`;
  const pad = 64 - ((10 + header.length + 1) % 64);
  header += " ".repeat(pad % 64) + "\n";
  const pre = Buffer.alloc(10);
  pre.write("\x93NUMPY", 0, "latin1");
  pre[6] = 1; pre[7] = 0;
  pre.writeUInt16LE(header.length, 8);
  return Buffer.concat([pre, Buffer.from(header, "latin1"), Buffer.from(data.buffer, data.byteOffset, data.byteLength)]);
}

/**
 * Whether an export's JPEGs hold red and blue swapped (RoboTwin's cv2 convention, root attribute
 * "bgr"); exports written before the attribute existed hold true colour.
 */
function jpegHoldsBgr(order: unknown, hdf5Path: string): boolean {
  if (order === undefined || order === "rgb") return false;
  if (order === "bgr") return true;
  const got = JSON.stringify(order);
  throw new Error(`${hdf5Path}: root attribute ${JPEG_CHANNEL_ORDER_ATTR} is ${got}, expected "bgr" or "rgb"`);
}

/** Converts one HDF5 episode; `stem` is the output path without extension. Returns its metadata. */
export async function convertEpisode(hdf5Path: string, stem: string, opts: ConvertOptions): Promise<EpisodeMeta> {
  await h5wasm.ready;
  const f = new h5wasm.File(hdf5Path, "r");
  try {
    const get = (p: string) => {
      const d = f.get(p) as InstanceType<typeof h5wasm.Dataset> | null;
      if (!d) throw new Error(`${hdf5Path}: dataset /${p} missing (not an engram export?)`);
      return d;
    };
    const attr = (k: string) => f.attrs[k]?.value;
    const taskId = String(attr("task"));
    const task = getTask(taskId);
    const state = get("joint_state/policy_vector");
    const [T, D] = state.shape as number[];
    const { width, height, cameras } = opts;
    const spec = { width, height, mean: [0, 0, 0] as [number, number, number], std: [1, 1, 1] as [number, number, number] };
    const images = new Uint8Array(T * cameras.length * height * width * 3);
    const swap = jpegHoldsBgr(attr(JPEG_CHANNEL_ORDER_ATTR), hdf5Path);
    for (const [c, cam] of cameras.entries()) {
      const path = `observation/${roboTwinCameraName(cam)}/rgb`;
      const ds = get(path);
      const jpegs = await readByteStrings(f, `/${path}`, T, Number((ds.dtype as string).slice(1)));
      for (let t = 0; t < T; t++) {
        const msg = { header: { stamp: { sec: 0, nanosec: 0 }, frame_id: cam }, format: "jpeg", data: jpegs[t]! };
        const chw = await frameToTensor({ kind: "compressed", msg }, spec, `${hdf5Path} /${path}[${t}]`);
        const base = (t * cameras.length + c) * height * width * 3;
        const plane = height * width;
        for (let i = 0; i < plane; i++) {
          for (let k = 0; k < 3; k++) images[base + i * 3 + k] = Math.round(chw[(swap ? 2 - k : k) * plane + i]! * 255);
        }
      }
    }
    const texts = (f.get("language/text") ? (get("language/text").value as string[]) : []);
    const starts = Array.from(get("language/start_step").value as Int32Array);
    const ends = Array.from(get("language/end_step").value as Int32Array);
    const meta: EpisodeMeta = {
      // NOTE: every task's global instruction is scene-independent (src/sim/tasks/*), so no scene is built here.
      task: taskId, tmc: task.tmc, instruction: task.instruction(undefined as never), seed: Number(attr("seed")), outcome: String(attr("outcome")),
      frames: T, cameras, width, height,
      segments: texts.map((text, i) => ({ text, start: starts[i]!, end: ends[i]! })),
      subtask_end: Array.from(get("language/subtask_end").value as Uint8Array),
    };
    mkdirSync(dirname(stem), { recursive: true });
    writeFileSync(`${stem}.images.npy`, npyBytes(images, [T, cameras.length, height, width, 3]));
    writeFileSync(`${stem}.state.npy`, npyBytes(Float32Array.from(state.value as Float64Array), [T, D]));
    writeFileSync(`${stem}.action.npy`, npyBytes(Float32Array.from(get("joint_action/policy_vector").value as Float64Array), [T, D]));
    writeFileSync(`${stem}.json`, JSON.stringify(meta) + "\n");
    return meta;
  } finally {
    f.close();
  }
}

if (process.argv[1] && import.meta.url === new URL(`file://${resolve(process.argv[1])}`).href) {
  const args = process.argv.slice(2);
  const flag = (name: string, def: string) => { const i = args.indexOf(`--${name}`); return i >= 0 ? args.splice(i, 2)[1]! : def; };
  const out = flag("out", "data/npy");
  const opts: ConvertOptions = { width: Number(flag("width", "64")), height: Number(flag("height", "48")), cameras: flag("cameras", "head,left_wrist,right_wrist").split(",") };
  if (args.length === 0) {
    process.stderr.write("usage: hdf5ToNpy.ts --out DIR [--width 64 --height 48 --cameras head,left_wrist,right_wrist] <hdf5 dir>...\n");
    process.exit(2);
  }
  mkdirSync(out, { recursive: true });
  const vocab = wordVocabulary(DEFAULT_INSTRUCTIONS);
  writeFileSync(join(out, "vocabulary.json"), JSON.stringify({ max_length: 32, pad_id: 0, size: vocab.size, vocabulary: vocab.vocabulary }, null, 1) + "\n");
  for (const dir of args) {
    const run = basename(dirname(resolve(dir)));
    const data = join(dir, "data");
    for (const name of readdirSync(data).filter((n) => n.endsWith(".hdf5")).sort()) {
      const meta = await convertEpisode(join(data, name), join(out, `${run}-${basename(name, ".hdf5")}`), opts);
      process.stdout.write(`${join(data, name)}: ${meta.task} seed ${meta.seed} ${meta.outcome}, ${meta.frames} frames, ${meta.segments.length} segments\n`);
    }
  }
}
