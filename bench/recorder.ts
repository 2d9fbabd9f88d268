/**
 * `engram bench recorder`: the live recording path under real-time load. Three 640x480 rgb8
 * cameras at 30 Hz (camera-like frames with sensor noise, which zstd cannot shrink much: the
 * compressor's worst case) and a 16-joint JointState at 200 Hz are published on a LocalBus on the
 * wall clock for `seconds` (default 60), and a BusRecorder writes them to a temp MCAP with the
 * default zstd chunks. Reports messages
 * published vs recorded (dropped = the difference), write MB/s, and how far publishing fell behind
 * its schedule (a recorder that cannot keep up shows as lag or drops, never silently).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { WallClock } from "../src/bus/clock.js";
import { LocalBus } from "../src/bus/local.js";
import { RELIABLE_QOS, SENSOR_QOS } from "../src/bus/types.js";
import { encode } from "../src/msgs/codec.js";
import { noisyImage, sampleJointState } from "../src/msgs/samples.js";
import { BusRecorder } from "../src/record/busRecorder.js";
import { McapSource } from "../src/bus/mcapReader.js";

/** Runs the section. `ENGRAM_BENCH_RECORDER_S` shortens it (e.g. for a quick look). */
export async function bench(seconds = Number(process.env.ENGRAM_BENCH_RECORDER_S ?? 60)): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), "engram-bench-recorder-"));
  const clock = new WallClock();
  const bus = new LocalBus({ clock });
  try {
    const cams = ["/head/image_raw", "/left_wrist/image_raw", "/right_wrist/image_raw"];
    const streams = [
      // A pool of 8 distinct frames per camera, cycled (a chunk holds less than one frame, so repeats do not help zstd).
      ...cams.map((topic, k) => ({ topic, type: "sensor_msgs/msg/Image", qos: SENSOR_QOS, hz: 30, frames: Array.from({ length: 8 }, (_, i) => encode("sensor_msgs/msg/Image", noisyImage(640, 480, 0n, i * 3 + k))) })),
      { topic: "/joint_states", type: "sensor_msgs/msg/JointState", qos: RELIABLE_QOS, hz: 200, frames: [encode("sensor_msgs/msg/JointState", sampleJointState(16))] },
    ];
    const recorder = await BusRecorder.start(bus, join(dir, "bench.mcap"), streams.map(({ topic, type, qos }) => ({ topic, type, qos })));
    const publish = streams.map((s) => bus.advertise(s.topic, s.type, s.qos));
    const startNs = clock.nowNs();
    const endNs = startNs + BigInt(Math.round(seconds * 1e9));
    const next = streams.map(() => startNs);
    const sent = streams.map(() => 0);
    let published = 0, bytes = 0, maxLagMs = 0;
    for (;;) {
      let i = 0;
      for (let k = 1; k < next.length; k++) if (next[k]! < next[i]!) i = k;
      const due = next[i]!;
      if (due >= endNs) break;
      await clock.sleepUntil(due);
      maxLagMs = Math.max(maxLagMs, Number(clock.nowNs() - due) / 1e6);
      // Fresh bytes each message, as a driver hands over a new buffer.
      const frames = streams[i]!.frames;
      const frame = frames[sent[i]!++ % frames.length]!.slice();
      publish[i]!(frame);
      published++;
      bytes += frame.byteLength;
      next[i] = due + BigInt(Math.round(1e9 / streams[i]!.hz));
    }
    await new Promise((r) => setImmediate(r));
    const summary = await recorder.stop();
    const wallS = Number(clock.nowNs() - startNs) / 1e9;
    const src = await McapSource.open(summary.path, "indexed");
    let readBack = 0;
    for await (const _m of src.messages()) readBack++;
    await src.close();
    const round = (x: number) => Math.round(x * 10) / 10;
    return {
      recording: `${seconds} s live, 3x Image 640x480 rgb8 (noisy) @30 Hz + JointState(16) @200 Hz, zstd chunks`,
      published,
      recorded: readBack,
      dropped: published - readBack,
      write_MBps: round(summary.bytes / 1e6 / wallS),
      file_ratio: Math.round((summary.bytes / (bytes || 1)) * 1000) / 1000,
      payload_MBps: round(bytes / 1e6 / seconds),
      max_publish_lag_ms: round(maxLagMs),
      load_avg_1m: round(loadavg()[0]!),
    };
  } finally {
    await bus.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
