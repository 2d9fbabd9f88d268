/**
 * A demonstration the twin performs (RoboMME: a motion planner shows the task in the same scene
 * before execution): per episode a scratch twin, on its own in-process bus, sets the episode's own
 * scene (same task, same seed) and lets the task's demonstration expert drive it in lock-step; its
 * sensors publish exactly what the run's twin would, and the prompt is the latest camera frames and
 * joint state at each control tick, prepared like the MCAP source's (trial/demonstration.ts).
 * NOTE: a scratch twin, not the run's: the episode's own arm, scene, judge and recorded sensor topics
 * stay untouched (the runtime moves nothing for a prompt; exports and replays see only the episode),
 * and the driver republishes the prompt on /engram/demonstration/* as it does a recorded one.
 */
import { SimClock } from "../bus/clock.js";
import { LocalBus } from "../bus/local.js";
import { SENSOR_QOS } from "../bus/types.js";
import { imageType, type ImageType } from "../observe/latestSensors.js";
import type { LoadedRobot } from "../robot/loadRobotProfile.js";
import type { CameraSpec } from "../robot/types.js";
import { SimNode } from "../sim/node/SimNode.js";
import { getTask, listTasks } from "../sim/tasks/index.js";
import type { TaskDefinition, TaskScene } from "../sim/tasks/types.js";
import {
  demonstrationObservation, type DemonstrationFrame, type DemonstrationInputs, type DemonstrationSource,
  type DemonstrationTopic,
} from "../trial/demonstration.js";

const DEMO_EPOCH_NS = 1_700_000_000_000_000_000n;

/** The expert that performs a task's demonstration on a scene (SimTaskParts.demonstration's shape). */
export type Demonstrator = TaskDefinition<TaskScene>["expert"];

/** Options of the twin's demonstration source. */
export interface TwinDemonstrationOptions {
  robot: LoadedRobot;
  physicsHz: number;
  controlHz: number;
  inputs: DemonstrationInputs;
  /** Who demonstrates a task. Default: its sim definition's `demonstration` (none: the source errors). */
  demonstrator?: (task: TaskDefinition<TaskScene>) => Demonstrator | undefined;
  /** Ends the demonstration after at most this many control steps (default: when its expert is done). */
  maxFrames?: number;
}

/** The twin's demonstration source; `load` runs the demonstration of the episode's task and seed. */
export function twinDemonstration(o: TwinDemonstrationOptions): DemonstrationSource {
  const profile = o.robot.profile;
  const cameras = Object.keys(o.inputs.imageSpecs).map((name) => cameraOf(o.robot, name));
  const topics: DemonstrationTopic[] = [
    ...cameras.map((c) => ({ topic: c.topic, type: imageType(c) })),
    { topic: profile.joint_state.topic, type: "sensor_msgs/msg/JointState" },
  ];
  return { kind: "twin", topics, load: (task, seed) => perform(o, cameras, task, seed) };
}

async function perform(o: TwinDemonstrationOptions, cameras: CameraSpec[], taskId: string, seed: number) {
  const task = getTask(taskId);
  const expert = o.demonstrator ? o.demonstrator(task) : task.demonstration;
  if (!expert) {
    const withOne = listTasks().filter((t) => t.demonstration).map((t) => t.id);
    throw new Error(`twin demonstration: task "${taskId}" defines no demonstration expert (its sim definition's `
      + `\`demonstration\`; tasks with one: ${withOne.join(", ") || "none"}); `
      + "name a recorded episode instead (source: mcap)");
  }
  const origin = `twin:${taskId}:seed${seed}`;
  const bus = new LocalBus({ clock: new SimClock(DEMO_EPOCH_NS) });
  const node = await SimNode.create({
    bus, robot: o.robot, physicsHz: o.physicsHz, controlHz: o.controlHz, cameraFrames: "tick", clockHz: 0,
  });
  const latest = new Map<string, { type: string; cdr: Uint8Array }>();
  const jointTopic = o.robot.profile.joint_state.topic;
  const keep = (topic: string, type: ImageType | "sensor_msgs/msg/JointState") =>
    bus.subscribe(topic, type, SENSOR_QOS, (cdr) => latest.set(topic, { type, cdr }));
  const offs = [...cameras.map((c) => keep(c.topic, imageType(c))), keep(jointTopic, "sensor_msgs/msg/JointState")];
  try {
    // The task's definition with its demonstrator as the expert the twin drives with, and as its
    // demonstration (so TaskEpisode runs no demonstration phase before it: the demonstration is the episode).
    const demoTask: TaskDefinition<TaskScene> = { ...task, expert, demonstration: expert };
    const episode = node.reset({ task: demoTask, seed, expert: true })!;
    const startNs = bus.clock.nowNs();
    const periodNs = BigInt(Math.round(1e9 / o.controlHz));
    const frames: DemonstrationFrame[] = [];
    const max = o.maxFrames ?? episode.limit;
    for (let k = 0; k < max && !episode.done; k++) {
      const tickNs = startNs + BigInt(k + 1) * periodNs;
      await node.advanceTo(tickNs);
      const js = latest.get(jointTopic);
      const byCamera = new Map(cameras.flatMap((c) => {
        const m = latest.get(c.topic);
        return m ? [[c.name, { topic: c.topic, ...m }] as const] : [];
      }));
      if (!js || byCamera.size < cameras.length) continue;
      const jointState = { topic: jointTopic, cdr: js.cdr };
      const where = `demonstration ${origin} step ${k}`;
      const observation = await demonstrationObservation(o.inputs, tickNs, byCamera, jointState, where);
      const messages = [...byCamera.values()].map((m) => ({ topic: m.topic, cdr: m.cdr }));
      frames.push({ observation, messages: [...messages, jointState] });
    }
    return { origin, controlHz: o.controlHz, frames };
  } finally {
    for (const off of offs) off();
    node.close();
    await bus.close();
  }
}

function cameraOf(robot: LoadedRobot, name: string): CameraSpec {
  const cam = robot.profile.cameras.find((c) => c.name === name);
  if (!cam) throw new Error(`twin demonstration: robot ${robot.profile.name} has no camera "${name}" the policy reads`);
  return cam;
}
