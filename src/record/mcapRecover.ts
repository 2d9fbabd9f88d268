/**
 * Rewrites a damaged MCAP (a recorder killed mid-run, a cut copy, flipped bytes) into a valid
 * indexed one: every record that survives is kept (schemas, channels, metadata, and the messages of
 * every good chunk); a chunk that fails its CRC or does not decode is skipped and reported with the
 * number of messages it held; a file whose summary survives is read through its chunk index, so a
 * damaged chunk length loses only that chunk (mcapChunks.ts). Attachments are counted but not
 * copied. Header profile/library, schema texts and channel metadata are copied as they are.
 */
import { open, rename, rm } from "node:fs/promises";
import { resolve } from "node:path";
import { walkChunks, type BadChunk } from "./mcapChunks.js";
import { McapSource } from "../bus/mcapReader.js";
import { McapFileWriter } from "./mcapWriter.js";

/** What `recoverMcap` saved. */
export interface RecoverResult {
  inPath: string;
  outPath: string;
  messageCount: number;
  /** Chunks found in the input, good and bad. */
  chunkCount: number;
  /** Chunks skipped (bad CRC, compression or records), with the messages each held. */
  badChunks: BadChunk[];
  /** How the chunks were found: the summary's chunk index, or the record framing (no usable summary). */
  via: "index" | "framing";
  /** True when the input ended before its footer. */
  truncated: boolean;
  /** Bytes at the end of the input that did not form a complete record. */
  bytesDropped: number;
  /** Attachment records are not carried over (engram recordings have none). */
  attachmentsSkipped: number;
}

/** The default output path: `x.mcap` -> `x.recovered.mcap`. */
export function defaultRecoveredPath(inPath: string): string {
  return inPath.endsWith(".mcap") ? `${inPath.slice(0, -5)}.recovered.mcap` : `${inPath}.recovered.mcap`;
}

/**
 * Recovers `inPath` into `outPath` (default `defaultRecoveredPath`). Throws naming the file when the
 * input is missing, not MCAP, or has no complete header; refuses to overwrite the input. The output
 * is written to `<outPath>.partial` and renamed only once complete, so a failure (a full disk)
 * never leaves a partial file that looks like a recovered recording.
 */
export async function recoverMcap(inPath: string, outPath = defaultRecoveredPath(inPath)): Promise<RecoverResult> {
  if (resolve(inPath) === resolve(outPath)) throw new Error(`recover: output ${outPath} is the input file; choose another --out`);
  await (await McapSource.open(inPath, "stream")).close(); // names a missing, empty or non-MCAP file
  const partialPath = `${outPath}.partial`;
  const handle = await open(partialPath, "w").catch((err: Error) => {
    throw new Error(`recover: cannot create ${partialPath}: ${err.message}`);
  });
  const writer = new McapFileWriter(handle);
  const schemaIds = new Map<number, number>();
  const channelIds = new Map<number, number>();
  let started = false;
  let inDataSection = true;
  let messageCount = 0;
  let attachmentsSkipped = 0;
  let complete = false;
  try {
    const walk = await walkChunks(inPath, async (rec) => {
      if (!inDataSection) return;
      switch (rec.type) {
        case "Header":
          await writer.start({ profile: rec.profile, library: rec.library });
          started = true;
          return;
        case "Schema":
          if (!schemaIds.has(rec.id)) {
            schemaIds.set(rec.id, await writer.registerSchema({ name: rec.name, encoding: rec.encoding, data: rec.data }));
          }
          return;
        case "Channel":
          if (!channelIds.has(rec.id)) {
            const schemaId = rec.schemaId === 0 ? 0 : schemaIds.get(rec.schemaId);
            if (schemaId === undefined) throw new Error(`channel ${rec.id} (${rec.topic}) refers to schema ${rec.schemaId}, which comes before it nowhere`);
            channelIds.set(rec.id, await writer.registerChannel({ topic: rec.topic, schemaId, messageEncoding: rec.messageEncoding, metadata: rec.metadata }));
          }
          return;
        case "Message": {
          const channelId = channelIds.get(rec.channelId);
          if (channelId === undefined) throw new Error(`message on channel ${rec.channelId} before its Channel record`);
          await writer.addMessage({ ...rec, channelId });
          messageCount++;
          return;
        }
        case "Metadata":
          await writer.addMetadata(rec.name, rec.metadata);
          return;
        case "Attachment":
          attachmentsSkipped++;
          return;
        case "DataEnd":
          inDataSection = false;
          return;
        default:
          return; // indexes and summary records are rebuilt by the writer
      }
    });
    if (!started) throw new Error(`${inPath}: no complete MCAP header, nothing to recover`);
    await writer.end();
    await handle.close();
    await rename(partialPath, outPath);
    complete = true;
    return {
      inPath, outPath, messageCount, chunkCount: walk.chunkCount, badChunks: walk.badChunks, via: walk.via,
      truncated: walk.truncated, bytesDropped: walk.bytesDropped, attachmentsSkipped,
    };
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    // A write error (ENOSPC, EIO) from the writer does not name the file: say which one failed.
    throw e.code && !e.message.includes(partialPath) ? new Error(`recover: writing ${partialPath}: ${e.message}`) : e;
  } finally {
    if (!complete) {
      await handle.close().catch(() => undefined);
      await rm(partialPath, { force: true });
    }
  }
}
