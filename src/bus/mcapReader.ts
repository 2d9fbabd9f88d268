/**
 * Reads MCAP recordings (ours and rosbag2's): indexed reading through the summary section, with a
 * streaming fallback for files without one (a recorder killed mid-run, a cut copy). Compressed
 * chunks (zstd, lz4, bz2) are handled through @mcap/support.
 */
import { open, type FileHandle } from "node:fs/promises";
import { McapIndexedReader, McapStreamReader, MCAP_MAGIC, type DecompressHandlers, type TypedMcapRecord } from "@mcap/core";
import { FileHandleReadable } from "@mcap/nodejs";
import { loadDecompressHandlers } from "@mcap/support";
import type { RosType } from "../msgs/types.js";

/** One recorded message, with what is needed to decode it. `cdr` is a private copy. */
export interface RecordedMessage {
  topic: string;
  type: RosType;
  /** The Schema record's text (`ros2msg` for ros2 recordings); "" when the channel has no schema. */
  schemaText: string;
  schemaEncoding: string;
  messageEncoding: string;
  channelId: number;
  sequence: number;
  logTimeNs: bigint;
  publishTimeNs: bigint;
  cdr: Uint8Array;
}

/** A channel as the recording declares it. */
export interface RecordedTopic {
  channelId: number;
  topic: string;
  type: RosType;
  schemaText: string;
  schemaEncoding: string;
  messageEncoding: string;
  metadata: Map<string, string>;
}

/** Which way a file is read. "auto" tries the index and falls back to streaming. */
export type ReadMode = "auto" | "indexed" | "stream";

/** Filters for `messages`. Times are logTime ns, inclusive. */
export interface MessageFilter {
  topics?: readonly string[];
  startNs?: bigint;
  endNs?: bigint;
}

/** What a streaming pass found: all complete records, and whether the file ended early. */
export interface StreamScan {
  header: { profile: string; library: string } | undefined;
  chunkCount: number;
  messageCount: number;
  /** True when the file ends before the footer (the last records were cut). */
  truncated: boolean;
  /** Bytes at the end that did not form a complete record. */
  bytesUnread: number;
}

let handlers: Promise<DecompressHandlers> | undefined;
/** The decompression handlers for zstd/lz4/bz2 chunks, loaded once. */
export function decompressHandlers(): Promise<DecompressHandlers> {
  handlers ??= loadDecompressHandlers();
  return handlers;
}

const READ_PIECE = 4 * 1024 * 1024;

async function openFile(path: string): Promise<FileHandle> {
  try {
    return await open(path, "r");
  } catch (err) {
    throw new Error(`cannot open recording ${path}: ${(err as Error).message}`);
  }
}

/** Checks the 8-byte MCAP magic, throwing an error that names the file and what was found. */
async function checkMagic(path: string, handle: FileHandle): Promise<void> {
  const head = new Uint8Array(MCAP_MAGIC.length);
  const { bytesRead } = await handle.read(head, 0, head.length, 0);
  if (bytesRead === 0) throw new Error(`${path} is empty, not an MCAP file`);
  const ok = bytesRead === MCAP_MAGIC.length && MCAP_MAGIC.every((b, i) => head[i] === b);
  if (!ok) {
    const found = [...head.subarray(0, bytesRead)].map((b) => b.toString(16).padStart(2, "0")).join(" ");
    throw new Error(`${path} is not an MCAP file: it starts with bytes ${found}, expected the MCAP magic 89 4d 43 41 50 30 0d 0a`);
  }
}

/**
 * An open recording. Use `McapSource.open`, iterate `messages()` (several passes are fine), then
 * `close()`. In "stream" mode messages come in file order (logTime order for our own recordings
 * and rosbag2's); in "indexed" mode in logTime order.
 */
export class McapSource {
  private constructor(
    readonly path: string,
    readonly mode: "indexed" | "stream",
    private readonly handle: FileHandle,
    private readonly indexed: McapIndexedReader | undefined,
    /** Why the index could not be used when "auto" fell back to streaming. */
    readonly fallbackReason: string | undefined,
  ) {}

