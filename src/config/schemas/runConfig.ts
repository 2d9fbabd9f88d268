/**
 * Schema of a run config (`launch/<name>.yaml`, not `*.launch.yaml`): what `engram run` and
 * `engram sim` read. Relative paths (robot, policy bundle, replay file) resolve against the config
 * file's own folder (`../robots/x-one.yaml` from launch/). Defaults are filled in so callers get a
 * complete RunConfig.
 */
import { z } from "zod";
import { TASK_IDS } from "../../task/index.js";
import { addIssue, finite, intIn, name, positiveUpTo, topic } from "./common.js";

export { TASK_IDS };

const busSchema = z.discriminatedUnion("kind", [
  /** In-process bus (sim twin and runtime in one process). */
  z.object({ kind: z.literal("local") }).strict(),
  /** Live ROS 2 via rclnodejs; needs ROS_DISTRO and AMENT_PREFIX_PATH. */
  z.object({ kind: z.literal("ros2"), node_name: name.default("engram"), domain_id: z.number().int().min(0).max(232).optional(), use_sim_time: z.boolean().default(false) }).strict(),
  /** An MCAP recording played back as the robot. */
  z.object({ kind: z.literal("replay"), file: name, rate: positiveUpTo(100).optional(), as_fast_as_possible: z.boolean().default(false) }).strict(),
]);

/**
 * Planner kinds: `learned` (the bundle's planner.onnx), `openai` (a chat endpoint), `none` (M(n)
 * tasks run on the global instruction), and two privileged oracles for ablations only, which read
 * what the twin computes from the hidden scene: `oracle-list` (the task's own subtask list, walked
 * by the count finished) and `oracle` (the twin's ground-truth current subtask, /sim/subtask).
 */
export const PLANNER_KINDS = ["learned", "openai", "oracle-list", "oracle", "none"] as const;
/** Planner kinds that read the twin's hidden state: never a default, always flagged in reports. */
export const PRIVILEGED_PLANNERS: readonly string[] = ["oracle-list", "oracle"];
/** Classifier kinds that read the twin's hidden state (`classifier: oracle`, its ground-truth ends). */
export const PRIVILEGED_CLASSIFIERS: readonly string[] = ["oracle"];

/** What the schema says to a config that still names the planner `scripted` (renamed: it was an oracle). */
export const SCRIPTED_RENAMED = "planner kind \"scripted\" is now \"oracle-list\": it walks the task's subtask "
  + "list, which the twin computes from the hidden scene (a privileged oracle, for ablations only); "
  + "use \"learned\" (the bundle's planner.onnx) or \"openai\" to evaluate a planner";

/** One of PLANNER_KINDS. */
export type PlannerKind = (typeof PLANNER_KINDS)[number];

// A plain string checked here (not z.enum) so the renamed kind gets its own message.
const plannerKind = z.string().superRefine((k, ctx) => {
  if ((PLANNER_KINDS as readonly string[]).includes(k)) return;
  const known = PLANNER_KINDS.map((o) => JSON.stringify(o)).join(", ");
  const message = k === "scripted" ? SCRIPTED_RENAMED : `expected one of ${known}`;
  ctx.addIssue({ code: z.ZodIssueCode.custom, message });
}).transform((k) => k as PlannerKind);

const plannerSchema = z.object({
  kind: plannerKind,
  /** Base URL as OpenAI clients take it (http://host:8000/v1); never with credentials. */
  url: z.string().url().optional(),
  model: z.string().min(1).optional(),
  /** Name of the environment variable holding the API key (the key never goes in a config file). */
  api_key_env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "expected an environment variable name (letters, digits, _)").optional(),
  /** mem0: the format a Mem-0 planner was fine-tuned on; chat: a plain prompt for general chat models. */
  prompt: z.enum(["mem0", "chat"]).default("mem0"),
  /** System message; default: the built-in planner prompt. */
  system_prompt: z.string().min(1).optional(),
  max_tokens: intIn(1, 32_768).default(2048),
  timeout_ms: intIn(1, 600_000).default(10000),
  retries: z.number().int().min(0).max(10).default(2),
}).strict().superRefine((p, ctx) => {
  if (p.kind === "openai" && !p.url) addIssue(ctx, ["url"], "expected a url (e.g. http://127.0.0.1:8000/v1) when kind is \"openai\"");
  if (p.url && /^[a-z][a-z0-9+.-]*:\/\/[^/]*@/i.test(p.url)) addIssue(ctx, ["url"], "expected a url without credentials (user:key@); name the environment variable holding the key in api_key_env");
  if (p.kind === "openai" && !p.model) addIssue(ctx, ["model"], "expected a model name when kind is \"openai\"");
});

/**
 * A demonstration prompt fed to the policy's memory before each episode's first act (README,
 * "Demonstration prompts"): `mcap`, a recorded episode (engram record, or a run's episodes/<n>.mcap;
 * relative to the config's folder); `twin`, the twin's demonstration expert run on the episode's own scene.
 */
