import type { RosTypeMap } from "../../msgs/types.js";
import type { ActionChunk } from "../../policy/types.js";
import type { JointCommand, JointPositions } from "../types.js";

/** One message to publish: topic, known type and the record (the publish function encodes it). */
export type Outgoing = { [T in keyof RosTypeMap]: { topic: string; type: T; message: RosTypeMap[T] } }[keyof RosTypeMap];

/** Publishes one message; the loop builds it from Bus.advertise + the CDR codec. */
export type Publish = (out: Outgoing) => void;

/**
 * An output adapter: pure message construction for one command interface of the robot profile.
 * The loop calls `buildChunk` when a new safety-checked chunk is installed, `buildStep` every tick
 * with the safety-checked command, and `buildHold` on every held tick. Each returns the messages to
 * publish (possibly none). Inputs are in the command's joint (or dim) order; outputs in the driver's.
 */
export interface OutputAdapter {
  readonly kind: "trajectory" | "stream" | "pose";
  /** Every topic/type this adapter may publish, for Bus.advertise at start. */
  readonly advertisements: ReadonlyArray<{ topic: string; type: keyof RosTypeMap }>;
  /** A new chunk (already checked with SafetyFilter.checkChunk, ramped from the measured position). */
  buildChunk(chunk: ActionChunk, stampNs: bigint, measured?: JointPositions): Outgoing[];
  /** This tick's command (already checked with SafetyFilter.checkStep). */
  buildStep(command: JointCommand, stampNs: bigint, measured?: JointPositions): Outgoing[];
  /** A held tick: the measured position as a target, or nothing (profile `command.hold`). */
  buildHold(measured: JointPositions, stampNs: bigint): Outgoing[];
}

/** Publishes each message in order through `publish`. Returns how many were published. */
export function publishAll(messages: Outgoing[], publish: Publish): number {
  for (const m of messages) publish(m);
  return messages.length;
}
