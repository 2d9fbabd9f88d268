/**
 * A demonstration read from a recorded episode MCAP (`engram record`, or a run's episodes/<n>.mcap):
 * its frames at the recording's control rate (record/episodeFrames.ts: the latest message of each
 * topic at each control tick), each policy camera's image and the joint state turned into what the
 * policy sees by the live loop's preprocessing. The same prompt every episode: read once, kept.
 */
import { McapSource } from "../bus/mcapReader.js";
import { imageType } from "../observe/latestSensors.js";
import { recordedCameraTopic } from "../record/cameraRecording.js";
import { episodeIdentity, readEpisodeFrames } from "../record/episodeFrames.js";
import type { CameraSpec } from "../robot/types.js";
import {
  demonstrationObservation, type Demonstration, type DemonstrationFrame, type DemonstrationInputs,
  type DemonstrationSource, type DemonstrationTopic,
} from "./demonstration.js";

/**
 * Checks the file holds an engram episode with every policy camera (its topic, or the `/compressed`
 * one a jpeg recording writes) and the profile's joint-state topic, then reads and prepares its
 * frames. Throws naming the file and the missing topic; frames before every camera has spoken are
 * left out (the count is in the result's frames).
 */
export async function mcapDemonstration(path: string, inputs: DemonstrationInputs): Promise<DemonstrationSource> {
  const { profile } = inputs;
  const identity = await episodeIdentity(path);
  const recorded = await recordedTopics(path);
  const cameras = Object.keys(inputs.imageSpecs).map((name) => cameraOf(profile.cameras, name, path));
  const topics: DemonstrationTopic[] = [];
  for (const cam of cameras) {
    const topic = recordedCameraTopic(cam, new Set(recorded.keys()));
    const listed = [...recorded.keys()].sort().join(", ") || "none";
    if (!topic) throw new Error(`${missingCamera(path, cam)} (recorded: ${listed})`);
    topics.push({ topic, type: recorded.get(topic) ?? imageType(cam) });
  }
  const jointTopic = profile.joint_state.topic;
  const missingJoints = `demonstration ${path}: no messages on the joint-state topic ${jointTopic} `
    + `of robot ${profile.name}`;
  if (!recorded.has(jointTopic)) throw new Error(missingJoints);
  topics.push({ topic: jointTopic, type: "sensor_msgs/msg/JointState" });

  const frames: DemonstrationFrame[] = [];
  const seen = new Set<string>();
  const summary = await readEpisodeFrames(path, profile, async (f) => {
    for (const name of f.cameras.keys()) seen.add(name);
    if (!cameras.every((c) => f.cameras.has(c.name))) return;
    const byCamera = new Map(cameras.map((c, i) => [c.name, { topic: topics[i]!.topic, ...f.cameras.get(c.name)! }]));
    const jointState = { topic: jointTopic, cdr: f.stateCdr };
    const where = `demonstration ${path} frame ${f.index}`;
    const observation = await demonstrationObservation(inputs, f.timeNs, byCamera, jointState, where);
    const messages = [...byCamera.values()].map((m) => ({ topic: m.topic, cdr: m.cdr }));
    frames.push({ observation, messages: [...messages, jointState] });
  });
  if (summary.frames === 0) throw new Error(missingJoints);
  const silent = cameras.find((c) => !seen.has(c.name));
  if (silent) throw new Error(missingCamera(path, silent));
  if (frames.length === 0) {
    const names = cameras.map((c) => c.name).join(", ");
    throw new Error(`demonstration ${path}: no control tick with a frame of every policy camera (${names}) `
      + "and a joint state");
  }
  const demo: Demonstration = { origin: path, controlHz: identity.control_hz, frames };
  return { kind: "mcap", topics, load: async () => demo };
}

function missingCamera(path: string, cam: CameraSpec): string {
  return `demonstration ${path}: no messages on topic ${cam.topic} of policy camera "${cam.name}"`;
}

/** Topic → ROS type of the channels the file declares. */
async function recordedTopics(path: string): Promise<Map<string, string>> {
  const source = await McapSource.open(path);
  try {
    return new Map((await source.topics()).map((t) => [t.topic, t.type]));
  } finally {
    await source.close();
  }
}

function cameraOf(cameras: readonly CameraSpec[], name: string, path: string): CameraSpec {
  const cam = cameras.find((c) => c.name === name);
  if (!cam) throw new Error(`demonstration ${path}: the robot profile has no camera "${name}" the policy reads`);
  return cam;
}
