import type { Qos } from "./types.js";

/**
 * Checks a QoS value at the edge (advertise/subscribe) and throws naming the topic, the field,
 * the value and what was expected. keep_last needs an integer depth >= 1.
 */
export function validateQos(qos: Qos, topic: string, role: "publisher" | "subscriber"): void {
  const where = `${role} QoS on topic "${topic}"`;
  if (qos.reliability !== "reliable" && qos.reliability !== "best_effort") {
    throw new Error(`${where}: reliability ${JSON.stringify(qos.reliability)}; expected "reliable" or "best_effort"`);
  }
  if (qos.durability !== "volatile" && qos.durability !== "transient_local") {
    throw new Error(`${where}: durability ${JSON.stringify(qos.durability)}; expected "volatile" or "transient_local"`);
  }
  if (qos.history !== "keep_last" && qos.history !== "keep_all") {
    throw new Error(`${where}: history ${JSON.stringify(qos.history)}; expected "keep_last" or "keep_all"`);
  }
  if (qos.history === "keep_last" && (!Number.isInteger(qos.depth) || qos.depth < 1)) {
    throw new Error(`${where}: depth ${qos.depth}; expected an integer >= 1 with history keep_last`);
  }
}

/**
 * DDS request/offer matching as ROS 2 applies it: a reliable subscriber does not match a
 * best-effort publisher, and a transient_local subscriber does not match a volatile publisher.
 * Returns the incompatible policy name, or null when they match.
 */
export function incompatiblePolicy(offered: Qos, requested: Qos): "RELIABILITY" | "DURABILITY" | null {
  if (requested.reliability === "reliable" && offered.reliability === "best_effort") return "RELIABILITY";
  if (requested.durability === "transient_local" && offered.durability === "volatile") return "DURABILITY";
  return null;
}

/** Throws unless `topic` is an absolute ROS name (what both buses expect after remapping). */
export function validateTopicName(topic: string, verb: string): void {
  if (!topic.startsWith("/")) throw new Error(`cannot ${verb} "${topic}": topic names must be absolute (start with "/")`);
}

/**
 * One type per topic: throws naming the topic and both types when the topic already has
 * `knownType` (undefined: the topic is new) and `type` differs.
 */
export function assertSameType(topic: string, knownType: string | undefined, type: string, verb: string): void {
  if (knownType !== undefined && knownType !== type) {
    throw new Error(`cannot ${verb} "${topic}" with type ${type}: the topic already has type ${knownType}`);
  }
}
