/**
 * Builds a tiny Mem-0 test bundle (four ONNX files + policy.yaml) from seeded random weights that
 * implement the real Mem-0 dataflow at small scale:
 *  - encoder: per-camera/channel average pool → linear, + linear(state) → tanh = image feature;
 *    token embedding lookup → mean over tokens = text feature.
 *  - memory: T learned queries + linear(current) + linear(text) cross-attend (scaled dot product,
 *    masked softmax) over keys [anchor; window; current] → tanh(attention + query) = T summary tokens.
 *  - classifier: linear over the flattened summary → logit.
 *  - action head: a flow towards "hold the current pose, plus a small learned offset":
 *    v = γ (α⊙state + β + ε tanh(MLP[noisy chunk, τ, state, summary]) − noisy chunk), where α, β map
 *    the normalized state into the normalized action space (from the stats), so N Euler steps land
 *    near the current pose and stay within the joint ranges (a sane random policy for closed loop).
 * Run: `npx tsx src/policy/mem0/testBundle.ts policies/test-tiny [--seed 7] [--instruction "text"]...`
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Document, isScalar, parseDocument, visit } from "yaml";
import { sha256Hex } from "./bundleIntegrity.js";
import { mulberry32 } from "./flowSampler.js";
import { OnnxGraph } from "./onnxGraph.js";
import type { ModelKey, PolicyManifest } from "../../config/index.js";
import type { NormStats } from "./normalization.js";

/** Sizes of a tiny bundle. */
export interface TinyDims {
  cameras: string[]; height: number; width: number;
  stateDim: number; actionDim: number; maxTokens: number; vocabSize: number;
  featureDim: number; window: number; summaryTokens: number; horizon: number; hidden: number;
}

/** All weights (row-major, [in, out] for linear maps) so a plain reference can recompute outputs. */
export interface TinyWeights {
  dims: TinyDims;
  encImg: Float32Array; encState: Float32Array; encBias: Float32Array; embedding: Float32Array;
  queries: Float32Array; wq: Float32Array; wt: Float32Array; wk: Float32Array; wv: Float32Array;
  clsW: Float32Array; clsB: Float32Array;
  w1: Float32Array; b1: Float32Array; w2: Float32Array; b2: Float32Array;
  /** Per-dim map normalized state → normalized action, and the flow gain γ and offset scale ε. */
  holdScale: Float32Array; holdBias: Float32Array; gain: number; offsetScale: number;
}

/** Tiny bundle normalization: state mean-std, action min-max over X-One-like ranges (grippers are the last 2 dims, as in bimanual_16d). */
export function tinyStats(dim: number): { state: Extract<NormStats, { kind: "mean_std" }>; action: Extract<NormStats, { kind: "min_max" }> } {
  const all = Array.from({ length: dim }, (_, i) => i);
  const isGripper = (i: number) => i >= dim - 2;
  return {
    state: { kind: "mean_std", dims: all, mean: all.map((i) => (isGripper(i) ? 0.04 : 0)), std: all.map((i) => (isGripper(i) ? 0.02 : 1)) },
    action: { kind: "min_max", dims: all, min: all.map((i) => (isGripper(i) ? 0 : -2.8)), max: all.map((i) => (isGripper(i) ? 0.08 : 2.8)) },
  };
}

/**
 * Instructions in the default closed vocabulary: the sim tasks' global instructions and subtask
 * texts (src/sim/tasks/*; test/policy/vocabulary.test.ts fails when they drift apart).
 */
