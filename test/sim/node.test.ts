// Runs alone (scripts/test.sh): it measures wall time.
import { test } from "node:test";
import assert from "node:assert/strict";
import { SimClock } from "../../src/bus/clock.js";
import { LocalBus } from "../../src/bus/local.js";
import type { Qos } from "../../src/bus/types.js";
import { decode } from "../../src/msgs/codec.js";
import { nsFromTime, type KnownRosType } from "../../src/msgs/types.js";
import { SIM_CHECKPOINTS, SIM_EPISODE, SIM_SUBTASK, SIM_SUBTASK_END } from "../../src/msgs/simTopics.js";
import type { TopicContract } from "../../src/msgs/topicContract.js";
import { loadRobotProfile } from "../../src/robot/index.js";
import { SimNode } from "../../src/sim/node/SimNode.js";
import { getTask } from "../../src/sim/tasks/index.js";

const SUB_QOS: Qos = { reliability: "reliable", durability: "volatile", history: "keep_all", depth: 1 };

interface Received { stampNs: bigint; msg: Record<string, unknown> }

/** Every message on a contract's topic, decoded by it (keep_all, so none is dropped). */
function collectTopic<T>(bus: LocalBus, c: TopicContract<T>): T[] {
  const out: T[] = [];
  bus.subscribe(c.topic, c.type, { ...c.qos, history: "keep_all" }, (cdr) => out.push(c.decode(cdr)));
  return out;
}

function collect(bus: LocalBus, topic: string, type: KnownRosType, qos = SUB_QOS): Received[] {
  const out: Received[] = [];
  bus.subscribe(topic, type, qos, (cdr) => {
    const msg = decode(type, cdr) as unknown as Record<string, unknown>;
    const header = msg.header as { stamp: { sec: number; nanosec: number } } | undefined;
    const stamp = header?.stamp ?? (msg.clock as { sec: number; nanosec: number } | undefined);
    out.push({ stampNs: stamp ? nsFromTime(stamp) : 0n, msg });
  });
  return out;
}

function rateHz(msgs: Received[]): number {
  const first = msgs[0]!.stampNs, last = msgs[msgs.length - 1]!.stampNs;
  return ((msgs.length - 1) * 1e9) / Number(last - first);
}

test("X-One twin publishes every profile topic with its type, frame id and rate; CameraInfo matches the calibration", async () => {
  const robot = loadRobotProfile("robots/x-one.yaml");
  const { profile } = robot;
  const bus = new LocalBus({ clock: new SimClock(1_000_000_000n) });
  const joints = collect(bus, profile.joint_state.topic, "sensor_msgs/msg/JointState");
  const clock = collect(bus, "/clock", "rosgraph_msgs/msg/Clock");
  const cams = profile.cameras.map((c) => ({
    spec: c,
    images: collect(bus, c.topic, c.encoding === "rgb8" ? "sensor_msgs/msg/Image" : "sensor_msgs/msg/CompressedImage"),
    infos: collect(bus, c.info_topic, "sensor_msgs/msg/CameraInfo"),
  }));
  const node = await SimNode.create({ bus, robot });
  node.reset();
  await node.advanceBy(1_000_000_000n);
  await new Promise((r) => setImmediate(r));
  assert.equal(bus.clock.nowNs(), 2_000_000_000n, "the bus's SimClock follows the sim");

  assert.ok(Math.abs(rateHz(joints) - profile.joint_state.rate_hz) <= 0.1 * profile.joint_state.rate_hz, `joint_states at ${rateHz(joints)} Hz`);
  const js = joints[0]!.msg as { name: string[]; position: Float64Array };
  assert.deepEqual(js.name, profile.joints.map((j) => j.name), "JointState names = profile joint order, grippers included");
  assert.equal(js.position.length, profile.joints.length);
  assert.ok(Math.abs(js.position[7]! - profile.home.left_gripper!) < 1e-9);
  assert.ok(clock.length >= 90, `${clock.length} /clock messages in 1 s`);
  for (let i = 1; i < clock.length; i++) assert.ok(clock[i]!.stampNs > clock[i - 1]!.stampNs, "/clock increases");

  for (const { spec, images, infos } of cams) {
    const cal = robot.calibrations[spec.name]!;
    assert.ok(Math.abs(rateHz(images) - spec.rate_hz) <= 0.1 * spec.rate_hz, `${spec.topic} at ${rateHz(images)} Hz, expected ${spec.rate_hz}`);
    assert.equal(infos.length, images.length, `${spec.info_topic}: one CameraInfo per image`);
    for (const { msg } of images) {
      assert.equal((msg.header as { frame_id: string }).frame_id, spec.frame_id);
      if (spec.encoding === "rgb8") {
        assert.equal(msg.encoding, "rgb8");
        assert.equal(msg.width, cal.image_width);
        assert.equal(msg.height, cal.image_height);
        assert.equal((msg.data as Uint8Array).length, cal.image_width * cal.image_height * 3);
      } else {
        assert.match(String(msg.format), /jpeg/);
        const d = msg.data as Uint8Array;
        assert.ok(d[0] === 0xff && d[1] === 0xd8, `${spec.topic}: data is not a JPEG`);
      }
    }
    const info = infos[0]!.msg as { header: { frame_id: string }; width: number; height: number; k: number[]; d: number[]; r: number[]; p: number[]; distortion_model: string };
    assert.equal(info.header.frame_id, spec.frame_id);
    assert.equal(info.width, cal.image_width);
    assert.equal(info.height, cal.image_height);
    assert.equal(info.distortion_model, cal.distortion_model);
    assert.deepEqual(Array.from(info.k), cal.camera_matrix.data);
    assert.deepEqual(Array.from(info.d), cal.distortion_coefficients.data);
    assert.deepEqual(Array.from(info.r), cal.rectification_matrix.data);
    assert.deepEqual(Array.from(info.p), cal.projection_matrix.data);
    // Image and info of one frame carry the same stamp.
    assert.equal(infos[3]!.stampNs, images[3]!.stampNs);
  }
  // The head image is not blank: the table and arms are drawn.
  const head = cams.find((c) => c.spec.encoding === "rgb8")!.images[0]!.msg.data as Uint8Array;
  assert.ok(new Set(Array.from(head.subarray(0, 30000))).size > 5, "head image looks blank");
  node.close();
  await bus.close();
});

