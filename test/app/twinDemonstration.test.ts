/**
 * The twin's demonstration source (src/app/twinDemonstration.ts): a run with `demonstration:
 * {source: twin}` whose demonstrator is Put Back Block's own scripted expert (no task defines a
 * demonstration yet) shows the policy a prompt performed on the episode's own scene by a scratch
 * twin: the events and the run's MCAP hold it, the scratch arm moved while the episode's own arm
 * starts at home; a task without a demonstration expert is refused by name; a demonstrator given for a
 * task with its own demonstration (Video Unmask) drives from the scene's start, not after that one.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { runTrial } from "../../src/app/runTrial.js";
import { twinDemonstration } from "../../src/app/twinDemonstration.js";
import { McapSource } from "../../src/bus/mcapReader.js";
import { loadRunConfig } from "../../src/config/loaders.js";
import { decode } from "../../src/msgs/codec.js";
import { readEpisodeFrames } from "../../src/record/episodeFrames.js";
import { getLayout } from "../../src/robot/layout.js";
import { loadRobotProfile } from "../../src/robot/loadRobotProfile.js";

const FRAMES = 12;

test("a twin demonstration by Put Back Block's expert prompts the episode; the run's MCAP holds it", { timeout: 180_000 }, async (t) => {
  const base = loadRunConfig("launch/sim-x-one.yaml");
  const run = { ...base, config: { ...base.config, demonstration: { source: "twin" as const, max_frames: FRAMES } } };
  const robot = loadRobotProfile(run.robotPath);
  const out = mkdtempSync(join(tmpdir(), "engram-twin-demo-"));
  const summary = await runTrial({
    run, robot, policyPath: "policies/test-tiny", task: "put-back-block", episodes: 1, seed: 3, outDir: out, maxSteps: 2,
    demonstrator: (task) => task.expert,
  });
  assert.equal(summary.aborted ?? null, null);
  const events = readFileSync(join(out, "events.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
  const start = events.find((e) => e.event === "demonstration_start")!;
  assert.equal(start.source, "twin");
  assert.equal(start.origin, "twin:put-back-block:seed3");
  assert.equal(start.frames, FRAMES);
  assert.equal(events.find((e) => e.event === "demonstration_end")!.frames, FRAMES);

  const mcap = join(out, "episodes/0.mcap");
  const src = await McapSource.open(mcap);
  const joints: Float64Array[] = [];
  let heads = 0;
  try {
    for await (const m of src.messages({ topics: ["/engram/demonstration/joint_states", "/engram/demonstration/head_camera/color/image_raw"] })) {
      if (m.topic.endsWith("joint_states")) joints.push(Float64Array.from(decode("sensor_msgs/msg/JointState", m.cdr).position));
      else heads++;
    }
  } finally {
    await src.close();
  }
  assert.equal(joints.length, FRAMES);
  assert.equal(heads, FRAMES);
  // The scratch arm moved under its expert; the episode's own arm starts at home, untouched by the prompt.
  const moved = Math.max(...joints[FRAMES - 1]!.map((v, i) => Math.abs(v - joints[0]![i]!)));
  t.diagnostic(`demonstration arm moved up to ${moved.toFixed(4)} rad over ${FRAMES} frames`);
  assert.ok(moved > 1e-3, `demonstration arm moved ${moved} rad`);
  const homePose = robot.profile.home as Record<string, number>;
  const home = robot.profile.joints.map((j) => homePose[j.name] ?? 0);
  let first: Float64Array | null = null;
  await readEpisodeFrames(mcap, robot.profile, (f) => { first ??= Float64Array.from(f.state.positions); });
  const names = robot.profile.joints.map((j) => j.name);
  assert.ok(first, "the episode has frames");
  for (const [i, v] of (first as Float64Array).entries()) assert.ok(Math.abs(v - home[i]!) < 1e-3, `${names[i]} at ${v}, home ${home[i]}`);
});

test("a task without a demonstration expert is refused by name", async () => {
  const robot = loadRobotProfile("robots/x-one.yaml");
  const inputs = {
    profile: robot.profile, layout: getLayout(robot.profile, "bimanual_16d"),
    imageSpecs: { head: { width: 8, height: 6, mean: [0, 0, 0] as [number, number, number], std: [1, 1, 1] as [number, number, number] } },
  };
  const source = twinDemonstration({ robot, physicsHz: 240, controlHz: 10, inputs });
  assert.equal(source.kind, "twin");
  await assert.rejects(source.load("put-back-block", 0, 0),
    /twin demonstration: task "put-back-block" defines no demonstration expert .*name a recorded episode instead \(source: mcap\)/);
});

test("a demonstrator of a task with its own demonstration is the whole prompt (no demonstration phase first)", { timeout: 120_000 }, async () => {
  const robot = loadRobotProfile("robots/franka-droid.yaml");
  const inputs = {
    profile: robot.profile, layout: getLayout(robot.profile, "joint_8d"),
    imageSpecs: { exterior_left: { width: 8, height: 6, mean: [0, 0, 0] as [number, number, number], std: [1, 1, 1] as [number, number, number] } },
  };
  const firstX: number[] = [];
  let ticks = 0;
  const source = twinDemonstration({
    robot, physicsHz: 240, controlHz: 15, inputs, maxFrames: 30,
    // Video Unmask's own demonstration, watched: where container 0 stands when the demonstrator starts.
    demonstrator: (task) => (world, scene, profile) => {
      const inner = task.demonstration!(world, scene, profile);
      const container = (scene as unknown as { containers: number[] }).containers[0]!;
      return {
        next: (w, step) => {
          if (ticks++ === 0) firstX.push(w.objectPose(container).position[0]);
          return inner.next(w, step);
        },
        annotations: () => inner.annotations(),
      };
    },
  });
  const demo = await source.load("video-unmask", 4, 0);
  assert.ok(demo.frames.length >= 28 && demo.frames.length <= 30, `${demo.frames.length} frames`);
  assert.ok(ticks >= demo.frames.length && ticks <= 31, `the demonstrator drove ${ticks} ticks for ${demo.frames.length} frames`);
  // Parked in front of its cube (x 0.40 +- 0.02), not already over it (x 0.58) by a demonstration run before.
  assert.ok(Math.abs(firstX[0]! - 0.40) < 0.03, `container 0 at x ${firstX[0]} when the demonstrator starts`);
});
