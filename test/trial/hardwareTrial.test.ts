/**
 * Hardware trials with the robot outside the trial: an in-process SimNode in real-time mode stands
 * in for the hardware drivers, and only the LocalBus connects it to `runHardwareTrial` (the trial
 * never touches the node). A scripted operator answers the prompts through the injected input.
 */
// Runs alone (scripts/test.sh): it measures wall time.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalBus } from "../../src/bus/local.js";
import { RELIABLE_QOS } from "../../src/bus/types.js";
import { loadRunConfig } from "../../src/config/loaders.js";
import { encode } from "../../src/msgs/codec.js";
import { McapSource, qosFromOfferedYaml, type RecordedTopic } from "../../src/record/index.js";
import { loadRobotProfile } from "../../src/robot/loadRobotProfile.js";
import { SimNode } from "../../src/sim/node/SimNode.js";
import { getTask } from "../../src/sim/tasks/index.js";
import { runHardwareTrial, waitForRobot } from "../../src/trial/hardwareTrial.js";
import { SIM_RESET, SIM_RESET_DONE } from "../../src/msgs/simReset.js";
import { SIM_EPISODE, type SimEpisodeMsg } from "../../src/msgs/simTopics.js";
import { InputQueue, Operator, SimJudge, type OperatorPhase } from "../../src/trial/operator.js";

const run = loadRunConfig("launch/x-one.yaml");
const robot = loadRobotProfile(run.robotPath);
const POLICY = "policies/test-tiny";
const INSTRUCTION = "Move the block to the center, press the button, then put the block back on the mat it started on.";

/** Each recorded camera, camera-info and joint-state channel's offered reliability (offered_qos_profiles). */
async function offeredReliability(mcap: string): Promise<Record<string, string | undefined>> {
  const src = await McapSource.open(mcap);
  try {
    const wanted = new Set(Object.keys(expectedReliability("reliable")));
    const topics = (await src.topics()).filter((t) => wanted.has(t.topic));
    const reliability = (t: RecordedTopic) => qosFromOfferedYaml(t.metadata.get("offered_qos_profiles"))?.reliability;
    return Object.fromEntries(topics.map((t) => [t.topic, reliability(t)]));
  } finally {
    await src.close();
  }
}

/** `cameras` for every profile camera and its info topic; joint states stay reliable (joint_state_broadcaster). */
function expectedReliability(cameras: string): Record<string, string> {
  const p = robot.profile;
  return Object.fromEntries([
    ...p.cameras.flatMap((c) => [[c.topic, cameras], [c.info_topic, cameras]]),
    [p.joint_state.topic, "reliable"],
  ]);
}

/** The stand-in robot: the sim twin on the bus in real time, owned by the test, not by the trial. */
async function standInRobot(bus: LocalBus): Promise<{ stop(): Promise<void> }> {
  const node = await SimNode.create({ bus, robot, physicsHz: 240, controlHz: 10, log: () => {} });
  node.reset({ task: getTask("put-back-block"), seed: 3 });
  const ctl = new AbortController();
  const running = node.runRealtime(ctl.signal);
  return { async stop() { ctl.abort(); await running; node.close(); } };
}

