/**
 * The sim twin as its own node and the runtime on use_sim_time, talking only over "ROS 2": two
 * Ros2Bus instances on one FakeGraph. FAKE: test/fakes/rclnodejs.ts stands for the real rclnodejs
 * (and DDS between two processes), which cannot run here; the buses, the sim node, the trial and
 * the codec are the real ones. This is the path `ros2 launch launch/sim.launch.yaml` takes.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TopicClock } from "../../src/bus/clock.js";
import { Ros2Bus } from "../../src/bus/ros2.js";
import { RELIABLE_QOS } from "../../src/bus/types.js";
import { loadRunConfig } from "../../src/config/loaders.js";
import { McapSource, qosFromOfferedYaml } from "../../src/record/index.js";
import { loadRobotProfile } from "../../src/robot/loadRobotProfile.js";
import type { RobotProfile } from "../../src/robot/types.js";
import { SimNode } from "../../src/sim/node/SimNode.js";
import { SimResetServer } from "../../src/sim/node/resetServer.js";
import { getTask } from "../../src/sim/tasks/index.js";
import { runHardwareTrial } from "../../src/trial/hardwareTrial.js";
import { SimJudge } from "../../src/trial/operator.js";
import { getTaskSpec, nominalTexts } from "../../src/task/index.js";
import { createFakeRclnodejs, FakeGraph } from "../fakes/rclnodejs.js";

/** The recording's camera channels state the reliability the twin's publishers offer on the graph. */
async function assertOfferedQosOfTwin(mcap: string, graph: FakeGraph, profile: RobotProfile): Promise<void> {
  const cameraTopics = new Set(profile.cameras.flatMap((c) => [c.topic, c.info_topic]));
  const src = await McapSource.open(mcap);
  try {
    const channels = (await src.topics()).filter((t) => cameraTopics.has(t.topic));
    assert.equal(channels.length, cameraTopics.size, "every camera and camera_info channel is recorded");
    for (const t of channels) {
      const pub = graph.publishers.find((p) => p.topic === t.topic && p.node.name === "engram_sim");
      assert.ok(pub, `the twin publishes ${t.topic}`);
      const offered = pub.options.qos.reliability === 1 ? "reliable" : "best_effort";
      assert.equal(qosFromOfferedYaml(t.metadata.get("offered_qos_profiles"))?.reliability, offered, t.topic);
    }
  } finally {
    await src.close();
  }
}

