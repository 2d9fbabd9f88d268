/**
 * The server side of the foxglove.websocket.v1 protocol (github.com/foxglove/ws-protocol,
 * docs/spec.md), as pure functions: the JSON operations a server sends, the binary frames (message
 * data 0x01, time 0x02) and the parsing of what a client sends. The socket side is
 * foxgloveSession.ts and foxgloveView.ts.
 *
 * NOTE: written here rather than taken from @foxglove/ws-protocol: that package is deprecated
 * upstream (its successor, the Foxglove SDK, has no TypeScript server), and what a view needs of
 * the protocol is a few JSON operations and two binary frames. The tests talk to this server with
 * @foxglove/ws-protocol's FoxgloveClient, an independent implementation of the client side.
 */
import { schemaTextFor } from "../msgs/schemas.js";
import type { RosType } from "../msgs/types.js";

/** The WebSocket subprotocol a client must offer. */
export const FOXGLOVE_SUBPROTOCOL = "foxglove.websocket.v1";

/** Binary opcodes of server frames. */
const SERVER_OP = { messageData: 0x01, time: 0x02 } as const;

/** Status levels of a `status` operation. */
export const STATUS_LEVEL = { info: 0, warning: 1, error: 2 } as const;

/** An advertised channel: one topic, CDR payloads, its ros2msg schema (rosbag2's concatenated text). */
export interface ViewChannel {
  id: number;
  topic: string;
  encoding: "cdr";
  schemaName: string;
  schema: string;
  schemaEncoding: "ros2msg";
}

/** The channel of `topic` carrying `type`; throws naming the type when no schema text ships for it. */
export function channelOf(id: number, topic: string, type: RosType): ViewChannel {
  return { id, topic, encoding: "cdr", schemaName: type, schema: schemaTextFor(type), schemaEncoding: "ros2msg" };
}

/**
 * The `serverInfo` operation sent first on every connection. `simTime`: the bus runs on sim time
 * (lock-step, a replayed recording, ROS use_sim_time), so the server declares the `time`
 * capability and sends time frames; on wall time a client uses its own clock.
 */
export function serverInfo(name: string, simTime: boolean, sessionId: string): object {
  const capabilities = simTime ? ["time"] : [];
  return { op: "serverInfo", name, capabilities, supportedEncodings: [], metadata: {}, sessionId };
}

/** The `advertise` operation for `channels`. */
export function advertise(channels: readonly ViewChannel[]): object {
  return { op: "advertise", channels };
}

/** A `status` operation (shown to the user by Foxglove). */
export function status(level: keyof typeof STATUS_LEVEL, message: string): object {
  return { op: "status", level: STATUS_LEVEL[level], message };
}

/**
 * The 13 bytes that start a message data frame: opcode 0x01, subscription id u32 LE, receive time
 * u64 LE ns; the CDR payload follows it (foxgloveSession.ts sends it as the next fragment).
 */
export function messageDataHeader(subscriptionId: number, receivedNs: bigint): Uint8Array {
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint8(0, SERVER_OP.messageData);
  view.setUint32(1, subscriptionId, true);
  view.setBigUint64(5, BigInt.asUintN(64, receivedNs), true);
  return header;
}

/** Time frame: opcode 0x02, the server's current time u64 LE ns. */
export function timeFrame(nowNs: bigint): Uint8Array {
  const frame = new Uint8Array(9);
  const view = new DataView(frame.buffer);
  view.setUint8(0, SERVER_OP.time);
  view.setBigUint64(1, BigInt.asUintN(64, nowNs), true);
  return frame;
}

/** One subscription a client asks for: its own id, and the channel. */
export interface Subscription { id: number; channelId: number }

/** What a client's text message asks for; the operations a view does not serve are `unsupported`. */
export type ClientRequest =
  | { kind: "subscribe"; subscriptions: Subscription[] }
  | { kind: "unsubscribe"; subscriptionIds: number[] }
  | { kind: "unsupported"; op: string }
  | { kind: "invalid"; reason: string };

const isId = (x: unknown): x is number => Number.isInteger(x) && (x as number) >= 0 && (x as number) <= 0xffff_ffff;

/** Parses a client's JSON text message; never throws (a bad message is `invalid`, naming what was wrong). */
export function parseClientRequest(text: string): ClientRequest {
  let msg: unknown;
  try {
    msg = JSON.parse(text);
  } catch (err) {
    return { kind: "invalid", reason: `not JSON (${(err as Error).message})` };
  }
  if (typeof msg !== "object" || msg === null || typeof (msg as { op?: unknown }).op !== "string") {
    return { kind: "invalid", reason: `expected an object with a string "op", found ${text.slice(0, 80)}` };
  }
  const m = msg as { op: string; subscriptions?: unknown; subscriptionIds?: unknown };
  switch (m.op) {
    case "subscribe": {
      const subs = m.subscriptions;
      const isSub = (s: unknown) => isId((s as Subscription)?.id) && isId((s as Subscription)?.channelId);
      if (!Array.isArray(subs) || !subs.every(isSub)) {
        const reason = `subscribe: expected "subscriptions": [{id, channelId}] of u32, found ${JSON.stringify(subs)}`;
        return { kind: "invalid", reason };
      }
      const subscriptions = (subs as Subscription[]).map((s) => ({ id: s.id, channelId: s.channelId }));
      return { kind: "subscribe", subscriptions };
    }
    case "unsubscribe": {
      const ids = m.subscriptionIds;
      if (!Array.isArray(ids) || !ids.every(isId)) {
        const found = JSON.stringify(ids);
        return { kind: "invalid", reason: `unsubscribe: expected "subscriptionIds": [u32], found ${found}` };
      }
      return { kind: "unsubscribe", subscriptionIds: ids };
    }
    default:
      return { kind: "unsupported", op: m.op };
  }
}
