/**
 * Builds a tiny learned planner (planner.onnx + the manifest's `planner` section) into a test
 * bundle, with onnx-proto as testBundle.ts builds the other models. Its logits, for task t, k
 * finished subtasks (the mask's sum), end images e_m, their subtasks s_m and the initial image i:
 *   logits = table[t (M+1) + k] + sum_m mask_m (S[s_m] + mean(e_m) U) + mean(i) W
 * The table holds each task's plan (answer k after k finished, then "done"), so the planner
 * follows it; S, U and W are seeded noise of scale `noise`, or set by a test to make the answer
 * depend on what an end image shows (Battery Try's lamp). `tinyPlannerLogits` recomputes them.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse, parseDocument } from "yaml";
import type { PlannerSection } from "../../config/index.js";
import { sha256Hex } from "../mem0/bundleIntegrity.js";
import { mulberry32 } from "../mem0/flowSampler.js";
import { OnnxGraph } from "../mem0/onnxGraph.js";
import type { PlannerFeeds } from "./learnedManifest.js";

/** What a tiny planner knows and answers. */
export interface TinyPlannerSpec {
  tasks: string[];
  vocabulary: string[];
  /** Per task, the vocabulary indices it answers in order; after the last it answers "done". */
  plans: number[][];
  slots: number;
  image: { width: number; height: number };
}

/** The tiny planner's weights (row-major); C = vocabulary.length + 1 classes, the last is "done". */
export interface TinyPlannerWeights {
  spec: TinyPlannerSpec;
  /** [tasks * (slots + 1), C] */
  table: Float32Array;
  /** [V, C]: what each finished subtask adds. */
  bySubtask: Float32Array;
  /** [C]: per unit of an end image's mean pixel. */
  byEndImage: Float32Array;
  /** [C]: per unit of the initial image's mean pixel. */
  byInitialImage: Float32Array;
}

/** Weights for `spec`: the plans at logit 4, noise uniform in ±`noise` from `seed`. */
export function tinyPlannerWeights(spec: TinyPlannerSpec, seed = 3, noise = 0.1): TinyPlannerWeights {
  const rand = mulberry32(seed);
  const C = spec.vocabulary.length + 1;
  const draw = (n: number) => Float32Array.from({ length: n }, () => (2 * rand() - 1) * noise);
  const table = draw(spec.tasks.length * (spec.slots + 1) * C);
  spec.plans.forEach((plan, t) => {
    for (let k = 0; k <= spec.slots; k++) table[(t * (spec.slots + 1) + k) * C + (plan[k] ?? C - 1)]! += 4;
  });
  return { spec, table, bySubtask: draw(spec.vocabulary.length * C), byEndImage: draw(C), byInitialImage: draw(C) };
}

/** planner.onnx for `w`: inputs and output as plannerShapes names them (batch 1). */
export function tinyPlannerModel(w: TinyPlannerWeights): Uint8Array {
  const { slots: M, image } = w.spec;
  const C = w.spec.vocabulary.length + 1;
  const g = new OnnxGraph("tiny_planner");
  const task = g.input("task", "int64", [1, 1]);
  const initial = g.input("initial_image", "float32", [1, 3, image.height, image.width]);
  const keyImages = g.input("key_images", "float32", [1, M, 3, image.height, image.width]);
  const keySubtasks = g.input("key_subtasks", "int64", [1, M]);
  const mask = g.input("key_mask", "float32", [1, M]);
  const count = g.op("Cast", [g.op("ReduceSum", [mask, g.constI([1])], { keepdims: 0 })], { to: 7 });
  const row = g.op("Add", [g.op("Mul", [g.op("Reshape", [task, g.constI([-1])]), g.constI([M + 1])]), count]);
  const planned = g.op("Gather", [g.constF(w.table, [w.table.length / C, C]), row], { axis: 0 });
  const mask3 = g.op("Unsqueeze", [mask, g.constI([2])]);
  const subtasks = g.op("Gather", [g.constF(w.bySubtask, [w.spec.vocabulary.length, C]), keySubtasks], { axis: 0 });
  const bySubtask = g.op("ReduceSum", [g.op("Mul", [subtasks, mask3]), g.constI([1])], { keepdims: 0 });
  const endMeans = g.op("ReduceMean", [keyImages], { axes: [2, 3, 4], keepdims: 0 });
  const endSum = g.op("ReduceSum", [g.op("Mul", [endMeans, mask]), g.constI([1])], { keepdims: 1 });
  const byEnd = g.op("Mul", [endSum, g.constF(w.byEndImage, [1, C])]);
  const initMean = g.op("ReduceMean", [initial], { axes: [1, 2, 3], keepdims: 0 });
  const byInit = g.op("Mul", [g.op("Reshape", [initMean, g.constI([1, 1])]), g.constF(w.byInitialImage, [1, C])]);
  const logits = g.op("Add", [g.op("Add", [planned, bySubtask]), g.op("Add", [byEnd, byInit])]);
  g.output("logits", "float32", [1, C], logits);
  return g.toBytes();
}

