/**
 * `/engram/events`: the runtime's event stream (DESIGN.md §3), one JSON object per message, the
 * same line events.jsonl holds. Its contract sits here, below trial/ and record/, so the event log
 * that publishes it and the recorder and readers that take it agree on name, type, QoS and format.
 */
import { codecFor } from "./codec.js";
import { RELIABLE, field, is, parseObject, type TopicContract } from "./topicContract.js";

/**
 * One event: `event` names it (episode_start, episode_end, subtask_start, subtask_end,
 * planner_call, memory, checkpoint, safety_intervention, safety_hold, hold_released, fault...),
 * the rest are its fields. `stamp_ns` and `episode` are added by the event log.
 */
export type EngramEvent = { event: string } & Record<string, unknown>;

const strings = codecFor("std_msgs/msg/String");

/** The JSON line of an event, as events.jsonl and the topic carry it; bigint fields become decimal strings. */
export function eventLine(event: EngramEvent): string {
  return JSON.stringify(event, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v));
}

/** The events topic: reliable, keeping the last 100 for late joiners' queues (events are few and must all arrive). */
export const ENGRAM_EVENTS: TopicContract<EngramEvent> = {
  topic: "/engram/events",
  type: "std_msgs/msg/String",
  qos: { ...RELIABLE, depth: 100 },
  encode: (event) => strings.encode({ data: eventLine(event) }),
  decode(cdr) {
    const o = parseObject("/engram/events", cdr);
    field("/engram/events", o, "event", is.id, "a non-empty event name");
    return o as EngramEvent;
  },
};
