/**
 * `engram run --demonstration <episode.mcap>`: a short recorded run's episode is the prompt of a
 * second run. Its events bracket the prompt (demonstration_start / _end with the source and frame
 * count), the policy's memory took the frames before the first tick (Mem-0's anchor is set at
 * memory step 0 inside the prompt, and the same seed's first-tick logit differs from the run without
 * it), the sim clock stood still for it (lock-step: the arm did not move), and the run's MCAP holds
 * every prompt frame on /engram/demonstration/<topic>, byte for byte the recorded messages.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { McapSource } from "../../src/bus/mcapReader.js";
import { ENGRAM_EVENTS } from "../../src/msgs/events.js";
import { startRun, type Ev } from "./runHarness.js";

const PROMPT_TOPICS = [
  "/engram/demonstration/head_camera/color/image_raw",
  "/engram/demonstration/left_wrist_camera/color/image_raw/compressed",
  "/engram/demonstration/right_wrist_camera/color/image_raw/compressed",
  "/engram/demonstration/joint_states",
];

async function run(out: string, args: string[]): Promise<void> {
  const r = startRun(out, "policies/test-tiny", 1, { args: ["--max-steps", "4", ...args] });
  const exit = await r.exited;
  assert.equal(exit.code, 0, exit.stderr);
}

/** Messages by topic, in log order, of the given topics. */
async function messagesOf(path: string, topics: string[]): Promise<Map<string, Uint8Array[]>> {
  const src = await McapSource.open(path);
  const out = new Map<string, Uint8Array[]>(topics.map((t) => [t, []]));
  try {
    for await (const m of src.messages({ topics })) out.get(m.topic)!.push(m.cdr);
  } finally {
    await src.close();
  }
  return out;
}

test("a recorded episode is the prompt of the next run: events, memory, MCAP", { timeout: 180_000 }, async () => {
  const root = mkdtempSync(join(tmpdir(), "engram-demo-run-"));
  const recorded = join(root, "recorded"), prompted = join(root, "prompted");
  await run(recorded, []);
  const demo = join(recorded, "episodes/0.mcap");
  await run(prompted, ["--demonstration", demo]);

  const events = readFileSync(join(prompted, "events.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as Ev);
  const at = (name: string) => events.findIndex((e) => e.event === name);
  const start = events[at("demonstration_start")]!, end = events[at("demonstration_end")]!;
  assert.ok(at("episode_start") < at("demonstration_start") && at("demonstration_start") < at("demonstration_end"));
  assert.ok(at("demonstration_end") < at("first_chunk"), "the prompt is in before the first tick acts");
  assert.equal(start.source, "mcap");
  assert.equal(start.origin, demo);
  assert.deepEqual(start.topics, PROMPT_TOPICS);
  const n = start.frames as number;
  assert.ok(n >= 3, `prompt frames ${n}`);
  assert.equal(end.frames, n);

  // Mem-0 sets its anchor on the first write: demonstration frame 0, memory step 0, inside the prompt.
  const memory = events.filter((e) => e.event === "memory");
  const anchor = events.findIndex((e) => e.event === "memory" && (e.op as { kind: string }).kind === "anchor_set");
  assert.ok(anchor > at("demonstration_start") && anchor < at("demonstration_end"), JSON.stringify(memory));
  assert.equal(events[anchor]!.step, 0);
  const plain = readFileSync(join(recorded, "events.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as Ev);
  assert.equal(plain.filter((e) => e.event.startsWith("demonstration")).length, 0);
  const logits = (dir: string) => (JSON.parse(readFileSync(join(dir, "logits-episode-0.json"), "utf8")) as { logits: number[] }).logits;
  assert.notEqual(logits(prompted)[0], logits(recorded)[0], "the prompt is in the memory the first tick reads");
  // Lock-step: the twin's clock (and so its arm) stood still from the episode's start through the prompt.
  assert.equal(start.stamp_ns, events[at("episode_start")]!.stamp_ns);
  assert.equal(end.stamp_ns, start.stamp_ns);

  // The run's MCAP holds every prompt frame, the recorded messages themselves, and the events.
  const mcap = join(prompted, "episodes/0.mcap");
  const held = await messagesOf(mcap, [...PROMPT_TOPICS, ENGRAM_EVENTS.topic]);
  for (const t of PROMPT_TOPICS) assert.equal(held.get(t)!.length, n, t);
  const source = await messagesOf(demo, ["/head_camera/color/image_raw", "/joint_states"]);
  const bytes = (a: Uint8Array[]) => new Set(a.map((c) => Buffer.from(c).toString("base64")));
  const recordedHeads = bytes(source.get("/head_camera/color/image_raw")!);
  for (const c of held.get(PROMPT_TOPICS[0]!)!) assert.ok(recordedHeads.has(Buffer.from(c).toString("base64")));
  const recordedJoints = bytes(source.get("/joint_states")!);
  for (const c of held.get(PROMPT_TOPICS[3]!)!) assert.ok(recordedJoints.has(Buffer.from(c).toString("base64")));
  const mcapEvents = held.get(ENGRAM_EVENTS.topic)!.map((c) => ENGRAM_EVENTS.decode(c).event);
  assert.ok(mcapEvents.includes("demonstration_start") && mcapEvents.includes("demonstration_end"));
});

test("--demonstration names a missing file", { timeout: 60_000 }, async () => {
  const out = mkdtempSync(join(tmpdir(), "engram-demo-missing-"));
  const r = startRun(join(out, "run"), "policies/test-tiny", 1, { args: ["--demonstration", join(out, "nope.mcap")] });
  const exit = await r.exited;
  assert.equal(exit.code, 2, exit.stderr);
  assert.match(exit.stderr, /--demonstration: no such MCAP file .*nope\.mcap/);
});
