/**
 * Reads an MCAP file chunk by chunk, each chunk checked (CRC, decompression, records) on its own,
 * so a damaged chunk costs only its own messages: what `recover` keeps and what `inspect` checks.
 * A file with a usable summary is walked through its chunk index (which also finds the chunks after
 * one whose length field is damaged); a file without one (truncated) by its record framing.
 */
import { open, type FileHandle } from "node:fs/promises";
import { McapIndexedReader, McapRecordBuilder, McapStreamReader, type TypedMcapRecord, type TypedMcapRecords } from "@mcap/core";
import { FileHandleReadable } from "@mcap/nodejs";
import { decompressHandlers } from "../bus/mcapReader.js";

/** A chunk that failed: where it is, why, and how many messages its message index says it held. */
export interface BadChunk {
  /** 0-based position among the file's chunks. */
  index: number;
  offsetBytes: number;
  reason: string;
  /** From the chunk's MessageIndex records; null when they are damaged or absent. */
  messages: number | null;
}

/** What a walk found. */
export interface ChunkWalk {
  via: "index" | "framing";
  chunkCount: number;
  badChunks: BadChunk[];
  /** Framing walk only: the file ends before its footer. */
  truncated: boolean;
  /** Bytes at the end that did not form a complete record (or were skipped after a lost framing). */
  bytesDropped: number;
  /** Chunk compressions seen ("zstd", "lz4", "none"...), in first-use order. */
  compressions: string[];
}

/** Records handed to the caller: everything outside chunks, and the contents of every good chunk. */
export type OnRecord = (rec: TypedMcapRecord) => void | Promise<void>;

const MAGIC_BYTES = 8;
const OP_CHUNK = 0x06;
const OP_MESSAGE_INDEX = 0x07;
const OP_FOOTER = 0x02;
/** A Chunk record's compression string starts after opcode, length, start/end time, size and CRC. */
const CHUNK_COMPRESSION_AT = 1 + 8 + 8 + 8 + 8 + 4;

/** Walks `path` (already known to start with the MCAP magic); see the module note. */
export async function walkChunks(path: string, onRecord: OnRecord): Promise<ChunkWalk> {
  const handle = await open(path, "r");
  try {
    let indexed: McapIndexedReader | undefined;
    try {
      indexed = await McapIndexedReader.Initialize({ readable: new FileHandleReadable(handle), decompressHandlers: await decompressHandlers() });
    } catch { /* no usable summary: walk the framing */ }
    const chunked = indexed && (indexed.chunkIndexes.length > 0 || (indexed.statistics?.messageCount ?? 0n) === 0n);
    return indexed && chunked ? await viaIndex(handle, indexed, onRecord) : await viaFraming(handle, onRecord);
  } finally {
    await handle.close();
  }
}

/** Decodes standalone records (a chunk, message indexes) after re-declaring the known schemas and channels. */
class ChunkDecoder {
  private readonly schemas = new Map<number, TypedMcapRecords["Schema"]>();
  private readonly channels = new Map<number, TypedMcapRecords["Channel"]>();

  know(rec: TypedMcapRecord): void {
    if (rec.type === "Schema") this.schemas.set(rec.id, rec);
    else if (rec.type === "Channel") this.channels.set(rec.id, rec);
  }

  /** Every record in `bytes` (whole records, no magic); throws on a bad CRC, compression or framing. */
  async decode(bytes: Uint8Array): Promise<TypedMcapRecord[]> {
    const prefix = new McapRecordBuilder();
    for (const s of this.schemas.values()) prefix.writeSchema(s);
    for (const c of this.channels.values()) prefix.writeChannel(c);
    const reader = new McapStreamReader({ noMagicPrefix: true, decompressHandlers: await decompressHandlers() });
    reader.append(prefix.buffer);
    reader.append(bytes);
    const out: TypedMcapRecord[] = [];
    for (let rec = reader.nextRecord(); rec; rec = reader.nextRecord()) out.push(rec);
    if (reader.bytesRemaining() > 0) throw new Error(`${reader.bytesRemaining()} bytes do not form a complete record`);
    return out.slice(this.schemas.size + this.channels.size); // the re-declared ones
  }

  /** Message count of MessageIndex records in `bytes`, or null when they do not decode. */
  async countIndexed(bytes: Uint8Array): Promise<number | null> {
    try {
      const recs = await this.decode(bytes);
      return recs.reduce((n, r) => n + (r.type === "MessageIndex" ? r.records.length : 0), 0);
    } catch {
      return null;
    }
  }
}

