/**
 * The offered QoS the episode recorder writes per topic (offered_qos_profiles): camera and
 * camera-info channels carry the QoS of whoever publishes them, the twin's reliable profile or
 * the drivers' best-effort sensor-data profile; every other topic is the same either way.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { RELIABLE_QOS, SENSOR_QOS } from "../../src/bus/types.js";
import { loadRunConfig } from "../../src/config/loaders.js";
import { cameraPublisherQos, episodeTopics } from "../../src/record/episodeWriter.js";
import { loadRobotProfile } from "../../src/robot/loadRobotProfile.js";
import { SIM_SENSOR_QOS } from "../../src/msgs/qos.js";

const robot = loadRobotProfile(loadRunConfig("launch/x-one.yaml").robotPath);
const commands = [{ topic: robot.profile.command.joint_topic, type: "trajectory_msgs/msg/JointTrajectory" }];
const cameraTopics = new Set(robot.profile.cameras.flatMap((c) => [c.topic, c.info_topic]));

test("cameraPublisherQos: the twin offers reliable keep-last 5, drivers best-effort keep-last 5", () => {
  assert.deepEqual(cameraPublisherQos("twin"), SIM_SENSOR_QOS);
  assert.equal(cameraPublisherQos("twin").reliability, "reliable");
  assert.deepEqual(cameraPublisherQos("drivers"), SENSOR_QOS);
  assert.equal(cameraPublisherQos("drivers").reliability, "best_effort");
});

test("episodeTopics: camera channels take the publisher's QoS, the other topics do not change", () => {
  const twin = episodeTopics(robot, commands, { sensors: "twin" });
  const drivers = episodeTopics(robot, commands, { sensors: "drivers" });
  assert.deepEqual(drivers.map((t) => t.topic), twin.map((t) => t.topic));
  assert.equal(twin.filter((t) => cameraTopics.has(t.topic)).length, cameraTopics.size);
  for (const [i, t] of twin.entries()) {
    const d = drivers[i]!;
    if (cameraTopics.has(t.topic)) {
      assert.deepEqual(t.qos, SIM_SENSOR_QOS, t.topic);
      assert.deepEqual(d.qos, SENSOR_QOS, t.topic);
    } else {
      assert.deepEqual(d, t, `${t.topic} does not depend on who publishes the cameras`);
    }
  }
  assert.deepEqual(twin.find((t) => t.topic === robot.profile.joint_state.topic)?.qos, RELIABLE_QOS);
  const noCameras = episodeTopics(robot, commands, { sensors: "drivers", cameras: false });
  assert.equal(noCameras.some((t) => cameraTopics.has(t.topic)), false);
});
