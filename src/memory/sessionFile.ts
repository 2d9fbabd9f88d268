/**
 * One stored session as a file: Parquet (columns session, kind, task, step, stamp_ns, feature
 * list<float32>, thumbnail binary), with a SHA-256 of the kind, task, steps, stamps and features in
 * its key-value metadata, so a file damaged after it was written is named when read (thumbnails are
 * not covered: retrieval never reads them). The metadata also names the encoder that computed the
 * features (its ONNX file's SHA-256): features mean something only to that encoder.
 */
import { closeSync, fsyncSync, openSync } from "node:fs";
import { createHash } from "node:crypto";
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } from "hyparquet";
import { parquetWriteFile } from "hyparquet-writer";

/** What the checksum covers of one frame. */
interface CheckedFrame { step: number; stampNs: bigint; feature: Float32Array }

const COLUMNS = ["session", "kind", "task", "step", "stamp_ns", "feature"];
/** The session file's key-value metadata entry holding valuesChecksum. */
const CHECKSUM_KEY = "engram.values_sha256";
/** The key-value metadata entry naming the encoder of the features (files written before it have none). */
const ENCODER_KEY = "engram.encoder_sha256";
const text = (name: string) => ({ name, type: "BYTE_ARRAY", converted_type: "UTF8", repetition_type: "REQUIRED" });
const int64 = (name: string) => ({ name, type: "INT64", repetition_type: "REQUIRED" });
/** The session file's Parquet schema: feature is Arrow list<float32>, thumbnail binary. */
const SCHEMA = [
  { name: "root", num_children: 7 }, text("session"), text("kind"), text("task"), int64("step"), int64("stamp_ns"),
  { name: "feature", repetition_type: "REQUIRED", converted_type: "LIST", num_children: 1 },
  { name: "list", repetition_type: "REPEATED", num_children: 1 },
  { name: "element", type: "FLOAT", repetition_type: "REQUIRED" },
  { name: "thumbnail", type: "BYTE_ARRAY", repetition_type: "REQUIRED" },
];

/** Writes `frames` of session `id` to `path` and fsyncs it (the caller renames it into place). */
export function writeSessionFile(
  path: string, id: string, info: { kind: string; task: string; encoder: string },
  frames: ReadonlyArray<CheckedFrame & { thumbnailJpeg: Uint8Array }>,
): void {
  parquetWriteFile({
    filename: path, schema: SCHEMA as never,
    columnData: [
      { name: "session", data: frames.map(() => id) },
      { name: "kind", data: frames.map(() => info.kind) },
      { name: "task", data: frames.map(() => info.task) },
      { name: "step", data: frames.map((x) => BigInt(x.step)) },
      { name: "stamp_ns", data: frames.map((x) => x.stampNs) },
      { name: "feature", data: frames.map((x) => Array.from(x.feature)) },
      { name: "thumbnail", data: frames.map((x) => x.thumbnailJpeg) },
    ],
    kvMetadata: [
      { key: CHECKSUM_KEY, value: valuesChecksum(info, frames) }, { key: ENCODER_KEY, value: info.encoder },
    ],
  });
  syncFile(path);
}

/** SHA-256 of the session's kind and task and each frame's step, stamp and feature (not its thumbnail). */
function valuesChecksum(
  info: { kind: string; task: string }, frames: ReadonlyArray<{ step: number; stampNs: bigint; feature: Float32Array }>,
): string {
  const hash = createHash("sha256").update(`${info.kind}\n${info.task}\n`);
  const head = Buffer.alloc(16);
  for (const f of frames) {
    head.writeBigInt64LE(BigInt(f.step), 0);
    head.writeBigInt64LE(f.stampNs, 8);
    hash.update(head).update(new Uint8Array(f.feature.buffer, f.feature.byteOffset, f.feature.byteLength));
  }
  return hash.digest("hex");
}

/**
 * A stored session's rows and its features' encoder (null in a file written before sessions named
 * it); a file damaged after it was stored is named: one that no longer parses (a cut, a flipped byte
 * in its metadata) or whose values no longer match the checksum written with them.
 */
export async function readSession(
  file: string,
): Promise<{ rows: Array<Record<string, unknown>>; encoder: string | null }> {
  try {
    const buffer = await asyncBufferFromFile(file);
    const metadata = await parquetMetadataAsync(buffer);
    const entry = (key: string) => metadata.key_value_metadata?.find((kv) => kv.key === key)?.value;
    const stored = entry(CHECKSUM_KEY);
    const rows = await parquetReadObjects({ file: buffer, metadata, columns: COLUMNS });
    const frames = rows.map((r, i) => {
      if (!Array.isArray(r.feature) || typeof r.stamp_ns !== "bigint" || typeof r.step !== "bigint") {
        throw new Error(`row ${i}: no feature, step or stamp_ns`);
      }
      return { step: Number(r.step), stampNs: r.stamp_ns, feature: Float32Array.from(r.feature as number[]) };
    });
    if (stored === undefined) throw new Error(`no ${CHECKSUM_KEY} in its metadata`);
    const info = { kind: String(rows[0]?.kind), task: String(rows[0]?.task) };
    if (rows.some((r) => r.kind !== info.kind || r.task !== info.task)) {
      throw new Error("rows disagree on kind or task");
    }
    if (valuesChecksum(info, frames) !== stored) {
      throw new Error("its values do not match the checksum written with them");
    }
    return { rows, encoder: entry(ENCODER_KEY) ?? null };
  } catch (err) {
    throw new Error(`history store: ${file} is not a readable session file (${(err as Error).message}); `
      + "move it out of the store to open the rest");
  }
}

/** A stored session's JPEG thumbnails, in row order (outside the checksum: retrieval embeds them, people look). */
export async function readThumbnails(file: string): Promise<Uint8Array[]> {
  try {
    const buffer = await asyncBufferFromFile(file);
    const rows = await parquetReadObjects({ file: buffer, columns: ["thumbnail"], utf8: false });
    return rows.map((r, i) => {
      if (!(r.thumbnail instanceof Uint8Array)) throw new Error(`row ${i}: no thumbnail bytes`);
      return r.thumbnail;
    });
  } catch (err) {
    throw new Error(`history store: ${file}: thumbnails unreadable (${(err as Error).message})`);
  }
}

/** fsync of a file or a folder. */
export function syncFile(path: string): void {
  const fd = openSync(path, "r");
  try { fsyncSync(fd); } finally { closeSync(fd); }
}