async function readAt(handle: FileHandle, offset: bigint | number, length: bigint | number): Promise<Uint8Array> {
  const buf = new Uint8Array(Number(length));
  const { bytesRead } = await handle.read(buf, 0, buf.length, Number(offset));
  return buf.subarray(0, bytesRead);
}

async function viaIndex(handle: FileHandle, r: McapIndexedReader, onRecord: OnRecord): Promise<ChunkWalk> {
  const decoder = new ChunkDecoder();
  await onRecord(r.header);
  for (const s of r.schemasById.values()) { decoder.know(s); await onRecord(s); }
  for (const c of r.channelsById.values()) { decoder.know(c); await onRecord(c); }
  for await (const m of r.readMetadata()) await onRecord(m);
  const chunks = [...r.chunkIndexes].sort((a, b) => Number(a.chunkStartOffset - b.chunkStartOffset));
  const badChunks: BadChunk[] = [];
  for (const [index, ci] of chunks.entries()) {
    let recs: TypedMcapRecord[];
    try {
      recs = await decoder.decode(await readAt(handle, ci.chunkStartOffset, ci.chunkLength));
    } catch (err) {
      const messages = await decoder.countIndexed(await readAt(handle, ci.chunkStartOffset + ci.chunkLength, ci.messageIndexLength));
      badChunks.push({ index, offsetBytes: Number(ci.chunkStartOffset), reason: (err as Error).message, messages });
      continue;
    }
    for (const rec of recs) await onRecord(rec);
  }
  const compressions = [...new Set(chunks.map((ci) => ci.compression || "none"))];
  return { via: "index", chunkCount: chunks.length, badChunks, truncated: false, bytesDropped: 0, compressions };
}

async function viaFraming(handle: FileHandle, onRecord: OnRecord): Promise<ChunkWalk> {
  const size = (await handle.stat()).size;
  const decoder = new ChunkDecoder();
  const walk: ChunkWalk = { via: "framing", chunkCount: 0, badChunks: [], truncated: true, bytesDropped: 0, compressions: [] };
  const compressions = new Set<string>();
  let at = MAGIC_BYTES;
  let lastBad: BadChunk | null = null;
  while (at + 9 <= size) {
    const head = await readAt(handle, at, 9);
    const opcode = head[0]!;
    const length = new DataView(head.buffer, head.byteOffset).getBigUint64(1, true);
    const end = at + 9 + Number(length);
    if (end > size) break; // the cut record, or a damaged length: the framing is lost from here
    const bytes = await readAt(handle, at, end - at);
    if (opcode === OP_CHUNK) {
      const index = walk.chunkCount++;
      lastBad = null;
      compressions.add(chunkCompression(bytes));
      try {
        for (const rec of await decoder.decode(bytes)) await onRecord(rec);
      } catch (err) {
        lastBad = { index, offsetBytes: at, reason: (err as Error).message, messages: null };
        walk.badChunks.push(lastBad);
      }
    } else if (opcode === OP_MESSAGE_INDEX) {
      // A bad chunk's message indexes follow it: they say how many messages it held.
      const n = lastBad && (await decoder.countIndexed(bytes));
      if (lastBad && typeof n === "number") lastBad.messages = (lastBad.messages ?? 0) + n;
    } else {
      let recs: TypedMcapRecord[];
      try { recs = await decoder.decode(bytes); } catch { break; } // a damaged record outside chunks: stop at the last good one
      for (const rec of recs) { decoder.know(rec); await onRecord(rec); }
      if (opcode === OP_FOOTER) { walk.truncated = false; at = end; break; }
    }
    at = end;
  }
  walk.bytesDropped = Math.max(0, size - at - (walk.truncated ? 0 : MAGIC_BYTES));
  walk.compressions = [...compressions];
  return walk;
}

/** The compression named in a whole Chunk record ("none" for an empty name or a damaged field). */
function chunkCompression(record: Uint8Array): string {
  if (record.length < CHUNK_COMPRESSION_AT + 4) return "none";
  const length = new DataView(record.buffer, record.byteOffset).getUint32(CHUNK_COMPRESSION_AT, true);
  const name = record.subarray(CHUNK_COMPRESSION_AT + 4, CHUNK_COMPRESSION_AT + 4 + length);
  return new TextDecoder().decode(name) || "none";
}