export const DEFAULT_INSTRUCTIONS = [
  "Move the block to the center, press the button, then put the block back on the mat it started on.",
  "pick up the block and place it at the center",
  "press the button",
  "put the block back on its original mat",
  "Move the red block onto the red square and the green block onto the green square, press the button, then put both blocks back on the mats they started on.",
  "move the red block onto the red square",
  "move the green block onto the green square",
  "put the red block back on its original mat",
  "put the green block back on its original mat",
  "Swap the positions of the red and blue blocks using the empty tray, then press the button.",
  "move the red block to the empty tray",
  "move the blue block to the tray where the red block was",
  "move the red block to the tray where the blue block was",
  "Cover the three blocks with the lids from left to right, then uncover them in the order red, green, blue.",
  "cover the left block with a lid",
  "cover the middle block with a lid",
  "cover the right block with a lid",
  "uncover the red block",
  "uncover the green block",
  "uncover the blue block",
  "Press the left button as many times as the left digit shows, then the middle button as many times as the middle digit shows, then press the confirm button.",
  "press the left button",
  "press the middle button",
  "press the confirm button",
  // Added with Observe and Pick Up, Swap T, Battery Try and Blocks Ranking Try (appended: earlier word ids stay).
  "Watch the object on the shelf until the screen covers it, then pick up the same object from the table and lift it.",
  "pick up the object that was shown and lift it",
  "Swap the poses of the red and blue T-blocks, both position and orientation.",
  "pick up both T-blocks",
  "place the red T-block at the initial pose of the blue T-block",
  "place the blue T-block at the initial pose of the red T-block",
  "Put both batteries into the holder, then flip them one at a time, trying each polarity combination once, until the lamp turns green.",
  "put both batteries into the holder",
  "flip the left battery",
  "flip the right battery",
  "Find the right order of the three blocks by trial: press the button to check the order, and swap two blocks after each failed check.",
  "swap the middle block and the right block",
  "swap the left block and the right block",
  "swap the left block and the middle block",
];

export { BIMANUAL_16D } from "./layout.js";

/** Default tiny sizes: 3 cameras at 64x48, 16-D, up to 32 tokens, F=32, K=4, T=3, H=8. */
export function defaultDims(vocabSize: number): TinyDims {
  return {
    cameras: ["head", "left_wrist", "right_wrist"], height: 48, width: 64, stateDim: 16, actionDim: 16,
    maxTokens: 32, vocabSize, featureDim: 32, window: 4, summaryTokens: 3, horizon: 8, hidden: 64,
  };
}

/** Draws weights uniform in ±1/sqrt(fan_in) from `seed`. */
export function tinyWeights(dims: TinyDims, seed: number): TinyWeights {
  const rand = mulberry32(seed);
  const mat = (rows: number, cols: number, fanIn = rows) => {
    const a = new Float32Array(rows * cols);
    const s = 1 / Math.sqrt(fanIn);
    for (let i = 0; i < a.length; i++) a[i] = (2 * rand() - 1) * s;
    return a;
  };
  const { cameras, stateDim: S, actionDim: A, featureDim: F, summaryTokens: T, horizon: H, hidden } = dims;
  const nIn = H * A + 1 + S + T * F;
  if (S !== A) throw new Error(`tiny bundle: state dim ${S} must equal action dim ${A} (the head holds the current pose)`);
  const { state, action } = tinyStats(S);
  const range = (d: number) => action.max[d] - action.min[d];
  return {
    dims,
    holdScale: Float32Array.from({ length: A }, (_, d) => (2 * state.std[d]) / range(d)),
    holdBias: Float32Array.from({ length: A }, (_, d) => (2 * (state.mean[d] - action.min[d])) / range(d) - 1),
    gain: 3, offsetScale: 0.02,
    encImg: mat(cameras.length * 3, F, 1), encState: mat(S, F), encBias: mat(1, F),
    embedding: mat(dims.vocabSize, F, 1), queries: mat(T, F, 1), wq: mat(F, F), wt: mat(F, F), wk: mat(F, F), wv: mat(F, F),
    clsW: mat(T * F, 1, F), clsB: Float32Array.of(-2), // biased towards "not ended"
    w1: mat(nIn, hidden), b1: mat(1, hidden), w2: mat(hidden, H * A), b2: mat(1, H * A, hidden),
  };
}

