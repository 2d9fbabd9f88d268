/**
 * Mem-0 bundle manifest: reads `policies/<name>/policy.yaml` (errors name file:line:field), checks
 * that its fields agree with each other, resolves ONNX paths relative to the manifest, and checks
 * every ONNX file's inputs/outputs (names, element types, shapes) against it.
 */
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { LineCounter, parseDocument, isMap, isNode, isScalar, isSeq, type Document } from "yaml";
import { MODEL_ROLES, policyManifestSchema, type ModelKey, type PolicyManifest, type TensorSpec } from "./manifestSchema.js";
import { checkStats } from "./normalization.js";

export { MODEL_ROLES, type ModelKey, type PolicyManifest, type TensorSpec } from "./manifestSchema.js";

/** A manifest with where it came from, for error messages and path resolution. */
export interface LoadedManifest {
  manifest: PolicyManifest;
  /** Path as given (used in messages). */
  path: string;
  /** Directory the ONNX paths are relative to. */
  dir: string;
  /** Line (1-based) of a dotted field path, or undefined when absent. */
  lineOf(field: (string | number)[]): number | undefined;
}

/** A dim the runtime expects: `B` is the batch (1, or symbolic when the manifest says so). */
export type ExpectedDim = { label: string; value: number } | { label: "B"; value: 1 };

/** Metadata of one ONNX input/output as onnxruntime reports it. */
export interface OnnxValueInfo {
  name: string;
  type: string;
  shape: readonly (number | string)[];
}

/** Reads and validates a manifest. Throws `<file>:<line>: <field>: <problem>` on the first batch of problems. */
export function readManifest(path: string): LoadedManifest {
  const text = readFileSync(path, "utf8");
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
  if (doc.errors.length > 0) {
    const e = doc.errors[0];
    throw new Error(`${path}:${lineCounter.linePos(e.pos[0]).line}: YAML: ${e.message.split("\n")[0]}`);
  }
  const lineOf = (field: (string | number)[]) => nodeLine(doc, lineCounter, field);
  const parsed = policyManifestSchema.safeParse(doc.toJS());
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${path}:${lineOf(i.path) ?? 1}: ${i.path.join(".") || "(root)"}: ${i.message}`);
    throw new Error(lines.join("\n"));
  }
  const loaded: LoadedManifest = { manifest: parsed.data, path, dir: dirname(resolve(path)), lineOf };
  const problems = consistencyProblems(loaded);
  if (problems.length > 0) throw new Error(problems.join("\n"));
  return loaded;
}

/** Absolute path of a model file. */
export function modelPath(loaded: LoadedManifest, key: ModelKey): string {
  return resolve(loaded.dir, loaded.manifest.models[key].file);
}

/** Shape the runtime will feed/read for each role, derived from the manifest's scalar fields. */
export function expectedShapes(m: PolicyManifest): Record<ModelKey, Record<string, ExpectedDim[]>> {
  const B: ExpectedDim = { label: "B", value: 1 };
  const d = (label: string, value: number): ExpectedDim => ({ label, value });
  const F = d("F", m.memory.feature_dim), K = d("K", m.memory.window), T = d("T", m.memory.summary_tokens);
  const S = d("S", m.state_dim), A = d("A", m.action_dim), Hz = d("H", m.horizon);
  return {
    encoder: {
      images: [B, d("cameras", m.cameras.length), d("C", 3), d("height", m.image.height), d("width", m.image.width)],
      state: [B, S], tokens: [B, d("L", m.tokenizer.max_length)], image_feature: [B, F], text_feature: [B, F],
    },
    memory: { current: [B, F], window: [B, K, F], window_mask: [B, K], anchor: [B, d("1", 1), F], anchor_mask: [B, d("1", 1)], text: [B, F], summary: [B, T, F] },
    classifier: { summary: [B, T, F], logit: [B, d("1", 1)] },
    action_head: { noisy_actions: [B, Hz, A], tau: [B, d("1", 1)], state: [B, S], summary: [B, T, F], velocity: [B, Hz, A] },
  };
}

/** Element type the runtime uses for each role. */
export function expectedType(role: string): string {
  return role === "tokens" ? "int64" : "float32";
}

/** Renders a shape as `[1,K=4,F=32]` (labels shown for named dims). */
export function renderShape(dims: readonly (number | string)[], expected?: ExpectedDim[]): string {
  return `[${dims.map((v, i) => {
    const e = expected?.[i];
    return e && typeof v === "number" && e.label !== "B" && !/^\d+$/.test(e.label) ? `${e.label}=${v}` : String(v);
  }).join(",")}]`;
}

/** Problems (empty when consistent) between the manifest's scalar fields and its tensor entries. */
export function consistencyProblems(loaded: LoadedManifest): string[] {
  const { manifest: m, path } = loaded;
  const at = (field: (string | number)[]) => `${path}:${loaded.lineOf(field) ?? 1}: ${field.join(".")}`;
  const problems: string[] = [];
  const shapes = expectedShapes(m);
  for (const key of Object.keys(MODEL_ROLES) as ModelKey[]) {
    for (const dir of ["inputs", "outputs"] as const) {
      for (const [role, spec] of Object.entries(m.models[key][dir]) as [string, TensorSpec][]) {
        const exp = shapes[key][role];
        const ok = spec.shape.length === exp.length && spec.shape.every((v, i) =>
          exp[i].label === "B" ? v === 1 || typeof v === "string" : v === exp[i].value);
        if (!ok) {
          const want = renderShape(exp.map((e) => (e.label === "B" ? "1|batch" : e.value)) as (number | string)[], exp);
          problems.push(`${at(["models", key, dir, role, "shape"])}: shape ${renderShape(spec.shape)} disagrees with the manifest's sizes, expected ${want}`);
        }
        if (spec.type !== expectedType(role)) problems.push(`${at(["models", key, dir, role, "type"])}: type ${spec.type}, expected ${expectedType(role)}`);
      }
    }
  }
  for (const which of ["state", "action"] as const) {
    const dim = which === "state" ? m.state_dim : m.action_dim;
    for (const p of checkStats(m.normalization[which], dim)) problems.push(`${at(["normalization", which])}: ${p}`);
  }
  for (const [text, ids] of Object.entries(m.tokenizer.vocabulary)) {
    if (ids.length > m.tokenizer.max_length) {
      problems.push(`${at(["tokenizer", "vocabulary", text])}: ${ids.length} tokens, max_length is ${m.tokenizer.max_length}`);
    }
  }
  return problems;
}

