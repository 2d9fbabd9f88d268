/**
 * The `learned` planner: a small ONNX model in the policy bundle (the manifest's `planner`
 * section, planner.onnx), run in process by onnxruntime-node. It gets what Mem-0's planning module
 * gets (PlannerContext: the global task, the initial image, the key memory of finished subtasks with
 * their end images; with key memory off, `finished` is empty) and answers the argmax of its
 * logits: a subtask of its closed vocabulary, or "done", which ends the plan (PlannerFailure
 * "complete": the episode is then judged as it stands).
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import * as ort from "onnxruntime-node";
import {
  ConfigError, issueAt, loadPolicyManifest, type ConfigIssue, type PlannerSection, type YamlSource,
} from "../../config/index.js";
import { frameToTensor, type ImageSpec } from "../../observe/preprocess.js";
import { sha256Hex } from "../mem0/bundleIntegrity.js";
import { manifestFileOf } from "../mem0/bundle.js";
import { sectionOnnxIssues } from "../mem0/manifest.js";
import { f32, i64, openSession, sessionValues, type OpenSession } from "../mem0/ortSession.js";
import {
  indexOfText, plannerFeeds, plannerSectionIssues, plannerShapes, type KeyMemoryEntry,
} from "./learnedManifest.js";
import { PlannerFailure, type Planner, type PlannerAnswer, type PlannerContext } from "./types.js";

/** The learned planner over one open planner.onnx session. */
export class LearnedPlanner implements Planner {
  /** Decoded images by their JPEG bytes: end images recur in every later call. */
  private readonly decoded = new WeakMap<Uint8Array, Float32Array>();

  constructor(
    private readonly section: PlannerSection,
    private readonly session: OpenSession,
    private readonly imageSpec: ImageSpec,
    /** Where the section came from, for messages. */
    private readonly where: string,
  ) {}

  async next(ctx: PlannerContext): Promise<PlannerAnswer> {
    const t0 = performance.now();
    const p = this.section;
    const fail = (kind: "garbage" | "complete", why: string) =>
      new PlannerFailure(kind, `learned planner (${this.where}): ${why}`, 1, performance.now() - t0);
    const task = indexOfText(p.tasks, ctx.globalTask);
    const known = `${p.tasks.length} planner.tasks`;
    if (task < 0) throw fail("garbage", `global task ${JSON.stringify(ctx.globalTask)} is not one of its ${known}`);
    const finished: KeyMemoryEntry[] = [];
    for (const [k, f] of ctx.finished.entries()) {
      const subtask = indexOfText(p.vocabulary, f.subtask);
      const text = JSON.stringify(f.subtask);
      if (subtask < 0) throw fail("garbage", `finished subtask ${k} ${text} is not in planner.vocabulary`);
      finished.push({ subtask, image: await this.image(f.endImageJpeg, `end image of finished subtask ${k}`) });
    }
    const feeds = plannerFeeds(p, task, await this.image(ctx.initialImageJpeg, "initial image"), finished);
    const { h, w, M } = { h: p.image.height, w: p.image.width, M: p.key_memory_slots };
    const names = p.model.inputs;
    const out = await this.session.session.run({
      [names.task.name]: i64(feeds.task, [1, 1]),
      [names.initial_image.name]: f32(feeds.initialImage, [1, 3, h, w]),
      [names.key_images.name]: f32(feeds.keyImages, [1, M, 3, h, w]),
      [names.key_subtasks.name]: i64(feeds.keySubtasks, [1, M]),
      [names.key_mask.name]: f32(feeds.keyMask, [1, M]),
    });
    const logits = out[p.model.outputs.logits.name];
    const classes = p.vocabulary.length + 1;
    if (!logits || logits.dims.length !== 2 || logits.dims[0] !== 1 || logits.dims[1] !== classes) {
      const shape = logits ? `[${logits.dims.join(",")}]` : "missing";
      throw fail("garbage", `output "${p.model.outputs.logits.name}" has shape ${shape}, expected [1,V+1=${classes}]`);
    }
    const answer = argmax(logits.data as Float32Array);
    if (answer < 0) throw fail("garbage", `output "${p.model.outputs.logits.name}" is not finite`);
    const n = ctx.finished.length;
    if (answer === p.vocabulary.length) throw fail("complete", `answered done after ${n} finished subtask(s)`);
    return { subtask: p.vocabulary[answer]!, latencyMs: performance.now() - t0 };
  }

  /** Releases the session. */
  async close(): Promise<void> {
    await this.session.session.release();
  }

