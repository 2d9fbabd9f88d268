/**
 * A typed topic: its name, ROS type, QoS and codec in one value, so a publisher, its subscribers,
 * the recorder and the tests cannot disagree on any of them. Decoders check the whole message and
 * throw naming the topic and the field, as the config loaders name file and field.
 */
import { RELIABLE_QOS, type Qos } from "./qos.js";
import { codecFor } from "./codec.js";
import type { RosType } from "./types.js";

/** One topic's contract. `qos` is what its publisher offers (and what the recorder subscribes with). */
export interface TopicContract<T> {
  readonly topic: string;
  readonly type: RosType;
  readonly qos: Qos;
  /** The CDR bytes of one message. */
  encode(value: T): Uint8Array;
  /** One message from CDR bytes; throws naming the topic and the bad field. */
  decode(cdr: Uint8Array): T;
}

/** Reliable, volatile, keep the last 10 (RELIABLE_QOS). */
export const RELIABLE: Qos = RELIABLE_QOS;

/** Reliable, transient_local, keep the last 1: a late joiner still gets the last message. */
export const LATCHED_QOS: Qos = { ...RELIABLE, durability: "transient_local", depth: 1 };

const strings = codecFor("std_msgs/msg/String");

/** The JSON text of a std_msgs/msg/String message; bigint fields are written as decimal strings. */
export function encodeJson(value: unknown): Uint8Array {
  const text = JSON.stringify(value, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v));
  return strings.encode({ data: text });
}

/** The JSON object a std_msgs/msg/String message carries; throws naming `topic` when it is none. */
export function parseObject(topic: string, cdr: Uint8Array): Record<string, unknown> {
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

/** Field `name` of `o` when `ok` accepts it; throws naming the topic, the field, its value and `expected`. */
export function field<T>(
  topic: string, o: Record<string, unknown>, name: string, ok: (v: unknown) => v is T, expected: string,
): T {
  const v = o[name];
  if (!ok(v)) throw new Error(`${topic}: field "${name}" is ${JSON.stringify(v) ?? "missing"}, expected ${expected}`);
  return v;
}

/** Field checks the contracts share. */
export const is = {
  string: (v: unknown): v is string => typeof v === "string",
  id: (v: unknown): v is string => typeof v === "string" && v.length > 0,
  bool: (v: unknown): v is boolean => typeof v === "boolean",
  int: (v: unknown): v is number => Number.isSafeInteger(v),
  count: (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0,
  strings: (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === "string"),
  array: (v: unknown): v is unknown[] => Array.isArray(v),
  object: (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v),
};
