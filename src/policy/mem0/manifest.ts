/**
 * Mem-0 bundle manifest: reads `policies/<name>/policy.yaml` (errors name file:line:field), checks
 * that its fields agree with each other, resolves ONNX paths relative to the manifest, and checks
 * every ONNX file's inputs/outputs (names, element types, shapes) against it.
 */
import { ConfigError, issueAt, loadPolicyManifest, MODEL_ROLES, TOKEN_MEMORY_INPUTS, type ConfigIssue, type ModelKey, type PolicyManifest, type TensorSpec, type YamlSource } from "../../config/index.js";
import { checkStats } from "./normalization.js";

export { MODEL_ROLES, type ModelKey, type PolicyManifest, type TensorSpec } from "../../config/index.js";

/** A manifest with where it came from, for error messages and path resolution. */
export interface LoadedManifest {
  manifest: PolicyManifest;
  /** Path as given (used in messages). */
  path: string;
  /** Directory the ONNX paths are relative to. */
  dir: string;
  /** Absolute ONNX paths by model key. */
  modelPaths: Record<ModelKey, string>;
  /** Parsed YAML with positions (config layer). */
  source: YamlSource;
}

/** A dim the runtime expects: `B` is the batch (1, or symbolic when the manifest says so). */
export type ExpectedDim = { label: string; value: number } | { label: "B"; value: 1 };

/** Metadata of one ONNX input/output as onnxruntime reports it. */
export interface OnnxValueInfo {
  name: string;
  type: string;
  shape: readonly (number | string)[];
}

/**
 * Reads and validates a manifest through the config layer, then checks that its fields agree with
 * each other. Throws a ConfigError listing every issue as `file:line:col field: problem`.
 */
export function readManifest(path: string): LoadedManifest {
  const cfg = loadPolicyManifest(path);
  const loaded: LoadedManifest = { manifest: cfg.manifest, path, dir: cfg.dir, modelPaths: cfg.modelPaths, source: cfg.source };
  const issues = consistencyIssues(loaded);
  if (issues.length > 0) throw new ConfigError(issues);
  return loaded;
}

/** Absolute path of a model file. */
export function modelPath(loaded: LoadedManifest, key: ModelKey): string {
  return loaded.modelPaths[key];
}

/** Shape the runtime will feed/read for each role, derived from the manifest's scalar fields. */
export function expectedShapes(m: PolicyManifest): Record<ModelKey, Record<string, ExpectedDim[]>> {
  const B: ExpectedDim = { label: "B", value: 1 };
  const d = (label: string, value: number): ExpectedDim => ({ label, value });
  const F = d("F", m.memory.feature_dim), K = d("K", m.memory.window), T = d("T", m.memory.summary_tokens);
  const S = d("S", m.state_dim), A = d("A", m.action_dim), Hz = d("H", m.horizon);
  const D = d("D", tokenDim(m));
  return {
    encoder: {
      images: [B, d("cameras", m.cameras.length), d("C", 3), d("height", m.image.height), d("width", m.image.width)],
      state: [B, S], tokens: [B, d("L", m.tokenizer.max_length)], image_feature: [B, F], text_feature: [B, F],
    },
    memory: {
      current: [B, F], window: [B, K, F], window_mask: [B, K], anchor: [B, d("1", 1), F], anchor_mask: [B, d("1", 1)],
      text: [B, F], token_pixels: [B, K, D], token_positions: [B, K, d("3", 3)], token_mask: [B, K],
      step: [B, d("1", 1)], summary: [B, T, F],
    },
    classifier: { summary: [B, T, F], state: [B, S], logit: [B, d("1", 1)] },
    action_head: { noisy_actions: [B, Hz, A], tau: [B, d("1", 1)], state: [B, S], summary: [B, T, F], velocity: [B, Hz, A] },
  };
}