/** Serialized ONNX models for the four files. */
export function tinyModels(w: TinyWeights): Record<"encoder" | "memory" | "classifier" | "action_head", Uint8Array> {
  const { cameras, height, width, stateDim: S, actionDim: A, maxTokens: L, featureDim: F, window: K, summaryTokens: T, horizon: H, hidden } = w.dims;
  const NC = cameras.length;

  const enc = new OnnxGraph("encoder");
  const images = enc.input("images", "float32", ["batch", NC, 3, height, width]);
  const state = enc.input("state", "float32", ["batch", S]);
  const tokens = enc.input("tokens", "int64", ["batch", L]);
  const pooled = enc.op("Reshape", [enc.op("ReduceMean", [images], { axes: [3, 4], keepdims: 0 }), enc.constI([0, NC * 3])]);
  const pre = enc.op("Add", [enc.op("Add", [enc.op("MatMul", [pooled, enc.constF(w.encImg, [NC * 3, F])]), enc.op("MatMul", [state, enc.constF(w.encState, [S, F])])]), enc.constF(w.encBias, [F])]);
  enc.output("image_feature", "float32", ["batch", F], enc.op("Tanh", [pre]));
  const emb = enc.op("Gather", [enc.constF(w.embedding, [w.dims.vocabSize, F]), tokens], { axis: 0 });
  enc.output("text_feature", "float32", ["batch", F], enc.op("ReduceMean", [emb], { axes: [1], keepdims: 0 }));

  const mem = new OnnxGraph("memory");
  const current = mem.input("current", "float32", [1, F]);
  const win = mem.input("window", "float32", [1, K, F]);
  const winMask = mem.input("window_mask", "float32", [1, K]);
  const anchor = mem.input("anchor", "float32", [1, 1, F]);
  const anchorMask = mem.input("anchor_mask", "float32", [1, 1]);
  const text = mem.input("text", "float32", [1, F]);
  const axis1 = mem.constI([1]);
  const cur3 = mem.op("Unsqueeze", [current, axis1]);
  const keys = mem.op("Concat", [anchor, win, cur3], { axis: 1 });
  const ones = mem.op("Add", [mem.op("Mul", [anchorMask, mem.constF([0], [])]), mem.constF([1], [])]);
  const mask = mem.op("Concat", [anchorMask, winMask, ones], { axis: 1 });
  const qShift = mem.op("Add", [mem.op("MatMul", [current, mem.constF(w.wq, [F, F])]), mem.op("MatMul", [text, mem.constF(w.wt, [F, F])])]);
  const q = mem.op("Add", [mem.constF(w.queries, [T, F]), mem.op("Unsqueeze", [qShift, axis1])]);
  const kp = mem.op("MatMul", [keys, mem.constF(w.wk, [F, F])]);
  const vp = mem.op("MatMul", [keys, mem.constF(w.wv, [F, F])]);
  const scores = mem.op("Mul", [mem.op("MatMul", [q, mem.op("Transpose", [kp], { perm: [0, 2, 1] })]), mem.constF([1 / Math.sqrt(F)], [])]);
  const bias = mem.op("Unsqueeze", [mem.op("Mul", [mem.op("Sub", [mask, mem.constF([1], [])]), mem.constF([1e9], [])]), axis1]);
  const att = mem.op("Softmax", [mem.op("Add", [scores, bias])], { axis: -1 });
  mem.output("summary", "float32", [1, T, F], mem.op("Tanh", [mem.op("Add", [mem.op("MatMul", [att, vp]), q])]));

  const cls = new OnnxGraph("classifier");
  const summary = cls.input("summary", "float32", [1, T, F]);
  const flat = cls.op("Reshape", [summary, cls.constI([0, T * F])]);
  cls.output("logit", "float32", [1, 1], cls.op("Add", [cls.op("MatMul", [flat, cls.constF(w.clsW, [T * F, 1])]), cls.constF(w.clsB, [1])]));

  const head = new OnnxGraph("action_head");
  const noisy = head.input("noisy_actions", "float32", [1, H, A]);
  const tau = head.input("tau", "float32", [1, 1]);
  const hState = head.input("state", "float32", [1, S]);
  const hSummary = head.input("summary", "float32", [1, T, F]);
  const x = head.op("Concat", [head.op("Reshape", [noisy, head.constI([0, H * A])]), tau, hState, head.op("Reshape", [hSummary, head.constI([0, T * F])])], { axis: 1 });
  const nIn = H * A + 1 + S + T * F;
  const h1 = head.op("Tanh", [head.op("Add", [head.op("MatMul", [x, head.constF(w.w1, [nIn, hidden])]), head.constF(w.b1, [hidden])])]);
  const out = head.op("Add", [head.op("MatMul", [h1, head.constF(w.w2, [hidden, H * A])]), head.constF(w.b2, [H * A])]);
  const offset = head.op("Mul", [head.op("Tanh", [head.op("Reshape", [out, head.constI([0, H, A])])]), head.constF([w.offsetScale], [])]);
  const hold = head.op("Add", [head.op("Mul", [hState, head.constF(w.holdScale, [A])]), head.constF(w.holdBias, [A])]);
  const target = head.op("Add", [offset, head.op("Unsqueeze", [hold, head.constI([1])])]);
  head.output("velocity", "float32", [1, H, A], head.op("Mul", [head.op("Sub", [target, noisy]), head.constF([w.gain], [])]));

  return { encoder: enc.toBytes(), memory: mem.toBytes(), classifier: cls.toBytes(), action_head: head.toBytes() };
}