  private async image(jpeg: Uint8Array, what: string): Promise<Float32Array> {
    const hit = this.decoded.get(jpeg);
    if (hit) return hit;
    if (jpeg.length === 0) {
      const message = `learned planner (${this.where}): no ${what} (the planner camera sent none)`;
      throw new PlannerFailure("garbage", message, 1, 0);
    }
    const header = { stamp: { sec: 0, nanosec: 0 }, frame_id: "" };
    const frame = { kind: "compressed" as const, msg: { header, format: "jpeg", data: jpeg } };
    const tensor = await frameToTensor(frame, this.imageSpec, `learned planner ${what}`);
    this.decoded.set(jpeg, tensor);
    return tensor;
  }
}

/** Index of the largest value; -1 when any value is not finite. */
function argmax(values: Float32Array): number {
  let best = 0;
  for (let i = 0; i < values.length; i++) {
    if (!Number.isFinite(values[i]!)) return -1;
    if (values[i]! > values[best]!) best = i;
  }
  return best;
}

/** A bundle's planner section, opened and checked, or the issues; `null` section when the bundle has none. */
async function openChecked(bundlePath: string): Promise<{ planner: LearnedPlanner | null; issues: ConfigIssue[] }> {
  const { manifest, dir, source } = loadPolicyManifest(manifestFileOf(bundlePath));
  const p = manifest.planner;
  if (!p) return { planner: null, issues: [] };
  const issues = plannerSectionIssues(source, p, Object.keys(manifest.tokenizer.vocabulary));
  const file = resolve(dir, p.model.file);
  let bytes: Uint8Array;
  try { bytes = readFileSync(file); } catch (err) {
    const message = `expected a readable ONNX file, found ${file}: ${(err as Error).message}`;
    return { planner: null, issues: [...issues, issueAt(source, ["planner", "model", "file"], message)] };
  }
  const sum = checksumIssueOf(source, p, bytes);
  if (sum) issues.push(sum);
  let session: OpenSession;
  try { session = await openSession(bytes, "cpu"); } catch (err) {
    const why = (err as Error).message.split("\n")[0];
    const message = `expected an ONNX model onnxruntime can load, found ${file}: ${why}`;
    return { planner: null, issues: [...issues, issueAt(source, ["planner", "model", "file"], message)] };
  }
  const { inputs, outputs } = sessionValues(session.session);
  issues.push(...sectionOnnxIssues(source, ["planner", "model"], p.model, plannerShapes(p), inputs, outputs));
  if (issues.length > 0) {
    await session.session.release();
    return { planner: null, issues };
  }
  const norm = manifest.image.pixel_normalization;
  const spec: ImageSpec = {
    width: p.image.width, height: p.image.height,
    mean: norm.mean as ImageSpec["mean"], std: norm.std as ImageSpec["std"],
  };
  return { planner: new LearnedPlanner(p, session, spec, manifestFileOf(bundlePath)), issues: [] };
}

function checksumIssueOf(source: YamlSource, p: PlannerSection, bytes: Uint8Array): ConfigIssue | null {
  const found = sha256Hex(bytes);
  if (found === p.model.sha256) return null;
  const message = p.model.sha256 === undefined
    ? `expected the SHA-256 of ${p.model.file} (sha256: ${found} for the file there now), found nothing (field missing)`
    : `${p.model.file} has SHA-256 ${found}, expected ${p.model.sha256}: `
      + "the file is not the one this manifest was written for";
  return issueAt(source, ["planner", "model", "sha256"], message);
}

/**
 * Opens the learned planner of the bundle at `bundlePath` (folder or policy.yaml). Throws a
 * ConfigError naming each problem (`policy.yaml:L:C planner.model.inputs.key_images.shape: ...`),
 * or when the bundle has no `planner` section.
 */
export async function openLearnedPlanner(bundlePath: string): Promise<LearnedPlanner> {
  const { planner, issues } = await openChecked(bundlePath);
  if (issues.length > 0) throw new ConfigError(issues);
  if (!planner) {
    throw new Error(`${manifestFileOf(bundlePath)}: no planner section (planner.onnx), so policy.planner.kind `
      + `"learned" cannot plan this M(n) task; add one (engram_ml/planner), or set policy.planner.kind to openai, `
      + "or to oracle-list (privileged, ablations only)");
  }
  return planner;
}

/** Every issue of a bundle's planner section, for `engram check`; [] when it loads or the bundle has none. */
export async function learnedPlannerIssues(bundlePath: string): Promise<ConfigIssue[]> {
  const { planner, issues } = await openChecked(bundlePath);
  await planner?.close();
  return issues;
}
