/**
 * Prints a digest of a run folder that a refactor must leave unchanged: every MCAP message (topic,
 * log time, sha256 of its CDR) and episodes.jsonl / events.jsonl, with the wall-clock fields
 * (first-chunk wait, planner latency, real-time factor) removed first, in the files and in the
 * recorded /engram/events messages alike.
 *
 *   npx tsx scripts/behaviourDigest.ts RUN_DIR > digest.txt   # then diff two digests
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { McapSource } from "../src/bus/mcapReader.js";

const WALL_CLOCK_KEYS = new Set(["wait_ms", "latency_ms", "planner_latencies_ms", "realtime_factor", "wall_s"]);

function withoutWallClock(json: string): string {
  return JSON.stringify(JSON.parse(json), (key, value) => (WALL_CLOCK_KEYS.has(key) ? undefined : value));
}

function sha(bytes: Uint8Array | string): string {
  return createHash("sha256").update(bytes).digest("hex").slice(0, 16);
}

async function main(dir: string): Promise<void> {
  for (const file of ["episodes.jsonl", "events.jsonl"]) {
    const lines = readFileSync(join(dir, file), "utf8").split("\n").filter((l) => l.length > 0);
    for (const line of lines) console.log(`${file} ${withoutWallClock(line)}`);
  }
  const episodes = join(dir, "episodes");
  for (const name of readdirSync(episodes).filter((f) => f.endsWith(".mcap")).sort()) {
    const source = await McapSource.open(join(episodes, name));
    try {
      for await (const m of source.messages()) {
        let hash = sha(m.cdr);
        if (m.topic === "/engram/events") {
          // std_msgs/String CDR: 4-byte encapsulation header, uint32 length (with the NUL), the text.
          const length = new DataView(m.cdr.buffer, m.cdr.byteOffset).getUint32(4, true);
          hash = sha(withoutWallClock(new TextDecoder().decode(m.cdr.subarray(8, 8 + length - 1))));
        }
        console.log(`${name} ${m.topic} ${m.logTimeNs} ${hash}`);
      }
    } finally {
      await source.close();
    }
  }
}

await main(process.argv[2] ?? ".");
