/**
 * The sim twin's reset over the bus, as simulator bridges offer one: a runtime asks for a scene
 * (task id + seed) on `/sim/reset` with a request id; the twin answers on `/sim/reset_done` with
 * the same id once the scene is set and its sensors have published from it. Both are latched
 * std_msgs/msg/String JSON (reliable, transient_local, keep last 1), so neither side has to be up
 * first, every message is in the MCAP, and `ros2 topic echo` shows them.
 * NOTE: a topic pair rather than a ROS 2 service: rclnodejs serves services only with generated
 * typed classes (no raw CDR path), and the Bus carries topics alone (local, replay and MCAP too).
 */
import type { Qos } from "./qos.js";
import { codecFor } from "./codec.js";

/** QoS of both reset topics: latched, so a late joiner still gets the last request and reply. */
export const SIM_RESET_QOS: Qos = {
  reliability: "reliable", durability: "transient_local", history: "keep_last", depth: 1,
};

/** A scene the runtime asks the twin for. `id` is unique per run and episode. */
export interface SimResetRequest { id: string; task: string; seed: number }

/** The twin's answer to the request `id`: the scene set (`ok`), or why not (`error`). */
export interface SimResetReply { id: string; task: string; seed: number; ok: boolean; error?: string }

/** A typed topic: its name, ROS type, QoS and JSON codec (decode throws naming the topic and field). */
export interface TopicContract<T> {
  topic: string;
  type: "std_msgs/msg/String";
  qos: Qos;
  encode(value: T): Uint8Array;
  decode(cdr: Uint8Array): T;
}

const strings = codecFor("std_msgs/msg/String");

function parseObject(topic: string, cdr: Uint8Array): Record<string, unknown> {
  const text = strings.decode(cdr).data;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new Error(`${topic}: not JSON (${(err as Error).message}): ${JSON.stringify(text.slice(0, 80))}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new Error(`${topic}: expected a JSON object, got ${JSON.stringify(text.slice(0, 80))}`);
  }
  return value as Record<string, unknown>;
}

function field<T>(
  topic: string, o: Record<string, unknown>, name: string, ok: (v: unknown) => v is T, expected: string,
): T {
  const v = o[name];
  if (!ok(v)) throw new Error(`${topic}: field "${name}" is ${JSON.stringify(v) ?? "missing"}, expected ${expected}`);
  return v;
}

const isId = (v: unknown): v is string => typeof v === "string" && v.length > 0;
const isSeed = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
const isBool = (v: unknown): v is boolean => typeof v === "boolean";

/** `/sim/reset`: the runtime's scene request. */
export const SIM_RESET: TopicContract<SimResetRequest> = {
  topic: "/sim/reset",
  type: "std_msgs/msg/String",
  qos: SIM_RESET_QOS,
  encode: (r) => strings.encode({ data: JSON.stringify({ id: r.id, task: r.task, seed: r.seed }) }),
  decode(cdr) {
    const o = parseObject("/sim/reset", cdr);
    return {
      id: field("/sim/reset", o, "id", isId, "a non-empty string"),
      task: field("/sim/reset", o, "task", isId, "a task id"),
      seed: field("/sim/reset", o, "seed", isSeed, "an integer >= 0"),
    };
  },
};

/** `/sim/reset_done`: the twin's reply, carrying the request's id. */
export const SIM_RESET_DONE: TopicContract<SimResetReply> = {
  topic: "/sim/reset_done",
  type: "std_msgs/msg/String",
  qos: SIM_RESET_QOS,
  encode: (r) => strings.encode({ data: JSON.stringify(r) }),
  decode(cdr) {
    const t = "/sim/reset_done", o = parseObject(t, cdr);
    const reply: SimResetReply = {
      id: field(t, o, "id", isId, "a non-empty string"),
      task: field(t, o, "task", (v): v is string => typeof v === "string", "a string"),
      seed: field(t, o, "seed", (v): v is number => Number.isSafeInteger(v), "an integer"),
      ok: field(t, o, "ok", isBool, "true or false"),
    };
    if (typeof o.error === "string") reply.error = o.error;
    return reply;
  },
};
