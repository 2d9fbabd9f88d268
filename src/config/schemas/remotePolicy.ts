/**
 * Schema of a remote policy bundle (`policies/<name>/policy.yaml` with `kind: remote`, issue 13):
 * where the policy server is, which protocol it speaks (docs/remote-policy.md), what the runtime
 * must feed it (cameras, image size, layouts: checked against the server's metadata on connect),
 * and the latency and reconnect budgets.
 */
import { z } from "zod";
import { finiteWithin, intIn, positiveUpTo } from "./common.js";
import { policyIoFields } from "./policyManifest.js";

/** One slice of the policy state vector sent under its own openpi observation key. */
const stateSliceSchema = z.object({ key: z.string().min(1), start: intIn(0, 255), length: intIn(1, 256) }).strict();

/** One dim's affine map between Engram's units and the server's (state: `theirs = scale * ours + offset`). */
const affineSchema = z.object({
  index: intIn(0, 255), scale: finiteWithin(1e6), offset: finiteWithin(1e6).default(0),
}).strict();

/**
 * protocol robomme (RoboMME's MME-VLA server, docs/remote-policy.md): which cameras and state dims go
 * where. `add_buffer`'s own fields (`images`, `state`, `exec_start_idx`) are the server's code, not config.
 */
const robommeSchema = z.object({
  /** Engram camera → `infer` key (RoboMME: front → observation/image, wrist → observation/wrist_image). */
  images: z.record(z.string(), z.string().min(1)),
  /** Cameras whose frames enter the server's memory through `add_buffer`, in view order (RoboMME: the front one). */
  memory_cameras: z.array(z.string().min(1)).min(1),
  /** `infer` key of the state vector (float32 [state_dim]; the same rows go to add_buffer's `state`). */
  state_key: z.string().min(1).default("observation/state"),
  prompt_key: z.string().min(1).default("prompt"),
  /** Engram units → the server's, per state dim (RoboMME's gripper state is one finger's travel: width / 2). */
  state_map: z.array(affineSchema).default([]),
  /** The server's units → Engram's, per action dim: `ours = scale * theirs + offset` (RoboMME's gripper: 1 / -1). */
  action_map: z.array(affineSchema).default([]),
  /** Frames buffered by observe() are sent when this many wait, and always before an `infer`. */
  max_buffer_frames: intIn(1, 4096).default(16),
}).strict();