/** Values per TokenDrop token: one patch's pixels, 3 x (height / grid) x (width / grid); 0 without memory.tokendrop. */
export function tokenDim(m: PolicyManifest): number {
  const grid = m.memory.tokendrop?.grid;
  return grid ? 3 * Math.floor(m.image.height / grid) * Math.floor(m.image.width / grid) : 0;
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

/** Issues (empty when consistent) between the manifest's scalar fields, stats and tensor entries. */
export function consistencyIssues(loaded: LoadedManifest): ConfigIssue[] {
  const m = loaded.manifest;
  const problems: ConfigIssue[] = [];
  const at = (field: (string | number)[], message: string) => problems.push(issueAt(loaded.source, field, message));
  const shapes = expectedShapes(m);
  for (const key of Object.keys(MODEL_ROLES) as ModelKey[]) {
    problems.push(...sectionShapeIssues(loaded.source, ["models", key], m.models[key], shapes[key], expectedType));
  }
  for (const which of ["state", "action"] as const) {
    const dim = which === "state" ? m.state_dim : m.action_dim;
    for (const p of checkStats(m.normalization[which], dim)) at(["normalization", which], p);
  }
  if (m.action_reference === "state" && (m.layout.state !== m.layout.action || m.state_dim !== m.action_dim)) {
    at(["action_reference"], `"state" needs the same state and action layout, found ${m.layout.state} (${m.state_dim}) and ${m.layout.action} (${m.action_dim})`);
  }
  problems.push(...memoryIssues(loaded));
  for (const [text, ids] of Object.entries(m.tokenizer.vocabulary)) {
    if (ids.length > m.tokenizer.max_length) {
      at(["tokenizer", "vocabulary", text], `expected at most max_length=${m.tokenizer.max_length} tokens, found ${ids.length}`);
    }
  }
  return problems;
}

/** The memory section against memory.onnx's declared roles: each strategy's role set, TokenDrop's grid and cameras. */
function memoryIssues(loaded: LoadedManifest): ConfigIssue[] {
  const m = loaded.manifest;
  const problems: ConfigIssue[] = [];
  const at = (field: (string | number)[], message: string) => problems.push(issueAt(loaded.source, field, message));
  const strategy = m.memory.strategy ?? "mem0";
  const tokens = strategy === "tokendrop";
  const roles: readonly string[] = tokens ? TOKEN_MEMORY_INPUTS : MODEL_ROLES.memory.inputs;
  const declared = declaredRoles(m.models.memory.inputs).map(([role]) => role);
  const missing = roles.filter((r) => !declared.includes(r)), extra = declared.filter((r) => !roles.includes(r));
  if (missing.length > 0 || extra.length > 0) {
    const wrong = [missing.length > 0 ? `missing ${missing.join(", ")}` : "",
      extra.length > 0 ? `not its roles: ${extra.join(", ")}` : ""].filter(Boolean).join("; ");
    at(["models", "memory", "inputs"], `memory.strategy ${strategy} reads ${roles.join(", ")} (${wrong})`);
  }
  const td = m.memory.tokendrop;
  if (tokens && !td) at(["memory"], "memory.strategy tokendrop needs memory.tokendrop: {stride, kept, grid, cameras}");
  if (td && !tokens) at(["memory", "tokendrop"], `only with memory.strategy tokendrop, found ${strategy}`);
  if (td && (m.image.width % td.grid !== 0 || m.image.height % td.grid !== 0)) {
    const image = `${m.image.width}x${m.image.height}`;
    at(["memory", "tokendrop", "grid"], `${td.grid} does not divide the ${image} image into whole patches`);
  }
  td?.cameras.forEach((cam, i) => {
    if (m.cameras.includes(cam)) return;
    at(["memory", "tokendrop", "cameras", i], `"${cam}" is not one of the policy's cameras (${m.cameras.join(", ")})`);
  });
  return problems;
}

/**
 * Checks one ONNX file's reported inputs/outputs against the manifest. Issues read like
 * `policies/x/policy.yaml:86:9 models.memory.inputs.window: memory.onnx input "window" (window): shape [1,8,32] expected [1,K=4,F=32]`.
 */
export function onnxIssues(loaded: LoadedManifest, key: ModelKey, inputs: readonly OnnxValueInfo[], outputs: readonly OnnxValueInfo[]): ConfigIssue[] {
  const m = loaded.manifest;
  return sectionOnnxIssues(loaded.source, ["models", key], m.models[key], expectedShapes(m)[key], inputs, outputs);
}

/** One model entry of a manifest: its file and declared inputs/outputs by role. */
export interface ModelSection {
  file: string;
  /** By role; memory.onnx's entry leaves the other strategy family's roles out. */
  inputs: Record<string, TensorSpec | undefined>;
  outputs: Record<string, TensorSpec | undefined>;
}

/** The roles a section declares, with their specs. */
function declaredRoles(specs: Record<string, TensorSpec | undefined>): [string, TensorSpec][] {
  return Object.entries(specs).filter((e): e is [string, TensorSpec] => e[1] !== undefined);
}

/** Declared shapes and types of `section` (at `field` in the manifest) against what the manifest's sizes imply. */
export function sectionShapeIssues(
  source: YamlSource, field: (string | number)[], section: ModelSection,
  shapes: Record<string, ExpectedDim[]>, typeOf: (role: string) => string,
): ConfigIssue[] {
  const problems: ConfigIssue[] = [];
  for (const dir of ["inputs", "outputs"] as const) {
    for (const [role, spec] of declaredRoles(section[dir])) {
      const exp = shapes[role]!;
      const ok = spec.shape.length === exp.length && spec.shape.every((v, i) =>
        exp[i]!.label === "B" ? v === 1 || typeof v === "string" : v === exp[i]!.value);
      if (!ok) {
        const want = renderShape(exp.map((e) => (e.label === "B" ? "1|batch" : e.value)) as (number | string)[], exp);
        const message = `expected ${want} from the manifest's sizes, found shape ${renderShape(spec.shape)}`;
        problems.push(issueAt(source, [...field, dir, role, "shape"], message));
      }
      const want = typeOf(role);
      if (spec.type !== want) {
        problems.push(issueAt(source, [...field, dir, role, "type"], `expected ${want} for role ${role}, found ${spec.type}`));
      }
    }
  }
  return problems;
}

/** One ONNX file's reported inputs/outputs against the model entry `section` at `field` in the manifest. */
export function sectionOnnxIssues(
  source: YamlSource, field: (string | number)[], section: ModelSection, shapes: Record<string, ExpectedDim[]>,
  inputs: readonly OnnxValueInfo[], outputs: readonly OnnxValueInfo[],
): ConfigIssue[] {
  const file = section.file;
  const problems: ConfigIssue[] = [];
  for (const [dir, actual, word] of [["inputs", inputs, "input"], ["outputs", outputs, "output"]] as const) {
    const declared = declaredRoles(section[dir]);
    for (const [role, spec] of declared) {
      const what = `${file} ${word} "${spec.name}" (${role})`;
      const at = (f: string, message: string) => problems.push(issueAt(source, [...field, dir, role, f], `${what}: ${message}`));
      const info = actual.find((a) => a.name === spec.name);
      if (!info) {
        at("name", `not in the model; its ${word}s are [${actual.map((a) => `"${a.name}"`).join(", ")}]`);
        continue;
      }
      if (info.type !== spec.type) at("type", `element type ${info.type} expected ${spec.type}`);
      const ok = info.shape.length === spec.shape.length
        && spec.shape.every((want, i) => typeof want === "string" || info.shape[i] === want);
      if (!ok) at("shape", `shape ${renderShape(info.shape)} expected ${renderShape(spec.shape, shapes[role])}`);
    }
    if (dir === "inputs") {
      const known = new Set(declared.map(([, s]) => s.name));
      for (const a of actual) {
        if (known.has(a.name)) continue;
        const message = `${file} has input "${a.name}" the manifest does not declare`;
        problems.push(issueAt(source, [...field, "inputs"], message));
      }
    }
  }
  return problems;
}