test("sim over ROS 2 (fake rclnodejs): each episode's scene set over the bus, the runtime on the sim's /clock, the sim's verdict judges", { timeout: 90_000 }, async () => {
  const run = loadRunConfig("launch/sim-ros2-x-one.yaml");
  assert.equal(run.config.bus.kind === "ros2" && run.config.bus.use_sim_time, true);
  const robot = loadRobotProfile(run.robotPath);
  const graph = new FakeGraph();
  const simBus = await Ros2Bus.create({ loadRclnodejs: async () => createFakeRclnodejs({ graph }), nodeName: "engram_sim", useSimTime: false });
  const runtimeRcl = createFakeRclnodejs({ graph, parameters: { use_sim_time: true } });
  const runtimeBus = await Ros2Bus.create({ loadRclnodejs: async () => runtimeRcl, nodeName: "engram" });
  // Every camera subscription's QoS the runtime asks for (the episode's subscriptions end with it).
  const asked: Array<{ topic: string; reliability: number; history: number; depth: number }> = [];
  const cameraTopics = new Set(robot.profile.cameras.map((c) => c.topic));
  const push = graph.subscriptions.push.bind(graph.subscriptions);
  graph.subscriptions.push = (...subs) => {
    for (const x of subs) {
      if (x.node.name === "engram" && cameraTopics.has(x.topic)) asked.push({ topic: x.topic, ...x.options.qos });
    }
    return push(...subs);
  };
  assert.ok(runtimeBus.clock instanceof TopicClock);
  const node = await SimNode.create({ bus: simBus, robot, physicsHz: 240, controlHz: 10, log: () => {} });
  // Started on another scene: the runtime's reset request over the bus sets each episode's.
  node.reset({ task: getTask("put-back-block"), seed: 99 });
  const scenes: string[] = [];
  const resets = new SimResetServer({ bus: simBus, node, taskOf: getTask, log: () => scenes.push(`${node.episode?.task.id} ${node.episode?.seed}`) });
  const ctl = new AbortController();
  const running = node.runRealtime(ctl.signal, () => resets.poll());
  const judge = new SimJudge(runtimeBus, () => {});
  let commands = 0;
  simBus.subscribe(robot.profile.command.joint_topic, "trajectory_msgs/msg/JointTrajectory", { ...RELIABLE_QOS, depth: 50 }, () => { commands++; });
  const out = mkdtempSync(join(tmpdir(), "engram-simros2-"));
  try {
    const nominal = nominalTexts(getTaskSpec("put-back-block"), 4);
    const summary = await runHardwareTrial({
      run, robot, policyPath: "policies/test-tiny", task: "put-back-block", instruction: nominal.instruction, subtasks: nominal.subtasks,
      episodes: 2, seed: 4, outDir: out, bus: runtimeBus, judge, maxSteps: 15, topicTimeoutMs: 30_000,
    });
    assert.equal(summary.episodes, 2);
    const eps = readFileSync(join(out, "episodes.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    assert.deepEqual(eps.map((e) => e.seed), [4, 5], "episodes.jsonl records the seeds");
    assert.deepEqual(scenes, ["put-back-block 4", "put-back-block 5"], "the twin ran each episode on its own scene");
    const ep = eps[0];
    // Per camera: frames received per second of the episode and the stale holds it caused, in the summary too.
    const cams = Object.keys(ep.cameras ?? {});
    assert.ok(cams.length > 0, "episodes.jsonl has per-camera stats");
    for (const name of cams) {
      assert.ok(ep.cameras[name].frames_per_s > 5, `${name}: ${ep.cameras[name].frames_per_s} frames/s received`);
      assert.equal(typeof ep.cameras[name].stale_holds, "number");
      assert.equal(typeof summary.cameras?.[name]?.frames_per_s_mean, "number", `summary.cameras.${name}`);
    }
    assert.match(readFileSync(join(out, "report.md"), "utf8"), /\| camera \S+ \| [\d.]+ frames\/s, [\d.]+ stale holds \|/);
    assert.equal(ep.steps, 15);
    assert.equal(ep.outcome, "failure", "a random tiny policy does not solve the task: no sim verdict by the step limit is a failure");
    // 15 ticks at 10 Hz on /clock time: about 1.5 s of sim time.
    assert.ok(ep.duration_s >= 1.4 && ep.duration_s < 3, `duration on the sim clock ${ep.duration_s} s`);
    assert.ok(existsSync(join(out, ep.mcap)));
    await assertOfferedQosOfTwin(join(out, ep.mcap), graph, robot.profile);
    assert.ok(Number(runtimeBus.clock.nowNs()) > 0, "time came from /clock");
    assert.ok(commands >= 2, `the twin received the runtime's JointTrajectory chunks over the bus (${commands})`);
    // Scored from the twin's /sim/checkpoints and /sim/subtask_end over the bus, as in-process
    // (test/trial/groundTruth.test.ts): the task's checkpoints are defined, the random policy reaches none.
    assert.deepEqual(summary.checkpoint_rates, { storage: 0, update: 0, compression: 0 });
    assert.deepEqual(ep.checkpoints_defined.map((c: { label: string }) => c.label).sort(), ["compression", "storage", "update"]);
    assert.deepEqual(ep.true_ends, []);
    // The twin offers its cameras reliable: the runtime asked reliable keep-last 1 (rmw enums: reliable 1, keep_last 1).
    // (The recorder's are keep_all, rmw history 2; waitForRobot's, before the episodes, only check that frames come.)
    const loop = asked.filter((q) => q.history === 1 && q.depth === 1);
    assert.equal(loop.length, 2 * cameraTopics.size, JSON.stringify(asked));
    for (const q of loop) assert.equal(q.reliability, 1, `${q.topic} subscribed reliable`);
    // `ros2 topic info` would list one publisher of the command topic from the runtime's node (the
    // hold and the episode's chunks share it), not one more per episode.
    const cmd = graph.publishers.filter((p) => p.topic === robot.profile.command.joint_topic && p.node.name === "engram");
    assert.equal(cmd.length, 1, `${cmd.length} publishers of ${robot.profile.command.joint_topic} from /engram`);
  } finally {
    ctl.abort();
    await running;
    resets.close();
    node.close();
    judge.close();
    await runtimeBus.close();
    await simBus.close();
  }
});
