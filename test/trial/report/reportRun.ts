/**
 * A small finished run folder, built by hand for the report tests: two episodes (a success and a
 * failure), ticks, logits with a threshold, safety events, run.json, and per-episode MCAPs whose
 * head camera frame at step k is a flat grey of level `frameLevel(k)` (so a test can tell which
 * frame a thumbnail is from).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RELIABLE_QOS, SENSOR_QOS } from "../../../src/bus/types.js";
import { encode } from "../../../src/msgs/codec.js";
import { sampleHeader } from "../../../src/msgs/samples.js";
import { McapRecorder } from "../../../src/record/mcapRecorder.js";
import { imageFromRgb } from "../../../src/msgs/image.js";
import { summarizeRun, type EpisodeRecord } from "../../../src/trial/summary.js";

export const CONTROL_HZ = 10;
const START_NS = 1_700_000_000_000_000_000n;
const PERIOD_NS = 100_000_000n;

/** The grey level of the head camera frame read at control step k. */
export const frameLevel = (k: number) => (20 + k * 9) % 256;

const record = (episode: number, outcome: EpisodeRecord["outcome"], steps: number, declared: number[], truth: number[]): EpisodeRecord => ({
  episode, task: "put-back-block", seed: 1000 + episode, outcome, steps, duration_s: steps / CONTROL_HZ,
  checkpoints: outcome === "success"
    ? [{ id: "block-left-original", label: "storage", step: 3 }, { id: "block-returned", label: "compression", step: steps - 1 }]
    : [{ id: "block-left-original", label: "storage", step: 4 }],
  checkpoints_defined: [{ id: "block-left-original", label: "storage" }, { id: "block-returned", label: "compression" }],
  declared_ends: declared, true_ends: truth, planner_latencies_ms: [120, 95], safety_interventions: 2, realtime_factor: 2.5,
});

/** The episodes of the folder. */
export const EPISODES: EpisodeRecord[] = [record(0, "success", 20, [9], [8, 15]), record(1, "failure", 24, [], [10])];

/** Writes episode `e`'s recording: the head camera at the control rate, 8x6 rgb8, plus joint states. */
async function writeMcap(path: string, e: EpisodeRecord): Promise<void> {
  const rec = await McapRecorder.open(path);
  await rec.addTopic("/head_camera/color/image_raw", "sensor_msgs/msg/Image", SENSOR_QOS);
  await rec.addTopic("/engram/events", "std_msgs/msg/String", RELIABLE_QOS);
  await rec.addMetadata("engram_episode", new Map(Object.entries({
    episode: String(e.episode), robot: "x-one", task: e.task, seed: String(e.seed), source: "policy:test",
    control_hz: String(CONTROL_HZ), physics_hz: "240", start_ns: START_NS.toString(), start_pose: "null",
  })));
  for (let k = 0; k < e.steps; k++) {
    // The frame the tick of step k reads arrives just before it (start + (k+1) periods).
    const t = START_NS + BigInt(k) * PERIOD_NS + PERIOD_NS / 2n;
    const rgb = new Uint8Array(8 * 6 * 3).fill(frameLevel(k));
    await rec.write("/head_camera/color/image_raw", encode("sensor_msgs/msg/Image", imageFromRgb(rgb, 8, 6, sampleHeader(t, "head"))), t);
  }
  await rec.close();
}

/** A new run folder (in the system temp folder) holding everything a finished run writes. */
export async function writeReportRun(opts: { lockstep?: boolean } = {}): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "engram-report-"));
  mkdirSync(join(dir, "episodes"));
  const ticks = EPISODES.map((e) => ({ episode: e.episode, tick_ms: Array.from({ length: e.steps }, (_, k) => (k === 5 ? 140 : 8 + (k % 7))), late: 0 }));
  const summary = summarizeRun({ task: "put-back-block", policy: "mem0-tiny", episodes: EPISODES, tickMs: ticks.flatMap((t) => t.tick_ms), lateTicks: 0 });
  writeFileSync(join(dir, "summary.json"), JSON.stringify(summary, null, 2) + "\n");
  writeFileSync(join(dir, "episodes.jsonl"), EPISODES.map((e) => JSON.stringify({ ...e, mcap: `episodes/${e.episode}.mcap` }) + "\n").join(""));
  writeFileSync(join(dir, "ticks.jsonl"), ticks.map((t) => JSON.stringify(t) + "\n").join(""));
  writeFileSync(join(dir, "run.json"), JSON.stringify({ format: 1, config: {
    sim: { enabled: true, mode: opts.lockstep === false ? "realtime" : "lockstep" }, control: { control_hz: CONTROL_HZ },
    policy: { planner: { kind: "oracle-list" }, classifier: "learned" },
  } }));
  for (const e of EPISODES) {
    const logits = Array.from({ length: e.steps }, (_, k) => (e.declared_ends.includes(k) ? 3 : -4 + Math.sin(k)));
    writeFileSync(join(dir, `logits-episode-${e.episode}.json`), JSON.stringify({ logits, declared: e.declared_ends, truth: e.true_ends, threshold: 0.5 }));
    await writeMcap(join(dir, "episodes", `${e.episode}.mcap`), e);
  }
  const events = [
    { event: "safety_intervention", kind: "gripper_rate", step: 3, episode: 0 },
    { event: "safety_intervention", kind: "joint_velocity", step: 4, episode: 0 },
    { event: "safety_hold", reason: "stale", step: 7, episode: 1 },
    { event: "safety_intervention", kind: "gripper_rate", step: 9, episode: 1 },
  ];
  writeFileSync(join(dir, "events.jsonl"), events.map((e) => JSON.stringify(e) + "\n").join(""));
  return dir;
}
