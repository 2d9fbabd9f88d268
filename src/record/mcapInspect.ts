/**
 * What `ros2 bag info` reports, for one MCAP file or a rosbag2 folder (its .mcap files): topics,
 * types, counts, time range, duration, size, from the messages themselves (every chunk read and
 * checked), with warnings for damaged chunks and for a Statistics record that disagrees.
 */
import { readdirSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { walkChunks } from "./mcapChunks.js";
import { McapSource, topicOf, type RecordedTopic } from "../bus/mcapReader.js";
import { qosFromOfferedYaml } from "./mcapQos.js";
import type { Qos } from "../bus/types.js";

/** One topic of a recording summary. */
export interface TopicSummary {
  topic: string;
  type: string;
  count: number;
  serializationFormat: string;
  qos?: Qos;
}

/** A recording summary. Times are logTime ns since the epoch; both "0" when there are no messages. */
export interface McapSummary {
  files: string[];
  bytes: number;
  profile: string;
  messageCount: number;
  startNs: bigint;
  endNs: bigint;
  durationNs: bigint;
  chunkCount: number;
  /** Chunk compressions found ("zstd", "lz4", "none"...), in first-use order. */
  compression: string[];
  topics: TopicSummary[];
  /** Files read without an index, with the reason (e.g. truncated: recover them). */
  unindexed: { file: string; reason: string }[];
  /**
   * What does not add up: a chunk that fails its CRC or does not decode (its messages are not
   * counted), or a Statistics record that disagrees with the messages (the messages win).
   */
  warnings: string[];
  /** Chunks that failed their CRC or did not decode. */
  damagedChunks: number;
}

/** The .mcap files a path names: the file itself, or a folder's .mcap files in name order. */
export function mcapFilesOf(path: string): string[] {
  let st;
  try {
    st = statSync(path);
  } catch (err) {
    throw new Error(`cannot read ${path}: ${(err as Error).message}`);
  }
  if (!st.isDirectory()) return [path];
  const files = readdirSync(path).filter((f) => f.endsWith(".mcap")).sort().map((f) => join(path, f));
  if (files.length === 0) throw new Error(`${path} is a folder without .mcap files (expected a rosbag2 folder)`);
  return files;
}

/**
 * Summarizes one MCAP file or a rosbag2 folder from its messages: every chunk is read and checked
 * (mcapChunks.ts), so a damaged file is never reported as complete. Errors name the file.
 */
export async function summarizeMcap(path: string): Promise<McapSummary> {
  const files = mcapFilesOf(path);
  const summary: McapSummary = {
    files: files.map((f) => basename(f)), bytes: 0, profile: "", messageCount: 0,
    startNs: 0n, endNs: 0n, durationNs: 0n, chunkCount: 0, compression: [], topics: [], unindexed: [],
    warnings: [], damagedChunks: 0,
  };
  const byKey = new Map<string, TopicSummary>();
  let start: bigint | undefined;
  let end: bigint | undefined;
  const compressions = new Set<string>();
  for (const file of files) {
    summary.bytes += statSync(file).size;
    const src = await McapSource.open(file, "auto"); // names a missing, empty or non-MCAP file
    const stats = src.statistics;
    if (src.fallbackReason) summary.unindexed.push({ file: basename(file), reason: src.fallbackReason });
    await src.close();
    const counts = new Map<number, number>();
    const channels = new Map<number, RecordedTopic>();
    const schemas = new Map<number, { name: string; encoding: string; data: Uint8Array }>();
    let fileStart: bigint | undefined;
    let fileEnd: bigint | undefined;
    const walk = await walkChunks(file, (rec) => {
      if (rec.type === "Header") summary.profile ||= rec.profile;
      else if (rec.type === "Schema") schemas.set(rec.id, rec);
      else if (rec.type === "Channel" && !channels.has(rec.id)) channels.set(rec.id, topicOf(rec, schemas.get(rec.schemaId)));
      else if (rec.type === "Message") {
        counts.set(rec.channelId, (counts.get(rec.channelId) ?? 0) + 1);
        if (fileStart === undefined || rec.logTime < fileStart) fileStart = rec.logTime;
        if (fileEnd === undefined || rec.logTime > fileEnd) fileEnd = rec.logTime;
      }
    });
    summary.chunkCount += walk.chunkCount;
    for (const c of walk.compressions) compressions.add(c);
    summary.damagedChunks += walk.badChunks.length;
    for (const b of walk.badChunks) {
      summary.warnings.push(`${basename(file)}: chunk ${b.index} of ${walk.chunkCount} (byte ${b.offsetBytes}) is damaged (${b.reason}); its ${b.messages ?? "unknown number of"} messages are not counted; \`engram recover\` keeps the other chunks`);
    }
    if (stats && stats.messageCount > 0n && fileStart !== undefined && (stats.messageStartTime !== fileStart || stats.messageEndTime !== fileEnd)) {
      summary.warnings.push(`${basename(file)}: its Statistics record gives the time range ${stats.messageStartTime}..${stats.messageEndTime} ns but the messages span ${fileStart}..${fileEnd} ns; the messages' range is shown`);
    }
    if (fileStart !== undefined) {
      if (start === undefined || fileStart < start) start = fileStart;
      if (end === undefined || fileEnd! > end) end = fileEnd;
    }
    for (const t of channels.values()) {
      const key = `${t.topic}\u0000${t.type}`;
      const entry = byKey.get(key) ?? {
        topic: t.topic, type: t.type, count: 0, serializationFormat: t.messageEncoding,
        qos: qosFromOfferedYaml(t.metadata.get("offered_qos_profiles")),
      };
      entry.count += counts.get(t.channelId) ?? 0;
      byKey.set(key, entry);
    }
  }
  summary.topics = [...byKey.values()];
  summary.compression = [...compressions];
  summary.messageCount = summary.topics.reduce((n, t) => n + t.count, 0);
  summary.startNs = start ?? 0n;
  summary.endNs = end ?? 0n;
  summary.durationNs = summary.endNs - summary.startNs;
  return summary;
}
