/**
 * TwinRig (src/app/twinRig.ts) runs a video task's demonstration inside `reset`, in lock-step: the
 * episode a policy starts on is at the execution's step 0, the arm home, the demonstration's control
 * steps already on the bus clock; a task without one starts right away.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadRunConfig } from "../../src/config/loaders.js";
import { loadRobotProfile } from "../../src/robot/loadRobotProfile.js";
import { TwinRig } from "../../src/app/twinRig.js";
import { getTaskSpec } from "../../src/task/index.js";

test("reset runs a video task's demonstration: the policy starts at the execution's first step", async () => {
  const run = loadRunConfig("launch/sim-franka.yaml");
  const robot = loadRobotProfile(run.robotPath);
  const rig = await TwinRig.create({ run, robot });
  try {
    const t0 = rig.bus.clock.nowNs();
    const handle = await rig.reset(getTaskSpec("video-place-order"), 100, 0);
    const episode = rig.node.episode!;
    assert.equal(episode.inDemonstration, false, "the demonstration ran in reset");
    assert.ok(episode.demonstrationSteps > 100, `demonstration of ${episode.demonstrationSteps} control steps`);
    assert.equal(episode.stepCount, 0, "execution has not started");
    const periodNs = BigInt(Math.round(1e9 / robot.profile.control_hz));
    assert.ok(rig.bus.clock.nowNs() - t0 >= BigInt(episode.demonstrationSteps - 1) * periodNs, "the bus clock moved on");
    assert.match(handle.instruction, /^watch the video carefully, then place the \w+ cube on the \w+ target/);
    await rig.reset(getTaskSpec("put-back-block"), 100, 1);
    assert.equal(rig.node.episode!.demonstrationSteps, 0, "a task without a demonstration starts right away");
  } finally {
    await rig.close();
  }
});