test("hardware trial over the bus: reset prompts, s mid-episode, step limit then f, q stops; run folder with hardware nulls", { timeout: 120_000 }, async () => {
  const bus = new LocalBus();
  const sim = await standInRobot(bus);
  const out = mkdtempSync(join(tmpdir(), "engram-hw-"));
  const commands: bigint[] = [];
  bus.subscribe(robot.profile.command.joint_topic, "trajectory_msgs/msg/JointTrajectory", { ...RELIABLE_QOS, depth: 100 }, (_cdr, ns) => { commands.push(ns); });
  const input = new InputQueue();
  const phases: string[] = [];
  const lines: string[] = [];
  const answer = (phase: OperatorPhase, episode: number): void => {
    phases.push(`${phase}:${episode}`);
    if (phase === "reset") input.push(episode < 2 ? "\r" : "q");
    if (phase === "running" && episode === 0) setTimeout(() => input.push("s"), 700);
    if (phase === "outcome") input.push("f");
  };
  const judge = new Operator(input, { write: (l) => lines.push(l), onPhase: answer });
  input.push("s"); // a stray key before any prompt must not count
  try {
    const summary = await runHardwareTrial({
      run, robot, policyPath: POLICY, task: "put-back-block", instruction: INSTRUCTION, subtasks: [],
      episodes: 3, seed: 5, outDir: out, bus, judge, maxSteps: 12, topicTimeoutMs: 20_000,
    });
    assert.equal(summary.episodes, 2, "q at the third reset prompt stops the run");
    assert.equal(summary.aborted, null, "q is the operator ending the run, not an abort");
    assert.equal(summary.successes, 1);
    assert.deepEqual(summary.wilson95, [0.0945, 0.9055]);
    assert.deepEqual(summary.checkpoint_rates, { storage: null, update: null, compression: null });
    assert.deepEqual(summary.classifier, { kind: "learned", privileged: false, precision: null, recall: null, mean_offset_steps: null });
    assert.equal(summary.realtime_factor, null);
    assert.ok(summary.tick_ms.p50 !== null, "ticks were timed (a loaded machine may hold on stale frames: then compute time is ~0)");
    const eps = readFileSync(join(out, "episodes.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    assert.deepEqual(eps.map((e) => e.outcome), ["success", "failure"]);
    assert.ok(eps[0].steps < 12, `s ended episode 0 early (${eps[0].steps} steps)`);
    assert.equal(eps[1].steps, 12, "episode 1 ran to the step limit");
    assert.deepEqual(eps.map((e) => e.seed), [5, 6]);
    for (const e of eps) { assert.equal(e.true_ends, null); assert.ok(existsSync(join(out, e.mcap)), e.mcap); }
    // What the bus reports its publishers offer is written, as rosbag2 does: here the stand-in twin's reliable
    // profile (the drivers' best-effort one is only declared for topics no publisher is known for yet).
    assert.deepEqual(await offeredReliability(join(out, eps[0].mcap)), expectedReliability("reliable"),
      "camera channels carry the QoS their publisher offers");
    assert.deepEqual(phases.filter((p) => !p.startsWith("idle")), ["reset:0", "running:0", "reset:1", "running:1", "outcome:1", "reset:2"]);
    assert.ok(lines.some((l) => /reset the scene, then press enter/.test(l)));
    assert.ok(lines.some((l) => /"success" ignored: nothing is being asked now/.test(l)), lines.join("\n"));
    assert.ok(commands.length >= 3, `the policy's chunks reached the robot's command topic (${commands.length})`);
    const events = readFileSync(join(out, "events.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    assert.deepEqual(events.filter((e) => e.event === "episode_end").map((e) => e.outcome), ["success", "failure"]);
    assert.ok(existsSync(join(out, "report.md")) && existsSync(join(out, "outcomes.png")));
    assert.equal(JSON.parse(readFileSync(join(out, "summary.json"), "utf8")).episodes, 2);
  } finally {
    input.end();
    await sim.stop();
    await bus.close();
  }
});

test("hardware trial: an abort signal mid-episode ends it as aborted and still writes the summary", { timeout: 60_000 }, async () => {
  const bus = new LocalBus();
  const sim = await standInRobot(bus);
  const out = mkdtempSync(join(tmpdir(), "engram-hw-abort-"));
  const input = new InputQueue();
  const ctl = new AbortController();
  const judge = new Operator(input, {
    write: () => {},
    onPhase: (phase) => { if (phase === "reset") input.push(""); if (phase === "running") setTimeout(() => ctl.abort(), 500); },
  });
  try {
    const summary = await runHardwareTrial({
      run, robot, policyPath: POLICY, task: "put-back-block", instruction: INSTRUCTION, subtasks: [],
      episodes: 5, seed: 0, outDir: out, bus, judge, maxSteps: 200, signal: ctl.signal, topicTimeoutMs: 20_000,
    });
    assert.equal(summary.episodes, 1);
    const ep = JSON.parse(readFileSync(join(out, "episodes.jsonl"), "utf8").trim());
    assert.equal(ep.outcome, "aborted");
    assert.match(ep.reason, /^interrupted/);
    assert.equal(summary.aborted?.interrupted, true);
    assert.equal(summary.aborted?.episode, 0, "interrupted in episode 0");
    assert.ok(ep.steps < 200);
  } finally {
    input.end();
    await sim.stop();
    await bus.close();
  }
});

test("waitForRobot names the silent topics when no robot publishes", async () => {
  const bus = new LocalBus();
  try {
    await assert.rejects(waitForRobot(bus, robot, ["head"], 150), /robot x-one: no message on \/joint_states, \/head_camera\/color\/image_raw within 150 ms/);
  } finally {
    await bus.close();
  }
});

test("waitForRobot names the joint a robot's joint state lacks (a gripper from another driver)", async () => {
  const bus = new LocalBus();
  const pub = bus.advertise(robot.profile.joint_state.topic, "sensor_msgs/msg/JointState", RELIABLE_QOS);
  const names = robot.profile.joints.map((j) => j.name).filter((n) => !n.endsWith("gripper"));
  const js = encode("sensor_msgs/msg/JointState", { header: { stamp: { sec: 1, nanosec: 0 }, frame_id: "" }, name: names, position: names.map(() => 0), velocity: [], effort: [] });
  const timer = setInterval(() => pub(js), 20);
  try {
    await assert.rejects(waitForRobot(bus, robot, [], 150), /robot x-one: no joint state passed the profile check within 150 ms; the newest: joint "left_gripper" missing from \/joint_states .*\(and 1 more problem\)/);
  } finally {
    clearInterval(timer);
    await bus.close();
  }
});

test("SimJudge: the sim's /sim/episode verdict ends a running episode; latched or between-episode verdicts do not count", async () => {
  const bus = new LocalBus();
  const pub = bus.advertise(SIM_EPISODE.topic, SIM_EPISODE.type, SIM_EPISODE.qos);
  const send = (m: SimEpisodeMsg) => pub(SIM_EPISODE.encode(m));
  const end = (seed: number, success: boolean): SimEpisodeMsg =>
    ({ task: "put-back-block", seed, done: true, success, steps: 40, checkpoints: [], subtask_ends: [] });
  const tick = () => new Promise((r) => setImmediate(r));
  send(end(3, true));
  const judge = new SimJudge(bus, () => {});
  const answer = answerResets(bus);
  try {
    await tick(); await tick();
    assert.equal(await judge.awaitReset(0, 1, { task: "put-back-block", seed: 3 }), "start");
    judge.beginEpisode();
    assert.equal(judge.verdict, null, "the latched verdict of an earlier episode does not count");
    send({ task: "put-back-block", seed: 3, done: false, instruction: "", subtasks: [] });
    await tick(); await tick();
    assert.equal(judge.verdict, null);
    send(end(2, true));
    await tick(); await tick();
    assert.equal(judge.verdict, null, "a verdict about another scene does not count");
    send(end(3, false));
    await tick(); await tick();
    assert.equal(judge.verdict, "failure");
    judge.endEpisode();
    judge.beginEpisode();
    assert.equal(await judge.awaitOutcome(), "failure", "no verdict at the step limit is a failure, as in the in-process sim");
  } finally {
    answer();
    judge.close();
    await bus.close();
  }
});

/** Stands in for the twin's SimResetServer: answers every request on /sim/reset at once, ok. */
function answerResets(bus: LocalBus): () => void {
  const reply = bus.advertise(SIM_RESET_DONE.topic, SIM_RESET_DONE.type, SIM_RESET_DONE.qos);
  return bus.subscribe(SIM_RESET.topic, SIM_RESET.type, SIM_RESET.qos, (cdr) => reply(SIM_RESET_DONE.encode({ ...SIM_RESET.decode(cdr), ok: true })));
}

test("SimJudge: no reply to a reset request fails the reset naming both topics and the request; a refusal gives the twin's reason", async () => {
  const bus = new LocalBus();
  const judge = new SimJudge(bus, { write: () => {}, resetTimeoutMs: 200 });
  try {
    const t0 = performance.now();
    await assert.rejects(judge.awaitReset(0, 2, { task: "put-back-block", seed: 9 }),
      /sim twin: no reply on \/sim\/reset_done to reset request "[0-9a-f]{8}-0" \(task put-back-block seed 9\) on \/sim\/reset within 200 ms/);
    assert.ok(performance.now() - t0 < 2000, "the timeout holds");
    const reply = bus.advertise(SIM_RESET_DONE.topic, SIM_RESET_DONE.type, SIM_RESET_DONE.qos);
    const off = bus.subscribe(SIM_RESET.topic, SIM_RESET.type, SIM_RESET.qos, (cdr) => {
      reply(SIM_RESET_DONE.encode({ ...SIM_RESET.decode(cdr), ok: false, error: "unknown task" }));
    });
    await assert.rejects(judge.awaitReset(1, 2, { task: "put-back-block", seed: 10 }), /sim twin refused reset request .*-1" .*: unknown task/);
    off();
  } finally {
    judge.close();
    await bus.close();
  }
});
