/**
 * Schema of a Mem-0 policy bundle manifest (`policies/<name>/policy.yaml`, format_version 1,
 * issue 4 item 1). The format is the one src/policy/mem0/ writes and reads (moved here from
 * src/policy/mem0/manifestSchema.ts so `engram check` and the runtime share one schema).
 * Schema only: src/policy/mem0/manifest.ts checks field agreement and the ONNX files' real
 * inputs/outputs. Model `file` paths are relative to the manifest's folder.
 */
import { z } from "zod";
import { finite, finiteWithin, intIn, positiveUpTo } from "./common.js";

const dim = z.union([intIn(1, 1_000_000), z.string().min(1)]);

/** One ONNX input/output: its name in the file, element type and shape (string dims are symbolic). */
export const tensorSpecSchema = z.object({
  name: z.string().min(1),
  type: z.enum(["float32", "int64", "float64", "int32", "bool"]),
  shape: z.array(dim),
}).strict();

/** Normalization stats over the listed dims of the state or action vector (robot units). */
const normStatsSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("min_max"), dims: z.array(intIn(0, 255)), min: z.array(finiteWithin(1e4)), max: z.array(finiteWithin(1e4)) }).strict(),
  z.object({ kind: z.literal("mean_std"), dims: z.array(intIn(0, 255)), mean: z.array(finiteWithin(1e4)), std: z.array(finite.nonnegative().max(1e4)) }).strict(),
  z.object({ kind: z.literal("none") }).strict(),
]);

/** SHA-256 of a model file (64 lowercase hex digits): a bundle loads only the weights it was written with. */
const sha256Field = z.string().regex(/^[0-9a-f]{64}$/, "expected the file's SHA-256 as 64 lowercase hex digits").optional();

function model<I extends string, O extends string>(inputs: readonly [I, ...I[]], outputs: readonly [O, ...O[]]) {
  const record = <K extends string>(keys: readonly [K, ...K[]]) =>
    z.object(Object.fromEntries(keys.map((k) => [k, tensorSpecSchema])) as Record<K, typeof tensorSpecSchema>).strict();
  return z.object({
    file: z.string().min(1),
    sha256: sha256Field,
    inputs: record(inputs),
    outputs: record(outputs),
  }).strict();
}

/**
 * Input/output roles of each model file, as the runtime binds them. memory.onnx reads a window of
 * features under the frame strategies (these roles), patch tokens under tokendrop (TOKEN_MEMORY_INPUTS).
 */
export const MODEL_ROLES = {
  encoder: { inputs: ["images", "state", "tokens"], outputs: ["image_feature", "text_feature"] },
  memory: { inputs: ["current", "window", "window_mask", "anchor", "anchor_mask", "text"], outputs: ["summary"] },
  classifier: { inputs: ["summary"], outputs: ["logit"] }, // and optionally "state" (classifierModel)
  action_head: { inputs: ["noisy_actions", "tau", "state", "summary"], outputs: ["velocity"] },
} as const;

/**
 * memory.onnx's inputs in a tokendrop bundle: the current feature, TokenDrop's read (`token_pixels` [1, N, D]
 * patch pixels, `token_positions` [1, N, 3] as history step, view, patch; `token_mask` [1, N]), the
 * current history `step` [1, 1] and the text feature.
 */
export const TOKEN_MEMORY_INPUTS = [
  "current", "token_pixels", "token_positions", "token_mask", "step", "text",
] as const;

/** memory.onnx's entry: either role set (the manifest check asks for the one its strategy reads). */
function memoryModel() {
  const roles = [...new Set([...MODEL_ROLES.memory.inputs, ...TOKEN_MEMORY_INPUTS])];
  return z.object({
    file: z.string().min(1),
    sha256: sha256Field,
    inputs: z.object(Object.fromEntries(roles.map((k) => [k, tensorSpecSchema.optional()]))).strict(),
    outputs: z.object({ summary: tensorSpecSchema }).strict(),
  }).strict();
}

/** classifier.onnx's entry: the summary, and optionally the normalized proprioceptive state beside it. */
function classifierModel() {
  return z.object({
    file: z.string().min(1),
    sha256: sha256Field,
    inputs: z.object({ summary: tensorSpecSchema, state: tensorSpecSchema.optional() }).strict(),
    outputs: z.object({ logit: tensorSpecSchema }).strict(),
  }).strict();
}

/** Input/output roles of the learned planner (`planner.onnx`, the manifest's optional `planner` section). */
export const PLANNER_ROLES = {
  inputs: ["task", "initial_image", "key_images", "key_subtasks", "key_mask"],
  outputs: ["logits"],
} as const;

/**
 * The learned planner (`planner.kind: learned`): what Mem-0's planning module gets (the global task,
 * the episode's initial image, the key memory of finished subtasks with their end images, from the
 * planner camera: the policy's first camera) and logits over `vocabulary` + "done" (the last class).
 */