  /** Opens `path`. A missing, empty, non-MCAP or (in "indexed" mode) unindexed file throws naming the file. */
  static async open(path: string, mode: ReadMode = "auto"): Promise<McapSource> {
    const handle = await openFile(path);
    try {
      await checkMagic(path, handle);
      if (mode === "stream") return new McapSource(path, "stream", handle, undefined, undefined);
      try {
        const reader = await McapIndexedReader.Initialize({
          readable: new FileHandleReadable(handle),
          decompressHandlers: await decompressHandlers(),
        });
        return new McapSource(path, "indexed", handle, reader, undefined);
      } catch (err) {
        const reason = `no usable index (${(err as Error).message}); the file may be truncated, try "engram recover ${path}"`;
        if (mode === "indexed") throw new Error(`${path}: ${reason}`);
        return new McapSource(path, "stream", handle, undefined, reason);
      }
    } catch (err) {
      await handle.close();
      throw err;
    }
  }

  /** The MCAP header (profile "ros2" for ROS 2 recordings); from the file start in either mode. */
  async header(): Promise<{ profile: string; library: string } | undefined> {
    if (this.indexed) return { profile: this.indexed.header.profile, library: this.indexed.header.library };
    return (await this.scan(() => undefined)).header;
  }

  /** Every channel declared in the file (from the summary, or from a streaming pass). */
  async topics(): Promise<RecordedTopic[]> {
    if (this.indexed) {
      const r = this.indexed;
      return [...r.channelsById.values()].map((c) => topicOf(c, r.schemasById.get(c.schemaId)));
    }
    const out: RecordedTopic[] = [];
    await this.scan((rec, topics) => {
      if (rec.type === "Channel" && !out.some((t) => t.channelId === rec.id)) out.push(topics.get(rec.id)!);
    });
    return out;
  }

  /** The Metadata records by name: through the metadata index when there is one, else a streaming pass. */
  async metadata(): Promise<Map<string, Map<string, string>>> {
    const out = new Map<string, Map<string, string>>();
    if (this.indexed) {
      for await (const m of this.indexed.readMetadata()) out.set(m.name, m.metadata);
      return out;
    }
    await this.scan((rec) => { if (rec.type === "Metadata") out.set(rec.name, rec.metadata); });
    return out;
  }

  /** The indexed reader's statistics record, when the file has one. */
  get statistics(): McapIndexedReader["statistics"] {
    return this.indexed?.statistics;
  }

  /** Number of chunks listed in the index (undefined when streaming). */
  get indexedChunkCount(): number | undefined {
    return this.indexed?.chunkIndexes.length;
  }

  /** Yields messages (see the class note for order). Corrupt data throws naming the file. */
  async *messages(filter: MessageFilter = {}): AsyncGenerator<RecordedMessage> {
    if (!this.indexed) {
      // NOTE: the streaming reader is push-based; messages are gathered per file piece (4 MiB)
      // and handed out between pieces, so memory stays bounded by one piece's messages.
      for await (const batch of this.#streamMessages(filter)) yield* batch;
      return;
    }
    const r = this.indexed;
    try {
      for await (const m of r.readMessages({ topics: filter.topics, startTime: filter.startNs, endTime: filter.endNs })) {
        const channel = r.channelsById.get(m.channelId);
        if (!channel) throw new Error(`message on unknown channel ${m.channelId}`);
        const t = topicOf(channel, r.schemasById.get(channel.schemaId));
        yield toMessage(t, m);
      }
    } catch (err) {
      throw new Error(`${this.path}: cannot read messages: ${(err as Error).message}`);
    }
  }

  async *#streamMessages(filter: MessageFilter): AsyncGenerator<RecordedMessage[]> {
    let batch: RecordedMessage[] = [];
    const topics = filter.topics ? new Set(filter.topics) : undefined;
    const pieces = this.#pieces();
    const reader = new McapStreamReader({ decompressHandlers: await decompressHandlers() });
    const channels = new Map<number, RecordedTopic>();
    const schemas = new Map<number, { name: string; encoding: string; text: string }>();
    for await (const piece of pieces) {
      reader.append(piece);
      for (let rec = this.#next(reader); rec; rec = this.#next(reader)) {
        track(rec, schemas, channels);
        if (rec.type !== "Message") continue;
        const t = channels.get(rec.channelId);
        if (!t) throw new Error(`${this.path}: message on channel ${rec.channelId} before its Channel record`);
        if (topics && !topics.has(t.topic)) continue;
        if (filter.startNs !== undefined && rec.logTime < filter.startNs) continue;
        if (filter.endNs !== undefined && rec.logTime > filter.endNs) continue;
        batch.push(toMessage(t, rec));
      }
      if (batch.length > 0) { yield batch; batch = []; }
    }
  }