test("ground truth: /sim/episode latched at reset, /sim/subtask_end true on the step the expert ends a subtask", async () => {
  const robot = loadRobotProfile("robots/x-one.yaml");
  const bus = new LocalBus({ clock: new SimClock(0n) });
  const ends = collectTopic(bus, SIM_SUBTASK_END);
  const subtask = collectTopic(bus, SIM_SUBTASK);
  const checkpoints = collectTopic(bus, SIM_CHECKPOINTS);
  const node = await SimNode.create({ bus, robot, cameras: false });
  const task = getTask("put-back-block");
  node.reset({ task, seed: 100, expert: true });
  const episode = collectTopic(bus, SIM_EPISODE);
  await node.runEpisode(60);
  await new Promise((r) => setImmediate(r));
  assert.equal(ends.length, 60, "one /sim/subtask_end per control step");
  const trueAt = ends.flatMap((ended, i) => (ended ? [i] : []));
  assert.deepEqual(trueAt, node.episode!.ends().map((e) => e.step), "true exactly on the expert's subtask-end steps");
  assert.equal(trueAt.length, 1, `first subtask should end within 60 steps, ends at ${trueAt}`);
  assert.deepEqual(subtask, task.subtasks(node.episode!.scene).slice(0, 2));
  assert.ok(checkpoints.length >= 1 && checkpoints[0]!.label === "storage");
  assert.deepEqual([checkpoints[0]!.task, checkpoints[0]!.seed], ["put-back-block", 100]);
  const ep = episode[0]!;
  assert.equal(ep.task, "put-back-block");
  assert.equal(ep.seed, 100);
  assert.equal(ep.done, false);
  node.close();
  await bus.close();
});

test("determinism through the node: the same task seed twice gives identical joint states and object poses", async () => {
  const robot = loadRobotProfile("robots/x-one.yaml");
  async function run(): Promise<number[]> {
    const bus = new LocalBus({ clock: new SimClock(0n) });
    const joints = collect(bus, robot.profile.joint_state.topic, "sensor_msgs/msg/JointState");
    const node = await SimNode.create({ bus, robot, cameras: false });
    node.reset({ task: getTask("put-back-block"), seed: 7, expert: true });
    await node.runEpisode(40);
    await new Promise((r) => setImmediate(r));
    const trace = joints.flatMap((j) => Array.from(j.msg.position as Float64Array));
    for (const id of node.world.objectIds()) { const p = node.world.objectPose(id); trace.push(...p.position, ...p.quaternion); }
    node.close();
    await bus.close();
    return trace;
  }
  const a = await run(), b = await run();
  assert.ok(a.length > 400 * 16);
  assert.equal(a.length, b.length);
  a.forEach((v, i) => assert.ok(Object.is(v, b[i]), `value ${i}: ${v} vs ${b[i]}`));
});

test("real-time mode paces the sim on the wall clock", async () => {
  const robot = loadRobotProfile("robots/x-one.yaml");
  const bus = new LocalBus();
  const node = await SimNode.create({ bus, robot, cameras: false });
  await node.warmUp();
  const joints = collect(bus, robot.profile.joint_state.topic, "sensor_msgs/msg/JointState");
  const t0 = bus.clock.nowNs();
  node.reset();
  const stop = new AbortController();
  setTimeout(() => stop.abort(), 400);
  await node.runRealtime(stop.signal);
  const elapsed = bus.clock.nowNs() - t0;
  const simNs = node.world.timeNs;
  node.close();
  await bus.close();
  assert.ok(simNs <= elapsed + 10_000_000n, `sim ran ahead of the wall clock: ${simNs} > ${elapsed}`);
  assert.ok(simNs > elapsed / 4n, `sim ${simNs} ns far behind wall ${elapsed} ns`);
  assert.ok(joints.length >= 5, `${joints.length} joint states in 0.4 s`);
  for (const j of joints) assert.ok(j.stampNs >= t0 && j.stampNs <= t0 + elapsed + 10_000_000n, "stamps are wall times");
});

test("lock-step advance yields to timers and signal handlers however many physics steps a tick takes", async () => {
  const robot = loadRobotProfile("robots/x-one.yaml");
  const bus = new LocalBus({ clock: new SimClock(0n) });
  // 1 MHz physics: 10,000 steps (0.2-2 s of wall time here, several of the loop's 50 ms blocks) with one
  // joint-state publish among them.
  const node = await SimNode.create({ bus, robot, physicsHz: 1_000_000, controlHz: 10, cameras: false });
  await node.advanceBy(1_000n); // one-off costs of the first step (wasm, codecs) are not the loop's
  const t0 = performance.now();
  let timerAtMs = Infinity;
  setTimeout(() => { timerAtMs = performance.now() - t0; }, 20);
  await node.advanceBy(10_000_000n);
  const wallMs = performance.now() - t0;
  // Fired during the advance (a loop that never yields runs it only after), at a yield (every 50 ms).
  assert.ok(timerAtMs < wallMs, `a 20 ms timer fired at ${timerAtMs.toFixed(0)} ms of a ${wallMs.toFixed(0)} ms advance`);
  await node.close();
  await bus.close();
});