/** Word-level closed vocabulary: id 0 is padding, words numbered in order of first appearance. */
export function wordVocabulary(instructions: string[]): { vocabulary: Record<string, number[]>; size: number } {
  const words = new Map<string, number>();
  const vocabulary: Record<string, number[]> = {};
  for (const text of instructions) {
    vocabulary[text] = text.toLowerCase().split(/\s+/).filter(Boolean).map((word) => {
      if (!words.has(word)) words.set(word, words.size + 1);
      return words.get(word)!;
    });
  }
  return { vocabulary, size: words.size + 1 };
}

/** The manifest describing a tiny bundle built from `w`. */
export function tinyManifest(name: string, w: TinyWeights, vocabulary: Record<string, number[]>, layout = "bimanual_16d"): PolicyManifest {
  const { cameras, height, width, stateDim: S, actionDim: A, maxTokens: L, featureDim: F, window: K, summaryTokens: T, horizon: H } = w.dims;
  const t = (tname: string, shape: (number | string)[], type: "float32" | "int64" = "float32") => ({ name: tname, type, shape });
  return {
    format_version: 1, kind: "mem0", name, cameras,
    image: { width, height, pixel_normalization: { mean: [0.5, 0.5, 0.5], std: [0.5, 0.5, 0.5] } },
    layout: { state: layout, action: layout }, state_dim: S, action_dim: A,
    normalization: tinyStats(S),
    tokenizer: { kind: "closed_vocabulary", max_length: L, pad_id: 0, vocabulary },
    horizon: H, flow_steps: 4, control_hz: 10,
    memory: { window: K, anchor: true, feature_dim: F, summary_tokens: T },
    classifier: { threshold: 0.5, switch_count: 3 },
    models: {
      encoder: { file: "encoder.onnx",
        inputs: { images: t("images", ["batch", cameras.length, 3, height, width]), state: t("state", ["batch", S]), tokens: t("tokens", ["batch", L], "int64") },
        outputs: { image_feature: t("image_feature", ["batch", F]), text_feature: t("text_feature", ["batch", F]) } },
      memory: { file: "memory.onnx",
        inputs: { current: t("current", [1, F]), window: t("window", [1, K, F]), window_mask: t("window_mask", [1, K]), anchor: t("anchor", [1, 1, F]), anchor_mask: t("anchor_mask", [1, 1]), text: t("text", [1, F]) },
        outputs: { summary: t("summary", [1, T, F]) } },
      classifier: { file: "classifier.onnx", inputs: { summary: t("summary", [1, T, F]) }, outputs: { logit: t("logit", [1, 1]) } },
      action_head: { file: "action_head.onnx",
        inputs: { noisy_actions: t("noisy_actions", [1, H, A]), tau: t("tau", [1, 1]), state: t("state", [1, S]), summary: t("summary", [1, T, F]) },
        outputs: { velocity: t("velocity", [1, H, A]) } },
    },
  };
}