  /**
   * One streaming pass over the whole file, calling `onRecord` for every complete record (chunk
   * records included, then their contents). Reports what it found, including truncation.
   */
  async scan(onRecord: (rec: TypedMcapRecord, topics: Map<number, RecordedTopic>) => void | Promise<void>): Promise<StreamScan> {
    const reader = new McapStreamReader({ includeChunks: true, decompressHandlers: await decompressHandlers() });
    const channels = new Map<number, RecordedTopic>();
    const schemas = new Map<number, { name: string; encoding: string; text: string }>();
    const result: StreamScan = { header: undefined, chunkCount: 0, messageCount: 0, truncated: false, bytesUnread: 0 };
    for await (const piece of this.#pieces()) {
      reader.append(piece);
      for (let rec = this.#next(reader); rec; rec = this.#next(reader)) {
        track(rec, schemas, channels);
        if (rec.type === "Header") result.header = { profile: rec.profile, library: rec.library };
        else if (rec.type === "Chunk") result.chunkCount++;
        else if (rec.type === "Message") result.messageCount++;
        await onRecord(rec, channels);
      }
    }
    result.truncated = !reader.done();
    result.bytesUnread = reader.done() ? 0 : reader.bytesRemaining();
    return result;
  }

  #next(reader: McapStreamReader): TypedMcapRecord | undefined {
    try {
      return reader.nextRecord();
    } catch (err) {
      throw new Error(`${this.path}: corrupt MCAP data: ${(err as Error).message}`);
    }
  }

  async *#pieces(): AsyncGenerator<Uint8Array> {
    let position = 0;
    for (;;) {
      const buf = new Uint8Array(READ_PIECE);
      const { bytesRead } = await this.handle.read(buf, 0, READ_PIECE, position);
      if (bytesRead === 0) return;
      position += bytesRead;
      yield buf.subarray(0, bytesRead);
    }
  }

  /** Closes the file. */
  async close(): Promise<void> {
    await this.handle.close();
  }
}

type SchemaRec = { name: string; encoding: string; data: Uint8Array };
type ChannelRec = { id: number; topic: string; schemaId: number; messageEncoding: string; metadata: Map<string, string> };

/** A channel record (and its schema) as a RecordedTopic. */
export function topicOf(c: ChannelRec, s: SchemaRec | { name: string; encoding: string; text: string } | undefined): RecordedTopic {
  const text = s ? ("text" in s ? s.text : new TextDecoder().decode(s.data)) : "";
  return {
    channelId: c.id,
    topic: c.topic,
    type: s?.name ?? "",
    schemaText: text,
    schemaEncoding: s?.encoding ?? "",
    messageEncoding: c.messageEncoding,
    metadata: c.metadata,
  };
}

function toMessage(t: RecordedTopic, m: { channelId: number; sequence: number; logTime: bigint; publishTime: bigint; data: Uint8Array }): RecordedMessage {
  return {
    topic: t.topic,
    type: t.type,
    schemaText: t.schemaText,
    schemaEncoding: t.schemaEncoding,
    messageEncoding: t.messageEncoding,
    channelId: m.channelId,
    sequence: m.sequence,
    logTimeNs: m.logTime,
    publishTimeNs: m.publishTime,
    cdr: m.data,
  };
}

function track(rec: TypedMcapRecord, schemas: Map<number, { name: string; encoding: string; text: string }>, channels: Map<number, RecordedTopic>): void {
  if (rec.type === "Schema") {
    schemas.set(rec.id, { name: rec.name, encoding: rec.encoding, text: new TextDecoder().decode(rec.data) });
  } else if (rec.type === "Channel" && !channels.has(rec.id)) {
    channels.set(rec.id, topicOf(rec, schemas.get(rec.schemaId)));
  }
}
