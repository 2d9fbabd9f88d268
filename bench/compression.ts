/**
 * `engram bench compression`: chunk compression zstd vs lz4 vs none on two streams, each written
 * by McapRecorder (episode chunk size, 256 KiB) from messages held in memory:
 * - twin: a Put Back Block expert episode recorded on the sim twin (3 cameras 640x480 rgb8 at
 *   30 Hz, joint states, commands, events; `ENGRAM_BENCH_TWIN_STEPS` control steps, default 60);
 * - noisy: 3 s of 3 camera-like 640x480 rgb8 streams at 30 Hz with +-6 levels of sensor noise
 *   (msgs/samples.ts noisyImage), the worst case for a recorder on hardware.
 * Figures: file size / payload (ratio) and payload MB per second of recorder time (write MB/s).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { loadRunConfig } from "../src/config/loaders.js";
import { encode } from "../src/msgs/codec.js";
import { noisyImage } from "../src/msgs/samples.js";
import { loadRobotProfile } from "../src/robot/loadRobotProfile.js";
import { SENSOR_QOS } from "../src/bus/types.js";
import { CHUNK_COMPRESSIONS } from "../src/record/chunkCompression.js";
import { EPISODE_CHUNK_BYTES } from "../src/record/episodeWriter.js";
import { McapSource } from "../src/bus/mcapReader.js";
import { McapRecorder } from "../src/record/mcapRecorder.js";
import { recordEpisodes } from "../src/app/recordSession.js";

interface HeldMessage { topic: string; type: string; cdr: Uint8Array; logTimeNs: bigint }

const round = (x: number, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;

/** Writes `messages` once per compression; ratio and recorder MB/s for each. */
async function compare(dir: string, name: string, messages: readonly HeldMessage[]): Promise<Record<string, unknown>> {
  const payload = messages.reduce((n, m) => n + m.cdr.byteLength, 0);
  const out: Record<string, unknown> = { messages: messages.length, payload_MB: round(payload / 1e6) };
  for (const c of CHUNK_COMPRESSIONS) {
    const path = join(dir, `${name}-${c}.mcap`);
    const t0 = performance.now();
    const rec = await McapRecorder.open(path, { compression: c, chunkSizeBytes: EPISODE_CHUNK_BYTES });
    const types = new Map(messages.map((m) => [m.topic, m.type]));
    for (const [topic, type] of types) await rec.addTopic(topic, type, SENSOR_QOS);
    for (const m of messages) await rec.write(m.topic, m.cdr, m.logTimeNs);
    const summary = await rec.close();
    const s = (performance.now() - t0) / 1000;
    out[c] = { file_MB: round(summary.bytes / 1e6), ratio: round(summary.bytes / payload, 4), write_MBps: round(payload / 1e6 / s) };
    rmSync(path);
  }
  return out;
}

async function twinMessages(dir: string, steps: number): Promise<HeldMessage[]> {
  const run = loadRunConfig("launch/sim-x-one.yaml");
  const robot = loadRobotProfile(run.robotPath);
  const outDir = join(dir, "twin");
  await recordEpisodes({ run, robot, source: "expert", task: "put-back-block", episodes: 1, seed: 0, outDir, maxSteps: steps });
  const src = await McapSource.open(join(outDir, "episodes", "0.mcap"));
  const held: HeldMessage[] = [];
  try {
    for await (const m of src.messages()) held.push({ topic: m.topic, type: m.type, cdr: m.cdr, logTimeNs: m.logTimeNs });
  } finally {
    await src.close();
  }
  return held;
}

function noisyMessages(seconds: number): HeldMessage[] {
  const held: HeldMessage[] = [];
  const t0 = 1_700_000_000_000_000_000n;
  for (let i = 0; i < seconds * 30; i++) {
    for (let c = 0; c < 3; c++) {
      const t = t0 + BigInt(Math.round(i * 1e9 / 30)) + BigInt(c);
      held.push({ topic: `/camera_${c}/image_raw`, type: "sensor_msgs/msg/Image", cdr: encode("sensor_msgs/msg/Image", noisyImage(640, 480, t, i * 3 + c)), logTimeNs: t });
    }
  }
  return held;
}

/** Runs the section. */
export async function bench(): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), "engram-bench-compression-"));
  try {
    const steps = Number(process.env.ENGRAM_BENCH_TWIN_STEPS ?? 60);
    return {
      twin: { recording: `X-One Put Back Block expert, ${steps} steps, 3 cameras 640x480 rgb8 @30 Hz`, ...await compare(dir, "twin", await twinMessages(dir, steps)) },
      noisy: { recording: "3 s, 3x Image 640x480 rgb8 @30 Hz, +-6 levels of noise", ...await compare(dir, "noisy", noisyMessages(3)) },
      load_avg_1m: round(loadavg()[0]!),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