const demonstrationSchema = z.discriminatedUnion("source", [
  z.object({ source: z.literal("mcap"), path: name }).strict(),
  /** max_frames: cut the twin's demonstration after this many control steps (default: when its expert is done). */
  z.object({ source: z.literal("twin"), max_frames: intIn(1, 100_000).optional() }).strict(),
]);

/** A run's memory strategy and its parameters (run config `memory`, `--memory`). */
export const memoryChoiceSchema = z.object({
  strategy: z.enum(["mem0", "framesamp", "tokendrop", "none", "retrieval"]),
  frames: intIn(1, 1024).optional(),
  budget: intIn(1, 65_536).default(512),
  stride: intIn(1, 1000).default(8),
  kept: intIn(1, 1_000_000).default(2048),
  grid: intIn(1, 64).default(8),
  /** Retrieval: the strategy its retrieved session feeds, and the split: a step over `drop` x the median step. */
  inner: z.enum(["framesamp", "mem0", "none"]).default("framesamp"),
  drop: finite.min(1.5).max(1000).default(5),
}).strict();

const runConfigObject = z.object({
  name,
  description: z.string().default(""),
  /** Robot profile path, e.g. ../robots/x-one.yaml from launch/. */
  robot: name,
  bus: busSchema,
  sim: z.object({
    enabled: z.boolean(),
    /** lockstep: sim clock advanced to each tick (deterministic); realtime: paced on the wall clock. */
    mode: z.enum(["lockstep", "realtime"]).default("lockstep"),
    physics_hz: intIn(240, 2000).default(240),
    seed: intIn(0, 2 ** 32 - 1).default(0),
  }).strict(),
  task: z.enum(TASK_IDS),
  episodes: intIn(1, 100_000).default(1),
  policy: z.object({
    /**
     * Default policy bundle folder holding policy.yaml, used by `run` (and `npm start`) unless
     * --policy names another; null: none, so `run` needs --policy (hardware configs, deliberately).
     */
    bundle: name.nullable().default(null),
    anchor: z.boolean().default(true),
    sliding: z.boolean().default(true),
    key_memory: z.boolean().default(true),
    classifier: z.enum(["learned", "oracle"]).default("learned"),
    /** Default: the bundle's learned planner (never called on M(1) tasks; M(n) ones need planner.onnx). */
    planner: plannerSchema.default({ kind: "learned" }),
  }).strict(),
  /**
   * The policy's memory strategy (src/memory/README.md); null: the bundle's own (policy.yaml
   * memory.strategy). `frames` (framesamp) defaults to the memory module's window; `budget`,
   * `stride`, `kept` and `grid` are TokenDrop's, RoboMME's values by default; `inner` and `drop` retrieval's.
   */
  memory: memoryChoiceSchema.nullable().default(null),
  /**
   * A history store (src/memory/historyStore.ts) the run appends to: each demonstration and each
   * episode becomes a stored session (the policy's features, thumbnails); relative to the config's
   * folder; null: none. --history overrides.
   */
  history: z.string().min(1).nullable().default(null),
  /**
   * RoboMME-Interference: before each episode's first tick (after its demonstration), `k` sessions of
   * other tasks from the history store `pool` (relative to the config's folder), each trimmed to
   * `frames`, enter the policy's memory; null: none. --interference K and --distractor-pool override.
   */
  interference: z.object({
    k: intIn(0, 64),
    pool: z.string().min(1),
    frames: intIn(1, 1024).default(32),
  }).strict().nullable().default(null),
  /** The demonstration each episode starts with (observe only: the arm holds); null: none. --demonstration overrides. */
  demonstration: demonstrationSchema.nullable().default(null),
  control: z.object({
    /** Policy tick rate; null = the robot profile's control_hz. Mem-0 runs at 5-10 Hz, DROID at 15 Hz. */
    control_hz: finite.min(1).max(30).nullable().default(null),
    /** Steps executed per chunk before re-inferring; null = the policy's horizon H. */
    execute_steps: intIn(1, 1000).nullable().default(null),
    temporal_ensemble: z.boolean().default(false),
  }).strict(),
  /**
   * Output folder (relative: to the working directory, as --out); null: runs/<timestamp>-<name>/
   * beside the config's folder.
   */
  output: z.string().min(1).nullable().default(null),
  record: z.object({
    enabled: z.boolean().default(true),
    /** Topics to record; empty = every topic the run uses. */
    topics: z.array(topic).default([]),
  }).strict(),
}).strict();

/** Zod schema of a run config YAML. */
export const runConfigSchema = runConfigObject.superRefine((c, ctx) => {
  if (c.bus.kind === "replay" && c.sim.enabled) addIssue(ctx, ["sim", "enabled"], "expected false when bus.kind is \"replay\" (the recording is the robot)");
});

/** A run config's demonstration section, as validated. */
export type DemonstrationConfig = z.output<typeof demonstrationSchema>;

/** A validated run config with defaults filled in. */
export type RunConfig = z.output<typeof runConfigSchema>;
