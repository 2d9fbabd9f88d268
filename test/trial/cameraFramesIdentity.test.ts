/**
 * Issue 15: the evaluation configuration (`cameraFrames: "tick"`, the default of `engram run` on
 * the in-process twin) renders only the camera frames the control ticks read. What the policy sees
 * must be bit-identical to the full-rate configuration (`all`): this runs the same short test-tiny
 * Put Back Block episode both ways and compares every prepared observation the policy received
 * (stamp, CHW float32 images, state), every command on the bus (MCAP bytes and log times), and
 * checks that each camera frame the tick run published is the full-rate run's frame of that stamp.
 * Observations are captured by wrapping the policy (runTrial's wrapPolicy); the real one runs.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadRunConfig } from "../../src/config/loaders.js";
import type { Policy, PreparedObservation } from "../../src/policy/types.js";
import { McapSource } from "../../src/bus/mcapReader.js";
import { loadRobotProfile } from "../../src/robot/loadRobotProfile.js";
import { runTrial } from "../../src/app/runTrial.js";

const STEPS = 12;

interface Captured { observations: string[]; logits: unknown; byTopic: Map<string, string[]> }

const bytesOf = (a: Float32Array | Float64Array) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

async function runWith(cameraFrames: "all" | "tick"): Promise<Captured> {
  const out = mkdtempSync(join(tmpdir(), `engram-frames-${cameraFrames}-`));
  const observations: string[] = [];
  // Sees every prepared observation on its way to the real policy.
  const recording = (policy: Policy): Policy => ({
    get spec() { return policy.spec; },
    reset: (e) => policy.reset(e),
    resetSession: () => policy.resetSession(),
    observeDemonstration: (frames) => policy.observeDemonstration(frames),
    observe: (obs: PreparedObservation) => {
      const h = createHash("sha256").update(String(obs.stampNs));
      for (const name of Object.keys(obs.images).sort()) h.update(name).update(bytesOf(obs.images[name]!));
      observations.push(h.update(bytesOf(obs.state)).digest("hex"));
      return policy.observe(obs);
    },
    act: () => policy.act(),
    setInstruction: (text) => policy.setInstruction(text),
  });
  try {
    const run = loadRunConfig("launch/sim-x-one.yaml");
    await runTrial({
      run, robot: loadRobotProfile(run.robotPath), policyPath: "policies/test-tiny", task: "put-back-block",
      episodes: 1, seed: 7, outDir: out, maxSteps: STEPS, cameraFrames, wrapPolicy: recording,
    });
    const byTopic = new Map<string, string[]>();
    const source = await McapSource.open(join(out, "episodes", "0.mcap"));
    try {
      for await (const m of source.messages()) {
        if (!byTopic.has(m.topic)) byTopic.set(m.topic, []);
        byTopic.get(m.topic)!.push(`${m.logTimeNs} ${createHash("sha256").update(m.cdr).digest("hex")}`);
      }
    } finally {
      await source.close();
    }
    return { observations, logits: JSON.parse(readFileSync(join(out, "logits-episode-0.json"), "utf8")), byTopic };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

test("tick camera frames: the policy's observations and the published commands are bit-identical to full rate", { timeout: 180_000 }, async () => {
  const all = await runWith("all");
  const tick = await runWith("tick");
  assert.equal(all.observations.length, STEPS);
  assert.deepEqual(tick.observations, all.observations, "prepared observations (stamp, images, state) per tick");
  assert.deepEqual(tick.logits, all.logits, "classifier logits per tick");
  const robot = loadRobotProfile(loadRunConfig("launch/sim-x-one.yaml").robotPath).profile;
  const command = robot.command.joint_topic;
  assert.ok((all.byTopic.get(command)?.length ?? 0) > 0, "the policy published commands");
  assert.deepEqual(tick.byTopic.get(command), all.byTopic.get(command), "command bytes and times");
  for (const cam of robot.cameras) {
    // Frames by content (a JPEG's log time is when its encode finished); the stamp is in the bytes.
    const full = new Set(all.byTopic.get(cam.topic)!.map((l) => l.split(" ")[1]));
    const few = tick.byTopic.get(cam.topic)!.map((l) => l.split(" ")[1]!);
    // Full rate is 30 Hz over 1.2 s; at the control rate (10 Hz) one frame per tick, plus the first one.
    assert.ok(few.length <= STEPS + 1 && few.length < full.size / 2, `${cam.topic}: ${few.length} frames at tick rate vs ${full.size} at full rate`);
    for (const hash of few) assert.ok(full.has(hash), `${cam.topic}: frame ${hash} is one of the full-rate run's frames`);
  }
});
