/**
 * The learned planner's manifest section (`planner:` in policy.yaml, schema in src/config): the
 * shapes its ONNX inputs/outputs must have, the checks between its fields and the rest of the
 * bundle, and the input tensors for one call (pure).
 */
import { issueAt, type ConfigIssue, type PlannerSection, type YamlSource } from "../../config/index.js";
import { sectionShapeIssues, type ExpectedDim } from "../mem0/manifest.js";
import { canonicalInstruction } from "../mem0/tokenizer.js";

/**
 * Shapes of planner.onnx by role: task [B,1] int64, initial_image [B,3,h,w], key_images
 * [B,M,3,h,w], key_subtasks [B,M] int64 (vocabulary indices), key_mask [B,M] (1 = a finished
 * subtask in the slot), logits [B,V+1] (the last class is "done").
 */
export function plannerShapes(p: PlannerSection): Record<string, ExpectedDim[]> {
  const B: ExpectedDim = { label: "B", value: 1 };
  const d = (label: string, value: number): ExpectedDim => ({ label, value });
  const M = d("M", p.key_memory_slots), C = d("C", 3), h = d("height", p.image.height), w = d("width", p.image.width);
  return {
    task: [B, d("1", 1)], initial_image: [B, C, h, w], key_images: [B, M, C, h, w],
    key_subtasks: [B, M], key_mask: [B, M], logits: [B, d("V+1", p.vocabulary.length + 1)],
  };
}

/** Element type of each planner role. */
export function plannerType(role: string): string {
  return role === "task" || role === "key_subtasks" ? "int64" : "float32";
}

/**
 * Issues of the section against itself and the bundle: declared shapes and types, no repeated
 * task or answer, every answer in the tokenizer's vocabulary (the policy must follow each one).
 */
export function plannerSectionIssues(
  source: YamlSource, p: PlannerSection, tokenizerTexts: readonly string[],
): ConfigIssue[] {
  const problems = sectionShapeIssues(source, ["planner", "model"], p.model, plannerShapes(p), plannerType);
  const known = new Set(tokenizerTexts.map(canonicalInstruction));
  for (const list of ["tasks", "vocabulary"] as const) {
    const seen = new Map<string, number>();
    p[list].forEach((text, i) => {
      const key = canonicalInstruction(text);
      const first = seen.get(key);
      if (first !== undefined) {
        const message = `expected each entry once, found ${JSON.stringify(text)} again (first at ${first})`;
        problems.push(issueAt(source, ["planner", list, i], message));
      }
      seen.set(key, i);
      if (list === "vocabulary" && !known.has(key)) {
        const found = `found ${JSON.stringify(text)}, not in tokenizer.vocabulary`;
        const message = `expected an answer the policy can follow, ${found}`;
        problems.push(issueAt(source, ["planner", list, i], message));
      }
    });
  }
  return problems;
}

/** One call's inputs, as flat arrays in the shapes of plannerShapes (batch 1). */
export interface PlannerFeeds {
  task: BigInt64Array;
  initialImage: Float32Array;
  keyImages: Float32Array;
  keySubtasks: BigInt64Array;
  keyMask: Float32Array;
}

/** A finished subtask as the planner takes it: its vocabulary index and its end image (CHW, normalized). */
export interface KeyMemoryEntry { subtask: number; image: Float32Array }

/**
 * The feeds for task index `task`, the initial image and the key memory `finished` (oldest first):
 * the last M entries fill slots 0.., the rest stay zero with mask 0. Key memory off is an empty list.
 */
export function plannerFeeds(
  p: PlannerSection, task: number, initialImage: Float32Array, finished: readonly KeyMemoryEntry[],
): PlannerFeeds {
  const M = p.key_memory_slots;
  const plane = 3 * p.image.height * p.image.width;
  const check = (img: Float32Array, what: string) => {
    const size = `3x${p.image.height}x${p.image.width}`;
    if (img.length !== plane) throw new Error(`planner ${what}: ${img.length} values, expected ${size} = ${plane}`);
  };
  check(initialImage, "initial image");
  const shown = finished.slice(-M);
  const keyImages = new Float32Array(M * plane);
  const keySubtasks = new BigInt64Array(M);
  const keyMask = new Float32Array(M);
  shown.forEach((f, slot) => {
    check(f.image, `key memory image ${slot}`);
    keyImages.set(f.image, slot * plane);
    keySubtasks[slot] = BigInt(f.subtask);
    keyMask[slot] = 1;
  });
  return { task: BigInt64Array.of(BigInt(task)), initialImage, keyImages, keySubtasks, keyMask };
}

/** Index of `text` in `list` (canonical match: case, spaces, final period), or -1. */
export function indexOfText(list: readonly string[], text: string): number {
  const key = canonicalInstruction(text);
  return list.findIndex((t) => canonicalInstruction(t) === key);
}
