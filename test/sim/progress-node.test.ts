/**
 * Ground truth on the bus without the expert: a SimNode on a LocalBus + SimClock in lock-step runs
 * put-back-block with the expert off; the test moves the block by teleporting it and presses the
 * button with the real arm, commanded over the leader-arm topic with IK targets, as any non-expert
 * driver would. /sim/subtask_end and /sim/subtask must advance from the task's progress alone.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { SimClock } from "../../src/bus/clock.js";
import { LocalBus } from "../../src/bus/local.js";
import { RELIABLE_QOS } from "../../src/bus/types.js";
import { encode } from "../../src/msgs/codec.js";
import { SIM_EPISODE, SIM_SUBTASK, SIM_SUBTASK_END, type SimEpisodeMsg } from "../../src/msgs/simTopics.js";
import type { TopicContract } from "../../src/msgs/topicContract.js";
import { loadRobotProfile } from "../../src/robot/index.js";
import { SimNode } from "../../src/sim/node/SimNode.js";
import { getTask } from "../../src/sim/tasks/index.js";
import { TABLE_Z, dist, topDownQuat } from "../../src/sim/tasks/geometry.js";
import type { PutBackBlockScene } from "../../src/sim/tasks/put-back-block.js";
import type { Vec3 } from "../../src/sim/world/types.js";

const REST = TABLE_Z + 0.022 + 0.001;

test("without the expert, /sim/subtask_end and /sim/subtask advance from ground-truth progress (block teleported, button pressed by the arm)", async () => {
  const robot = loadRobotProfile("robots/x-one.yaml");
  const bus = new LocalBus({ clock: new SimClock(0n) });
  const endFlags: boolean[] = [], subtasks: string[] = [], episodes: SimEpisodeMsg[] = [];
  const all = <T>(c: TopicContract<T>, out: T[]) =>
    bus.subscribe(c.topic, c.type, { ...c.qos, history: "keep_all" }, (cdr) => out.push(c.decode(cdr)));
  all(SIM_SUBTASK_END, endFlags);
  all(SIM_SUBTASK, subtasks);
  all(SIM_EPISODE, episodes);
  const leader = bus.advertise(robot.profile.teleop.leader_topic, "sensor_msgs/msg/JointState", RELIABLE_QOS);
  const node = await SimNode.create({ bus, robot, cameras: false, log: () => {} });
  const task = getTask("put-back-block");
  const ep = node.reset({ task, seed: 100, expert: false })!;
  const s = ep.scene as PutBackBlockScene, w = node.world, texts = task.subtasks(s);
  const settle = () => new Promise((r) => setImmediate(r));

  /** Commands the arm's grasp point to `goal` (top-down, gripper closed) and runs until it is within 1 cm. */
  const reach = async (arm: string, goal: Vec3): Promise<void> => {
    const ik = w.solveIk(arm, { position: goal, quaternion: topDownQuat(0) });
    assert.ok(ik.positionErrorM < 0.01, `IK to ${goal} for ${arm}: error ${ik.positionErrorM} m`);
    const names = w.jointNames(), { joints, gripper } = w.armJointIndices(arm);
    leader(encode("sensor_msgs/msg/JointState", {
      header: { stamp: { sec: 0, nanosec: 0 }, frame_id: "" },
      name: [...joints.map((j) => names[j]!), names[gripper]!], position: [...ik.positions, 0], velocity: [], effort: [],
    }));
    await settle();
    for (let n = 0; n < 60 && dist(w.graspPoint(arm), goal) > 0.01; n++) await node.runEpisode(1);
    assert.ok(dist(w.graspPoint(arm), goal) <= 0.01, `${arm} grasp point did not reach ${goal}: at ${w.graspPoint(arm)}`);
  };

  await node.runEpisode(3);
  assert.deepEqual(endFlags, [false, false, false]);
  w.setObjectPose(s.block, { position: [s.centre[0], s.centre[1], REST], quaternion: [0, 0, 0, 1] });
  await node.runEpisode(2);
  const arm = s.button.capTop[1] >= 0 ? "left" : "right";
  const [bx, by, top] = s.button.capTop;
  await reach(arm, [bx, by, top + 0.1]);
  await reach(arm, [bx, by, top - 0.002]);
  assert.equal(s.button.count, 1, "the fingertips pressed the button");
  assert.equal(ep.ends().length, 1, "a press still held down has not ended the press subtask");
  await reach(arm, [bx, by, top + 0.1]);
  const orig = s.mats[s.originalMat]!;
  w.setObjectPose(s.block, { position: [orig[0], orig[1], REST], quaternion: [0, 0, 0, 1] });
  await node.runEpisode(5);
  await settle();

  const ends = ep.ends();
  assert.deepEqual(ends.map((e) => e.text), texts, "every subtask ended, in order");
  assert.equal(ends[0]!.step, 3, "the centre subtask ends on the first control step after the teleport");
  assert.ok(ends[1]!.step > s.button.pressSteps[0]!, "the press subtask ends after the press began");
  assert.deepEqual(ends, ep.progressEnds());
  assert.ok(ep.done && ep.success, "success ends the episode");
  assert.equal(endFlags.length, ep.stepCount, "one /sim/subtask_end per control step");
  assert.deepEqual(endFlags.flatMap((f, i) => (f ? [i] : [])), ends.map((e) => e.step), "/sim/subtask_end true exactly on the end steps");
  assert.deepEqual(subtasks, texts, "/sim/subtask: the first subtask at reset, then each next one");
  const last = episodes[episodes.length - 1]!;
  assert.equal(last.done, true);
  assert.equal(last.success, true);
  assert.deepEqual(last.subtask_ends, ends);
  node.close();
  await bus.close();
});