/**
 * Checks one ONNX file's reported inputs/outputs against the manifest. Returns messages like
 * `policies/x/policy.yaml:41: memory.onnx input "window" shape [1,8,64] expected [1,K=4,F=64]`.
 */
export function onnxProblems(loaded: LoadedManifest, key: ModelKey, inputs: readonly OnnxValueInfo[], outputs: readonly OnnxValueInfo[]): string[] {
  const { manifest: m, path } = loaded;
  const file = m.models[key].file;
  const shapes = expectedShapes(m)[key];
  const problems: string[] = [];
  for (const [dir, actual, word] of [["inputs", inputs, "input"], ["outputs", outputs, "output"]] as const) {
    const declared = Object.entries(m.models[key][dir]) as [string, TensorSpec][];
    for (const [role, spec] of declared) {
      const where = `${path}:${loaded.lineOf(["models", key, dir, role]) ?? 1}: ${file} ${word} "${spec.name}" (${role})`;
      const info = actual.find((a) => a.name === spec.name);
      if (!info) {
        problems.push(`${where}: not in the model; its ${word}s are [${actual.map((a) => `"${a.name}"`).join(", ")}]`);
        continue;
      }
      if (info.type !== spec.type) problems.push(`${where}: element type ${info.type} expected ${spec.type}`);
      const ok = info.shape.length === spec.shape.length && spec.shape.every((want, i) => typeof want === "string" || info.shape[i] === want);
      if (!ok) problems.push(`${where}: shape ${renderShape(info.shape)} expected ${renderShape(spec.shape, shapes[role])}`);
    }
    if (dir === "inputs") {
      const known = new Set(declared.map(([, s]) => s.name));
      for (const a of actual) if (!known.has(a.name)) problems.push(`${path}: ${file} has input "${a.name}" the manifest does not declare`);
    }
  }
  return problems;
}

/** Line of the deepest existing node on `field` (the key's line for map entries). */
function nodeLine(doc: Document, lc: LineCounter, field: (string | number)[]): number | undefined {
  let node: unknown = doc.contents;
  let line = isNode(node) && node.range ? lc.linePos(node.range[0]).line : undefined;
  for (const seg of field) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(seg));
      if (!pair) break;
      if (isNode(pair.key) && pair.key.range) line = lc.linePos(pair.key.range[0]).line;
      node = pair.value;
    } else if (isSeq(node) && typeof seg === "number" && node.items[seg] !== undefined) {
      node = node.items[seg];
      if (isNode(node) && node.range) line = lc.linePos(node.range[0]).line;
    } else {
      break;
    }
  }
  return line;
}
