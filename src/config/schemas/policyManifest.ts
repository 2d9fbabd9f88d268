/**
 * Schema of a policy bundle manifest (`policies/<name>/policy.yaml`, issue 4 item 1). Schema only:
 * src/policy/ loads the bundle and checks the ONNX files' real inputs/outputs against `models`.
 * Model paths are relative to the manifest's folder. Stats vectors are in the layout's units
 * (rad, m) and cover `dims` (indices into the layout vector; omitted = every dim).
 */
import { z } from "zod";
import { addIssue, checkUnique, finite, name } from "./common.js";

/** A tensor dimension: a fixed size, or a symbolic name (e.g. "batch"). */
const dimSchema = z.union([z.number().int().positive(), z.string().min(1)]);

const tensorSpec = z.object({
  name,
  shape: z.array(dimSchema),
  dtype: z.enum(["float32", "float16", "int64", "int32", "bool", "uint8"]).default("float32"),
}).strict();

const modelSpec = z.object({
  /** ONNX file, relative to the manifest's folder. */
  path: name.regex(/\.onnx$/, "expected a path ending in .onnx"),
  inputs: z.array(tensorSpec).min(1),
  outputs: z.array(tensorSpec).min(1),
}).strict().superRefine((m, ctx) => {
  checkUnique(ctx, m.inputs.map((t) => t.name), (i) => ["inputs", i, "name"], "input name");
  checkUnique(ctx, m.outputs.map((t) => t.name), (i) => ["outputs", i, "name"], "output name");
});

const dimsSchema = z.array(z.number().int().nonnegative()).min(1).optional();

const statsSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("mean_std"), dims: dimsSchema, mean: z.array(finite).min(1), std: z.array(finite.positive()).min(1) }).strict(),
  z.object({ kind: z.literal("min_max"), dims: dimsSchema, min: z.array(finite).min(1), max: z.array(finite).min(1) }).strict(),
  z.object({ kind: z.literal("none") }).strict(),
]);

const pixelNormalization = z.discriminatedUnion("kind", [
  /** uint8 / 255 → [0, 1]. */
  z.object({ kind: z.literal("zero_one") }).strict(),
  /** uint8 / 127.5 - 1 → [-1, 1]. */
  z.object({ kind: z.literal("minus_one_one") }).strict(),
  /** (uint8 / 255 - mean) / std per RGB channel. */
  z.object({ kind: z.literal("mean_std"), mean: z.tuple([finite, finite, finite]), std: z.tuple([finite.positive(), finite.positive(), finite.positive()]) }).strict(),
]);

const layoutRef = z.object({
  /** Layout name in the robot profile (e.g. bimanual_16d, joint_8d, ee_7d). */
  layout: name,
  /** Vector length the model expects; must equal the layout's length. */
  dim: z.number().int().positive(),
}).strict();

const manifestObject = z.object({
  format_version: z.literal(1),
  /** Policy family; the policy registry picks the implementation by this. */
  kind: z.string().min(1),
  name,
  /** Robot profile name (robots/<robot>.yaml) the layouts refer to. */
  robot: name,
  cameras: z.array(name).min(1),
  image: z.object({ width: z.number().int().positive(), height: z.number().int().positive() }).strict(),
  pixel_normalization: pixelNormalization,
  state: layoutRef,
  action: layoutRef,
  normalization: z.object({ state: statsSchema, action: statsSchema }).strict(),
  tokenizer: z.object({
    kind: z.literal("vocabulary"),
    /** Token sequence length fed to the encoder (padded/truncated). */
    max_tokens: z.number().int().positive(),
    /** Closed vocabulary of instruction strings; the token id of an instruction is its index + 1 (0 = pad). */
    instructions: z.array(z.string().min(1)).min(1),
  }).strict(),
  horizon: z.number().int().positive(),
  flow_steps: z.number().int().positive(),
  memory: z.object({ window: z.number().int().positive(), anchor: z.boolean() }).strict(),
  classifier: z.object({ threshold: finite.min(0).max(1), switch_count: z.number().int().positive() }).strict(),
  models: z.object({ encoder: modelSpec, memory: modelSpec, action_head: modelSpec, classifier: modelSpec }).strict(),
}).strict();

type Stats = z.output<typeof statsSchema>;

function checkStats(ctx: z.RefinementCtx, which: "state" | "action", s: Stats, dim: number): void {
  if (s.kind === "none") return;
  const base = ["normalization", which];
  const dims = s.dims ?? Array.from({ length: dim }, (_, i) => i);
  s.dims?.forEach((d, i) => { if (d >= dim) addIssue(ctx, [...base, "dims", i], `expected a dim index < ${which}.dim (${dim})`); });
  if (s.dims) checkUnique(ctx, s.dims.map(String), (i) => [...base, "dims", i], "dim index");
  const [a, b] = s.kind === "mean_std" ? (["mean", "std"] as const) : (["min", "max"] as const);
  const va = s.kind === "mean_std" ? s.mean : s.min;
  const vb = s.kind === "mean_std" ? s.std : s.max;
  if (va.length !== dims.length) addIssue(ctx, [...base, a], `expected ${dims.length} values (one per normalized dim)`);
  if (vb.length !== dims.length) addIssue(ctx, [...base, b], `expected ${dims.length} values (one per normalized dim)`);
  if (s.kind === "min_max") s.max.forEach((m, i) => { if (i < s.min.length && !(m > s.min[i]!)) addIssue(ctx, [...base, "max", i], `expected max > min (${s.min[i]})`); });
}

/** Zod schema of policy.yaml. Consumers may extend it (keep `.strict()` so typos are caught). */
export const policyManifestSchema = manifestObject.superRefine((m, ctx) => {
  checkUnique(ctx, m.cameras, (i) => ["cameras", i], "camera");
  checkUnique(ctx, m.tokenizer.instructions, (i) => ["tokenizer", "instructions", i], "instruction");
  checkStats(ctx, "state", m.normalization.state, m.state.dim);
  checkStats(ctx, "action", m.normalization.action, m.action.dim);
});

/** A validated policy manifest. */
export type PolicyManifest = z.output<typeof policyManifestSchema>;

/** Model roles in a Mem-0 bundle, in the order the runtime runs them. */
export const MODEL_ROLES = ["encoder", "memory", "action_head", "classifier"] as const;
