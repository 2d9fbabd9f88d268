/**
 * The one CDR codec: ROS 2 messages <-> CDR bytes (little-endian, with the 4-byte encapsulation
 * header `00 01 00 00`), through @foxglove/rosmsg2-serialization and @foxglove/rosmsg's parser.
 * Known types use the bundled Jazzy schemas (schemas.ts); any other type uses the schema text
 * stored in a recording.
 */
import { parse } from "@foxglove/rosmsg";
import { MessageReader, MessageWriter } from "@foxglove/rosmsg2-serialization";
import "./cdrStringFix.js";
import { isKnownType, schemaTextFor } from "./schemas.js";
import type { KnownRosType, RosType, RosTypeMap } from "./types.js";

/** Encoder/decoder for one message type. Decoded byte arrays (`uint8[]`) are views into the input. */
export interface Codec<T = unknown> {
  readonly type: RosType;
  /** The rosbag2-style concatenated `ros2msg` schema text this codec was built from. */
  readonly schemaText: string;
  /**
   * Serializes one message. NOTE: fields missing from `msg` are written as their ROS defaults
   * (0, "", empty arrays), as the library does; a value of the wrong shape throws naming the type.
   */
  encode(msg: T): Uint8Array;
  /** Deserializes CDR bytes; throws naming the type and byte length when they are truncated or garbage. */
  decode(cdr: Uint8Array): T;
}

const knownCodecs = new Map<string, Codec>();
const schemaCodecs = new Map<string, Codec>();

function hex(bytes: Uint8Array, n: number): string {
  return [...bytes.subarray(0, n)].map((b) => b.toString(16).padStart(2, "0")).join(" ");
}

function buildCodec<T>(type: RosType, schemaText: string): Codec<T> {
  let reader: MessageReader;
  let writer: MessageWriter;
  try {
    const definitions = parse(schemaText, { ros2: true });
    reader = new MessageReader(definitions);
    writer = new MessageWriter(definitions);
  } catch (err) {
    throw new Error(`schema for "${type}" does not parse: ${(err as Error).message}`);
  }
  return {
    type,
    schemaText,
    encode(msg: T): Uint8Array {
      try {
        return writer.writeMessage(msg);
      } catch (err) {
        throw new Error(`cannot encode "${type}": ${(err as Error).message}`);
      }
    },
    decode(cdr: Uint8Array): T {
      const where = `"${type}" from ${cdr.byteLength} bytes`;
      if (cdr.byteLength < 4) throw new Error(`cannot decode ${where}: shorter than the 4-byte CDR header`);
      if (cdr[0] !== 0 || cdr[1]! > 0x0b) {
        throw new Error(`cannot decode ${where}: bad CDR encapsulation header ${hex(cdr, 4)}, expected 00 01 00 00`);
      }
      let value: T;
      try {
        value = reader.readMessage<T>(cdr);
      } catch (err) {
        throw new Error(`cannot decode ${where}: truncated or garbage CDR (${(err as Error).message})`);
      }
      // NOTE: the library builds uint8[] views on the underlying ArrayBuffer without bounds checks,
      // so a truncated payload inside a larger buffer would silently read its neighbours.
      const used = reader.lastReadByteLength();
      if (used > cdr.byteLength) {
        throw new Error(`cannot decode ${where}: truncated CDR, the message needs ${used} bytes`);
      }
      return value;
    },
  };
}

/**
 * The cached codec of a known type (bundled schema). An unknown type throws, naming the type and
 * saying that it is neither known nor given with a schema (use `codecFromSchema` for recordings).
 */
export function codecFor<K extends KnownRosType>(type: K): Codec<RosTypeMap[K]>;
export function codecFor(type: RosType): Codec;
export function codecFor(type: RosType): Codec {
  const cached = knownCodecs.get(type);
  if (cached) return cached;
  if (!isKnownType(type)) {
    throw new Error(
      `unknown message type "${type}": it is neither a known type (src/msgs/types.ts KnownRosType) nor given with a schema from a recording`,
    );
  }
  const codec = buildCodec(type, schemaTextFor(type));
  knownCodecs.set(type, codec);
  return codec;
}

/**
 * The cached codec for a type described by a schema text (e.g. an MCAP Schema record's data).
 * Only `ros2msg` schemas are supported (what rosbag2 writes for .msg types); another encoding
 * (e.g. `ros2idl`) throws naming the type and the encoding.
 */
export function codecFromSchema(type: RosType, schemaText: string, schemaEncoding = "ros2msg"): Codec {
  if (schemaEncoding !== "ros2msg") {
    throw new Error(`cannot decode "${type}": schema encoding "${schemaEncoding}" is not supported (expected "ros2msg")`);
  }
  const key = `${type}\u0000${schemaText}`;
  const cached = schemaCodecs.get(key);
  if (cached) return cached;
  if (schemaText.trim() === "") {
    throw new Error(`unknown message type "${type}": the recording stores no schema text for it`);
  }
  const codec = buildCodec(type, schemaText);
  schemaCodecs.set(key, codec);
  return codec;
}

/** Encodes a message of a known type to CDR. */
export function encode<K extends KnownRosType>(type: K, msg: RosTypeMap[K]): Uint8Array {
  return codecFor(type).encode(msg);
}

/** Decodes CDR bytes of a known type. */
export function decode<K extends KnownRosType>(type: K, cdr: Uint8Array): RosTypeMap[K] {
  return codecFor(type).decode(cdr);
}
