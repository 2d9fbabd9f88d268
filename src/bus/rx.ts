import { Observable } from "rxjs";
import type { RosType } from "../msgs/types.js";
import type { Bus, Qos } from "./types.js";

/**
 * What the RxJS helpers need from a codec. `Codec<T>` from src/msgs/codec.ts (`codecFor(type)`)
 * satisfies it; decode throws on truncated or garbage bytes, encode throws on a record that does
 * not fit the type.
 */
export interface MessageCodec<T> {
  encode(msg: T): Uint8Array;
  decode(cdr: Uint8Array): T;
}

/** One decoded message and the bus clock's time when it arrived (ns). */
export interface Received<T> {
  msg: T;
  receivedNs: bigint;
}

/** A message that could not be decoded; it was skipped and the stream goes on. */
export interface DecodeFailure {
  topic: string;
  type: RosType;
  receivedNs: bigint;
  byteLength: number;
  /** The codec's error message. */
  reason: string;
}

/** Options of `topic$`. */
export interface TopicOptions {
  /**
   * Called for each malformed message, which is skipped (a malformed message never ends the
   * stream). Default: one line on stderr naming topic, type, byte length and reason.
   */
  onDecodeError?: (failure: DecodeFailure) => void;
}

/** Formats a decode failure as one line (what the default reporter prints). */
export function describeDecodeFailure(f: DecodeFailure): string {
  return `dropped malformed message on topic "${f.topic}" (${f.type}, ${f.byteLength} bytes, received at ${f.receivedNs} ns): ${f.reason}`;
}

const reportToStderr = (f: DecodeFailure): void => {
  process.stderr.write(`[bus] WARN ${describeDecodeFailure(f)}\n`);
};

/**
 * Typed, cold observable of one topic: each subscription subscribes on the bus, decodes with
 * `codec`, and emits `{msg, receivedNs}`; unsubscribing removes the bus subscription. Malformed
 * bytes are skipped and reported through `options.onDecodeError` (the stream stays alive). Bus
 * errors at subscribe time (type mismatch, bad QoS) arrive as the observable's error. Share the
 * result (`share()`) when several consumers need the same sensor stream.
 */
export function topic$<T>(
  bus: Bus,
  topic: string,
  type: RosType,
  qos: Qos,
  codec: MessageCodec<T>,
  options: TopicOptions = {},
): Observable<Received<T>> {
  const onDecodeError = options.onDecodeError ?? reportToStderr;
  return new Observable<Received<T>>((subscriber) => {
    const unsubscribe = bus.subscribe(topic, type, qos, (cdr, receivedNs) => {
      let msg: T;
      try {
        msg = codec.decode(cdr);
      } catch (err) {
        const reason = err instanceof Error ? err.message : String(err);
        onDecodeError({ topic, type, receivedNs, byteLength: cdr.byteLength, reason });
        return;
      }
      subscriber.next({ msg, receivedNs });
    });
    return unsubscribe;
  });
}

/**
 * Typed publish function: advertises `topic` once and encodes each message with `codec`. Throws
 * (naming topic and type) when a message does not encode; the bus is not touched in that case.
 */
export function publisher<T>(bus: Bus, topic: string, type: RosType, qos: Qos, codec: MessageCodec<T>): (msg: T) => void {
  const send = bus.advertise(topic, type, qos);
  return (msg: T) => {
    let cdr: Uint8Array;
    try {
      cdr = codec.encode(msg);
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      throw new Error(`cannot publish on topic "${topic}" (${type}): ${reason}`, { cause: err });
    }
    send(cdr);
  };
}
