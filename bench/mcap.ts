/**
 * `engram bench mcap`: MCAP write throughput and real-time factor for a 10 s robot recording
 * (3 cameras 640x480 rgb8 at 30 Hz + 16-joint JointState at 200 Hz, ~830 MB of payload, zstd chunks), written to a temp
 * file and removed; then read throughput through the indexed reader. Recorder figures count the
 * time spent in the recorder only (messages arrive already CDR-encoded from the bus).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { McapSource } from "../src/bus/mcapReader.js";
import { writeSyntheticRecording } from "../src/record/mcapSynthetic.js";

/** Runs the section. */
export async function bench(): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), "engram-bench-mcap-"));
  try {
    const path = join(dir, "bench.mcap");
    const w = await writeSyntheticRecording(path);
    const recordedS = Number(w.durationNs) / 1e9;
    const readStart = performance.now();
    const src = await McapSource.open(path, "indexed");
    let readBytes = 0;
    for await (const m of src.messages()) readBytes += m.cdr.byteLength;
    await src.close();
    const readMs = performance.now() - readStart;
    const round = (x: number) => Math.round(x * 10) / 10;
    return {
      recording: "10 s, 3x Image 640x480 rgb8 @30 Hz + JointState(16) @200 Hz",
      messages: w.messageCount,
      payload_MB: round(w.payloadBytes / 1e6),
      file_MB: round(w.bytes / 1e6),
      chunks: w.chunkCount,
      // Payload bytes per second of recorder time (the file is far smaller: zstd chunks).
      write_MBps: round(w.payloadBytes / 1e6 / (w.recorderMs / 1e3)),
      write_realtime_factor: round(recordedS / (w.recorderMs / 1e3)),
      read_indexed_MBps: round(readBytes / 1e6 / (readMs / 1e3)),
      load_avg_1m: Math.round(loadavg()[0]! * 10) / 10, // figures are wall time: read them against the machine load
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
