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
import { LATCHED_QOS, field, is, parseObject, type TopicContract } from "./topicContract.js";

/** QoS of both reset topics: latched, so a late joiner still gets the last request and reply. */
export const SIM_RESET_QOS: Qos = LATCHED_QOS;

/** A scene the runtime asks the twin for. `id` is unique per run and episode. */
export interface SimResetRequest { id: string; task: string; seed: number }

/** The twin's answer to the request `id`: the scene set (`ok`), or why not (`error`). */
export interface SimResetReply { id: string; task: string; seed: number; ok: boolean; error?: string }

const strings = codecFor("std_msgs/msg/String");

/** `/sim/reset`: the runtime's scene request. */
export const SIM_RESET: TopicContract<SimResetRequest> = {
  topic: "/sim/reset",
  type: "std_msgs/msg/String",
  qos: SIM_RESET_QOS,
  encode: (r) => strings.encode({ data: JSON.stringify({ id: r.id, task: r.task, seed: r.seed }) }),
  decode(cdr) {
    const o = parseObject("/sim/reset", cdr);
    return {
      id: field("/sim/reset", o, "id", is.id, "a non-empty string"),
      task: field("/sim/reset", o, "task", is.id, "a task id"),
      seed: field("/sim/reset", o, "seed", is.count, "an integer >= 0"),
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
      id: field(t, o, "id", is.id, "a non-empty string"),
      task: field(t, o, "task", is.string, "a string"),
      seed: field(t, o, "seed", is.int, "an integer"),
      ok: field(t, o, "ok", is.bool, "true or false"),
    };
    if (typeof o.error === "string") reply.error = o.error;
    return reply;
  },
};