/** The manifest as written in YAML (snake_case). */
export const remotePolicySchema = z.object({
  format_version: z.literal(1),
  kind: z.literal("remote"),
  name: z.string().min(1),
  /** ws:// or wss:// URL of the policy server (`--policy-url` overrides it). */
  url: z.string().regex(/^wss?:\/\/[^\s]+$/, "expected a ws:// or wss:// URL"),
  protocol: z.enum(["mem0", "openpi", "robomme"]),
  /** Environment variable holding the server's token (sent as `Authorization: Api-Key <token>`); null: none. */
  token_env: z.string().min(1).nullable().default(null),
  /**
   * wss:// only: PEM file of the CA (or the self-signed certificate) that signs the server's
   * certificate, relative to the bundle folder; null: the system's trusted CAs.
   */
  ca_file: z.string().min(1).nullable().default(null),
  ...policyIoFields,
  horizon: intIn(1, 1000),
  control_hz: positiveUpTo(1000).optional(),
  /**
   * A request not answered within this (from the request, a reconnect it waits for included) is a
   * fault: the episode holds and ends; the client reconnects.
   */
  timeout_ms: positiveUpTo(60_000).default(1000),
  /**
   * A connection attempt (TCP, TLS, the websocket upgrade and the server's metadata frame) not done
   * within this fails naming what it waited for; reset() retries with backoff up to reconnect.give_up_s.
   */
  connect_timeout_ms: positiveUpTo(600_000).default(5000),
  reconnect: z.object({
    initial_ms: positiveUpTo(60_000).default(200),
    max_ms: positiveUpTo(600_000).default(5000),
    /** reset() waits this long for the server to come back before the run stops. */
    give_up_s: positiveUpTo(86_400).default(60),
  }).strict().default({}),
  latency: z.object({
    /** Ask for the next chunk before the running one ends (d ticks early, d from the measured round trip). */
    prefetch: z.boolean().default(true),
    /** Ticks each chunk runs before the next is needed (the run config's control.execute_steps; null: horizon). */
    execute_steps: intIn(1, 1000).nullable().default(null),
    /** A chunk computed from an observation older than this is never executed. */
    max_chunk_age_ms: positiveUpTo(60_000).default(500),
    /** mem0: observe() returns the newest classifier reply instead of waiting for this tick's when that would come after the middle of the tick (lag reported). */
    pipeline_observe: z.boolean().default(true),
  }).strict().default({}),
  /** openpi only: where Engram's cameras, state and instruction go in the server's observation map. */
  openpi: z.object({
    images: z.record(z.string(), z.string().min(1)),
    /** uint8 HWC RGB (openpi's DROID/ALOHA servers) or the float32 CHW tensor Engram prepares. */
    image_format: z.enum(["uint8_hwc", "float32_chw"]).default("uint8_hwc"),
    state: z.array(stateSliceSchema).min(1),
    prompt_key: z.string().min(1).default("prompt"),
  }).strict().optional(),
  robomme: robommeSchema.optional(),
}).strict().superRefine((m, ctx) => {
  if (m.protocol === "openpi" && !m.openpi) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ["openpi"], message: "expected an openpi: mapping (images, state) for protocol openpi" });
  if (m.protocol === "robomme" && !m.robomme) {
    const message = "expected a robomme: mapping (images, memory_cameras) for protocol robomme";
    ctx.addIssue({ code: z.ZodIssueCode.custom, path: ["robomme"], message });
  }
  checkRobomme(m, ctx);
  for (const [i, s] of (m.openpi?.state ?? []).entries()) {
    if (s.start + s.length > m.state_dim) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ["openpi", "state", i], message: `slice ${s.start}+${s.length} runs past state_dim ${m.state_dim}` });
  }
  for (const cam of Object.keys(m.openpi?.images ?? {})) {
    if (!m.cameras.includes(cam)) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ["openpi", "images", cam], message: `camera "${cam}" is not in cameras [${m.cameras.join(", ")}]` });
  }
});

/** The robomme mapping's cameras are the bundle's, its maps' dims within the state and action dims. */
function checkRobomme(
  m: { cameras: string[]; state_dim: number; action_dim: number; robomme?: z.output<typeof robommeSchema> },
  ctx: z.RefinementCtx,
): void {
  const r = m.robomme;
  if (!r) return;
  const cams: Array<[string, (string | number)[]]> = [
    ...Object.keys(r.images).map((c): [string, (string | number)[]] => [c, ["robomme", "images", c]]),
    ...r.memory_cameras.map((c, i): [string, (string | number)[]] => [c, ["robomme", "memory_cameras", i]]),
  ];
  for (const [cam, path] of cams) {
    const message = `camera "${cam}" is not in cameras [${m.cameras.join(", ")}]`;
    if (!m.cameras.includes(cam)) ctx.addIssue({ code: z.ZodIssueCode.custom, path, message });
  }
  const dims: Array<["state_map" | "action_map", number]> = [["state_map", m.state_dim], ["action_map", m.action_dim]];
  for (const [field, dim] of dims) {
    for (const [i, a] of r[field].entries()) {
      const message = `index ${a.index} is past ${field === "state_map" ? "state_dim" : "action_dim"} ${dim}`;
      if (a.index >= dim) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ["robomme", field, i, "index"], message });
    }
  }
}

/** A validated remote policy manifest with defaults filled in. */
export type RemotePolicyManifest = z.output<typeof remotePolicySchema>;