/** The logits planner.onnx computes for `feeds` (plain arithmetic, for tests). */
export function tinyPlannerLogits(w: TinyPlannerWeights, feeds: PlannerFeeds): Float32Array {
  const { slots: M } = w.spec;
  const C = w.spec.vocabulary.length + 1;
  const plane = feeds.initialImage.length;
  const mean = (a: Float32Array) => a.reduce((s, v) => s + v, 0) / a.length;
  const k = feeds.keyMask.reduce((s, v) => s + v, 0);
  const out = w.table.slice((Number(feeds.task[0]) * (M + 1) + k) * C, (Number(feeds.task[0]) * (M + 1) + k + 1) * C);
  const init = mean(feeds.initialImage);
  for (let c = 0; c < C; c++) out[c]! += init * w.byInitialImage[c]!;
  for (let m = 0; m < M; m++) {
    if (feeds.keyMask[m] === 0) continue;
    const e = mean(feeds.keyImages.subarray(m * plane, (m + 1) * plane)) * feeds.keyMask[m]!;
    const s = Number(feeds.keySubtasks[m]);
    for (let c = 0; c < C; c++) out[c]! += feeds.keyMask[m]! * w.bySubtask[s * C + c]! + e * w.byEndImage[c]!;
  }
  return out;
}

/** The manifest section for `w` whose model file hashes to `bytes`. */
export function tinyPlannerSection(w: TinyPlannerWeights, bytes: Uint8Array, file = "planner.onnx"): PlannerSection {
  const { slots: M, image: { width, height } } = w.spec;
  const t = (name: string, type: "float32" | "int64", shape: number[]) => ({ name, type, shape });
  return {
    tasks: w.spec.tasks, vocabulary: w.spec.vocabulary, key_memory_slots: M, image: { width, height },
    model: {
      file, sha256: sha256Hex(bytes),
      inputs: {
        task: t("task", "int64", [1, 1]), initial_image: t("initial_image", "float32", [1, 3, height, width]),
        key_images: t("key_images", "float32", [1, M, 3, height, width]),
        key_subtasks: t("key_subtasks", "int64", [1, M]),
        key_mask: t("key_mask", "float32", [1, M]),
      },
      outputs: { logits: t("logits", "float32", [1, w.spec.vocabulary.length + 1]) },
    },
  };
}

/** Writes the tiny planner.onnx (or `bytes`) into the bundle at `dir` and its `planner` section into policy.yaml. */
export function addTinyPlanner(dir: string, w: TinyPlannerWeights, bytes = tinyPlannerModel(w)): PlannerSection {
  return addPlanner(dir, tinyPlannerSection(w, bytes), bytes);
}

/**
 * Puts the planner exported into `folder` (planner.onnx and planner.yaml, the `planner` section, as
 * `python -m engram_ml.planner.export ... --section-only` writes them) into the bundle at `dir`.
 */
export function addPlannerFrom(dir: string, folder: string): PlannerSection {
  const section = (parse(readFileSync(join(folder, "planner.yaml"), "utf8")) as { planner: PlannerSection }).planner;
  return addPlanner(dir, section, readFileSync(join(folder, section.model.file)));
}

/** Writes a planner's model `bytes` into the bundle at `dir` (as section.model.file) and `section` into its policy.yaml. */
export function addPlanner(dir: string, section: PlannerSection, bytes: Uint8Array): PlannerSection {
  writeFileSync(join(dir, section.model.file), bytes);
  const path = join(dir, "policy.yaml");
  const doc = parseDocument(readFileSync(path, "utf8"));
  doc.set("planner", doc.createNode(section, { flow: false }));
  writeFileSync(path, doc.toString({ lineWidth: 160 }));
  return section;
}