export const plannerSectionSchema = z.object({
  /** Global tasks it knows, in id order: the `task` input [1,1] is the episode task's index here. */
  tasks: z.array(z.string().min(1)).min(1),
  /** Closed vocabulary of answers, in class order (each must be in the tokenizer's vocabulary). */
  vocabulary: z.array(z.string().min(1)).min(1),
  /** Key memory slots M: the last M finished subtasks are shown; older ones drop out. */
  key_memory_slots: intIn(1, 64),
  /** Size the planner's images are resized to (normalized with the policy's pixel_normalization). */
  image: z.object({ width: intIn(1, 1024), height: intIn(1, 1024) }).strict(),
  model: model(PLANNER_ROLES.inputs, PLANNER_ROLES.outputs),
}).strict();

/**
 * What a policy consumes and produces, shared by in-process (mem0) and remote bundles: cameras,
 * image size and normalization, layouts and their dimensions.
 */
export const policyIoFields = {
  /** Camera names from the robot profile, in the order the encoder stacks them. */
  cameras: z.array(z.string().min(1)).min(1),
  image: z.object({
    width: intIn(1, 1024),
    height: intIn(1, 1024),
    /** Applied to RGB in [0, 1]: (p - mean[c]) / std[c]. */
    pixel_normalization: z.object({ mean: z.array(finiteWithin(10)).length(3), std: z.array(positiveUpTo(10)).length(3) }).strict(),
  }).strict(),
  /** Layout names in the robot profile (e.g. bimanual_16d, joint_8d, ee_7d). */
  layout: z.object({ state: z.string().min(1), action: z.string().min(1) }).strict(),
  state_dim: intIn(1, 256),
  action_dim: intIn(1, 256),
};

/** The manifest as written in YAML (snake_case). A plain strict ZodObject, so consumers can `.extend` it. */
export const policyManifestSchema = z.object({
  format_version: z.literal(1),
  kind: z.literal("mem0"),
  name: z.string().min(1),
  ...policyIoFields,
  /**
   * What a denormalized chunk is: `absolute` joint targets, or offsets from the state the chunk was
   * computed on (`state`; needs the same layout for state and action). Offsets keep the first point
   * of every chunk at the measured pose, whatever the model's absolute error.
   */
  action_reference: z.enum(["absolute", "state"]).optional(),
  normalization: z.object({ state: normStatsSchema, action: normStatsSchema }).strict(),
  /** Closed vocabulary: each instruction string maps to its token ids (padded with pad_id to max_length). */
  tokenizer: z.object({
    kind: z.literal("closed_vocabulary"),
    max_length: intIn(1, 4096),
    pad_id: z.number().int().nonnegative(),
    vocabulary: z.record(z.string(), z.array(z.number().int().nonnegative())),
  }).strict(),
  /** Chunk horizon H (steps). */
  horizon: intIn(1, 1000),
  /** Euler steps N of the flow-matching sampler. */
  flow_steps: intIn(1, 1000),
  /**
   * Scale of the seeded starting noise (default 1). Below 1 the sampler starts nearer the noise mean
   * and returns smoother, more precise chunks from a small model, at the cost of sample diversity.
   */
  flow_noise_scale: z.number().min(0).max(1).optional(),
  control_hz: positiveUpTo(1000).optional(),
  memory: z.object({
    /**
     * What memory.onnx was trained on (default mem0): `mem0` anchor + sliding window of `window`
     * features, `framesamp` RoboMME's frame sampling into `window` slots, `tokendrop` RoboMME's
     * `window` highest-scored patch tokens (memory.tokendrop), `none` no history.
     */
    strategy: z.enum(["mem0", "framesamp", "tokendrop", "none"]).optional(),
    /** The slots memory.onnx reads: frames, or TokenDrop's token budget. */
    window: intIn(1, 1024),
    /** TokenDrop's scoring (strategy tokendrop): every `stride` steps, a heap of `kept`, `grid` x `grid` patches of
     * `cameras`. */
    tokendrop: z.object({
      stride: intIn(1, 1000),
      kept: intIn(1, 1_000_000),
      grid: intIn(1, 64),
      cameras: z.array(z.string().min(1)).min(1),
    }).strict().optional(),
    anchor: z.boolean(),
    feature_dim: intIn(1, 65_536),
    summary_tokens: intIn(1, 64),
  }).strict(),
  /** `rearm` (default false): after an end, count again only once a tick has fallen below the threshold (subtaskDebounce.ts). */
  classifier: z.object({ threshold: z.number().min(0).max(1), switch_count: intIn(1, 1000), rearm: z.boolean().optional() }).strict(),
  models: z.object({
    encoder: model(MODEL_ROLES.encoder.inputs, MODEL_ROLES.encoder.outputs),
    memory: memoryModel(),
    classifier: classifierModel(),
    action_head: model(MODEL_ROLES.action_head.inputs, MODEL_ROLES.action_head.outputs),
  }).strict(),
  /** Optional: bundles without it load as before; `planner.kind: learned` on an M(n) task needs it. */
  planner: plannerSectionSchema.optional(),
}).strict();

/** Parsed manifest. */
export type PolicyManifest = z.infer<typeof policyManifestSchema>;
/** One tensor entry of the manifest. */
export type TensorSpec = z.infer<typeof tensorSpecSchema>;
/** The manifest's `planner` section. */
export type PlannerSection = z.infer<typeof plannerSectionSchema>;
/** Model keys: encoder, memory, classifier, action_head. */
export type ModelKey = keyof typeof MODEL_ROLES;