/** Writes a complete tiny bundle into `dir`; returns the weights (for reference checks). */
export function writeTestBundle(
  dir: string,
  opts: {
    seed?: number; name?: string; instructions?: string[]; classifierBias?: number; imageSize?: { width: number; height: number };
    /** Other sizes (another robot's cameras and state), with `layout` naming its profile layout. */
    dims?: Partial<TinyDims>; layout?: string;
  } = {},
): TinyWeights {
  const { vocabulary, size } = wordVocabulary(opts.instructions ?? DEFAULT_INSTRUCTIONS);
  const w = tinyWeights({ ...defaultDims(size), ...opts.imageSize, ...opts.dims }, opts.seed ?? 7);
  if (opts.classifierBias !== undefined) w.clsB[0] = opts.classifierBias;
  mkdirSync(dir, { recursive: true });
  const models = tinyModels(w);
  for (const [key, bytes] of Object.entries(models)) writeFileSync(join(dir, `${key}.onnx`), bytes);
  const header = `# Generated by src/policy/mem0/testBundle.ts (seed ${opts.seed ?? 7}); tiny random weights, for tests and benches only.\n`;
  const manifest = pinModels(tinyManifest(opts.name ?? "test-tiny", w, vocabulary, opts.layout), models);
  const doc = new Document(manifest, { aliasDuplicateObjects: false });
  visit(doc, { Seq: (_, node) => { if (node.items.every((i) => isScalar(i))) node.flow = true; } });
  writeFileSync(join(dir, "policy.yaml"), header + doc.toString({ lineWidth: 160 }));
  return w;
}

/** The manifest with each model's `sha256` written after its `file` (the bytes the bundle ships). */
function pinModels(m: PolicyManifest, models: Record<ModelKey, Uint8Array>): PolicyManifest {
  const pinned = Object.fromEntries((Object.keys(m.models) as ModelKey[]).map((key) => {
    const { file, ...rest } = m.models[key];
    return [key, { file, sha256: sha256Hex(models[key]), ...rest }];
  }));
  return { ...m, models: pinned as PolicyManifest["models"] };
}

/**
 * Replaces model `key` of the bundle in `dir` with `bytes` and pins their SHA-256 in its
 * policy.yaml (tests that swap in a broken or patched model, which must then load as written).
 */
export function replaceModel(dir: string, key: ModelKey, bytes: Uint8Array): void {
  const manifestPath = join(dir, "policy.yaml");
  const doc = parseDocument(readFileSync(manifestPath, "utf8"));
  const file = String(doc.getIn(["models", key, "file"]));
  writeFileSync(join(dir, file), bytes);
  doc.setIn(["models", key, "sha256"], sha256Hex(bytes));
  writeFileSync(manifestPath, doc.toString({ lineWidth: 160 }));
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const args = process.argv.slice(2);
  const dir = args.find((a, i) => !a.startsWith("--") && !args[i - 1]?.startsWith("--")) ?? "policies/test-tiny";
  const seedAt = args.indexOf("--seed");
  const instructions = args.flatMap((a, i) => (a === "--instruction" ? [args[i + 1]] : []));
  writeTestBundle(dir, { seed: seedAt >= 0 ? Number(args[seedAt + 1]) : 7, instructions: instructions.length ? [...DEFAULT_INSTRUCTIONS, ...instructions] : undefined });
  process.stdout.write(`wrote ${dir}/{policy.yaml,encoder.onnx,memory.onnx,classifier.onnx,action_head.onnx}\n`);
}
