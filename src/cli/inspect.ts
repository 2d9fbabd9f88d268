/**
 * `engram inspect <file.mcap|folder> [--json]`: what `ros2 bag info` prints (files, size, duration,
 * time range, message count, per-topic type/count/format). With `--json`, exactly one line:
 * `{"messageCount", "startNs", "endNs", "topics": [{"topic","type","count"}], ...}` (ns as strings).
 * A damaged file (a chunk failing its CRC, no footer at the end, an unusable summary section)
 * exits 1 after printing what could be read.
 */
import { open } from "node:fs/promises";
import { basename } from "node:path";
import { MCAP_MAGIC } from "@mcap/core";
import { parseCommand, type CommandSpec } from "./args.js";
import { mcapFilesOf, summarizeMcap, type McapSummary } from "../record/index.js";

/** The Footer record (opcode 0x02, u64 length, a 20-byte body) and the closing magic end every complete MCAP. */
const FOOTER_OPCODE = 0x02;
const FOOTER_RECORD_BYTES = 1 + 8 + 20;

/**
 * What is wrong with how an MCAP file ends, from its last bytes, or null when it ends as the spec
 * says. `tail` is the file's last FOOTER_RECORD_BYTES + 8 bytes (fewer for a shorter file);
 * `indexUsable` says whether the reader could use its summary section.
 */
export function endingDamage(tail: Uint8Array, indexUsable: boolean): string | null {
  const magicAt = tail.length - MCAP_MAGIC.length;
  const footerAt = magicAt - FOOTER_RECORD_BYTES;
  if (footerAt < 0 || !MCAP_MAGIC.every((b, i) => tail[magicAt + i] === b) || tail[footerAt] !== FOOTER_OPCODE) {
    return "truncated: it does not end in a Footer record and the MCAP magic (the writer stopped mid-file); "
      + "`engram recover` keeps its complete chunks";
  }
  const summaryStart = new DataView(tail.buffer, tail.byteOffset + footerAt + 9, 8).getBigUint64(0, true);
  if (!indexUsable && summaryStart !== 0n) {
    return `its summary section (at byte ${summaryStart}) cannot be read; \`engram recover\` rebuilds it`;
  }
  return null;
}

/** `file: why` for each file under `path` that endingDamage finds damaged. */
async function damagedEndings(path: string, s: McapSummary): Promise<string[]> {
  const out: string[] = [];
  for (const file of mcapFilesOf(path)) {
    const handle = await open(file, "r");
    try {
      const { size } = await handle.stat();
      const n = Math.min(size, FOOTER_RECORD_BYTES + MCAP_MAGIC.length);
      const tail = new Uint8Array(n);
      await handle.read(tail, 0, n, size - n);
      const why = endingDamage(tail, !s.unindexed.some((u) => u.file === basename(file)));
      if (why) out.push(`${basename(file)}: ${why}`);
    } finally {
      await handle.close();
    }
  }
  return out;
}

function formatBytes(n: number): string {
  const units = ["B", "KiB", "MiB", "GiB"];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) { v /= 1024; u++; }
  return `${u === 0 ? v : v.toFixed(1)} ${units[u]}`;
}

function formatNs(ns: bigint): string {
  const sec = ns / 1_000_000_000n;
  const frac = (ns % 1_000_000_000n).toString().padStart(9, "0");
  const iso = new Date(Number(ns / 1_000_000n)).toISOString();
  return `${iso} (${sec}.${frac})`;
}

function formatDuration(ns: bigint): string {
  return `${ns / 1_000_000_000n}.${(ns % 1_000_000_000n).toString().padStart(9, "0")}s`;
}

/** The `--json` object: the documented fields first, then extras. */
function summaryJson(s: McapSummary, damaged: readonly string[] = []): Record<string, unknown> {
  return {
    messageCount: s.messageCount,
    startNs: s.startNs.toString(),
    endNs: s.endNs.toString(),
    topics: s.topics.map((t) => ({ topic: t.topic, type: t.type, count: t.count, serializationFormat: t.serializationFormat })),
    durationNs: s.durationNs.toString(),
    files: s.files,
    bytes: s.bytes,
    profile: s.profile,
    chunkCount: s.chunkCount,
    compression: s.compression,
    unindexed: s.unindexed,
    warnings: s.warnings,
    damaged,
  };
}

/** Prints the summary in `ros2 bag info`'s layout. */
function summaryText(s: McapSummary, damaged: readonly string[] = []): string {
  const lines = [
    `Files:             ${s.files.join(", ")}`,
    `Bag size:          ${formatBytes(s.bytes)}`,
    `Storage id:        mcap (profile ${s.profile || "none"})`,
    `Compression:       ${s.compression.join(", ") || "none"} (chunks)`,
    `Duration:          ${formatDuration(s.durationNs)}`,
    `Start:             ${formatNs(s.startNs)}`,
    `End:               ${formatNs(s.endNs)}`,
    `Messages:          ${s.messageCount}`,
    `Topic information: ${s.topics.length === 0 ? "none" : ""}`,
  ];
  const width = Math.max(0, ...s.topics.map((t) => t.topic.length));
  for (const t of s.topics) {
    lines.push(`  Topic: ${t.topic.padEnd(width)} | Type: ${t.type} | Count: ${t.count} | Serialization Format: ${t.serializationFormat}`);
  }
  for (const u of s.unindexed) lines.push(`warning: ${u.file}: ${u.reason}`);
  for (const w of s.warnings) lines.push(`warning: ${w}`);
  for (const d of damaged) lines.push(`damaged: ${d}`);
  return lines.join("\n") + "\n";
}

/** `engram inspect` arguments. */
export const spec: CommandSpec = {
  name: "inspect", args: "<file.mcap|rosbag2 folder>", positionals: [1, 1],
  flags: { json: { type: "boolean", help: "print the summary as one JSON object" } },
  notes: [
    "Every chunk is read and checked, and how each file ends. exit codes: 0 every file is complete and intact;",
    "1 a file cannot be read, or is damaged (a chunk fails its check, truncated, unreadable summary section: what",
    "could be read still prints); 2 a usage error (unknown or repeated flag).",
  ].join("\n"),
};

/** Entry point of `engram inspect`; the exit codes are spec.notes'. */
export async function main(args: string[]): Promise<number> {
  const p = parseCommand(spec, args);
  const path = p.positional[0]!;
  let summary: McapSummary;
  let damaged: string[];
  try {
    summary = await summarizeMcap(path);
    damaged = await damagedEndings(path, summary);
  } catch (err) {
    process.stderr.write(`engram inspect: ${(err as Error).message}\n`);
    return 1;
  }
  const json = p.flags.has("json");
  process.stdout.write(json ? JSON.stringify(summaryJson(summary, damaged)) + "\n" : summaryText(summary, damaged));
  return summary.damagedChunks > 0 || damaged.length > 0 ? 1 : 0;
}
