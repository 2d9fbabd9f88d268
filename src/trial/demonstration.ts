/**
 * Demonstration prompts (README, "Demonstration prompts"): before an episode's first tick the
 * driver feeds a demonstration's frames to the policy's memory (Policy.observeDemonstration; the arm
 * holds still) and republishes the messages they were made from on `/engram/demonstration<topic>`,
 * so the episode's MCAP holds the prompt beside the episode. Sources: a recorded episode MCAP
 * (mcapDemonstration.ts) or the twin's demonstration expert on the episode's own scene (app/).
 * Both turn recorded camera and joint-state messages into observations here, through the live
 * loop's own preprocessing (cameraFrameOf, frameToTensor, stateVector).
 */
import type { Bus } from "../bus/types.js";
import { codecFor } from "../msgs/codec.js";
import type { RosType } from "../msgs/types.js";
import type { Qos } from "../msgs/qos.js";
import { cameraFrameOf, type ImageType } from "../observe/latestSensors.js";
import { frameToTensor, type ImageSpec } from "../observe/preprocess.js";
import type { Policy, PreparedObservation } from "../policy/types.js";
import type { RecordedTopicSpec } from "../record/busRecorder.js";
import type { JointMap } from "../robot/kinematics/robotKinematics.js";
import { stateVector } from "../robot/stateVector.js";
import type { LayoutSpec, RobotProfile } from "../robot/types.js";
import type { EventLog } from "./eventLog.js";

/** The namespace demonstration messages are republished under: `/engram/demonstration` + their own topic. */
export const DEMONSTRATION_PREFIX = "/engram/demonstration";

/** Reliable and keep-all: a demonstration is published in one burst, and the recording must keep every frame. */
export const DEMONSTRATION_QOS: Qos = {
  reliability: "reliable", durability: "volatile", history: "keep_all", depth: 1,
};

/** A recorded topic of a demonstration (a camera's or the joint state's), as it was recorded. */
export interface DemonstrationTopic { topic: string; type: RosType }

/** One message a demonstration frame was made from. */
export interface DemonstrationMessage { topic: string; cdr: Uint8Array }

/** One control-rate frame: what the policy is shown and the messages it came from. */
export interface DemonstrationFrame { observation: PreparedObservation; messages: DemonstrationMessage[] }

/** One episode's demonstration. */
export interface Demonstration {
  /** Where it came from, for the events: the MCAP's path, or the twin's task. */
  origin: string;
  controlHz: number;
  frames: DemonstrationFrame[];
}

/** What the episode driver asks for a demonstration before each episode. */
export interface DemonstrationSource {
  readonly kind: "mcap" | "twin";
  /** The topics its messages are on, fixed for the run (the recorder subscribes before each episode). */
  readonly topics: readonly DemonstrationTopic[];
  /** The demonstration of episode `episode` of `task` with `seed` (the twin's depends on the scene). */
  load(task: string, seed: number, episode: number): Promise<Demonstration>;
}

/** What a demonstration's messages are turned into observations with: the live loop's profile, layout, cameras. */
export interface DemonstrationInputs {
  profile: RobotProfile;
  /** The policy's state layout. */
  layout: LayoutSpec;
  /** Policy camera name → how its frames are prepared (trialParts.imageSpecsOf). */
  imageSpecs: Record<string, ImageSpec>;
}

/** The recorder's topics for a source's republished messages. */
export function demonstrationTopics(source: DemonstrationSource): RecordedTopicSpec[] {
  return source.topics.map((t) => ({ topic: DEMONSTRATION_PREFIX + t.topic, type: t.type, qos: DEMONSTRATION_QOS }));
}

/**
 * One frame from recorded messages: each policy camera's image (`cameras`: camera name → its
 * message and type) through the live preprocessing, the joint state in the policy's state layout.
 * Throws naming `where` and the topic when a message does not decode or lacks a joint.
 */
export async function demonstrationObservation(
  inputs: DemonstrationInputs, stampNs: bigint,
  cameras: ReadonlyMap<string, { topic: string; type: string; cdr: Uint8Array }>,
  jointState: { topic: string; cdr: Uint8Array }, where: string,
): Promise<PreparedObservation> {
  const images: Record<string, Float32Array> = {};
  for (const [name, spec] of Object.entries(inputs.imageSpecs)) {
    const m = cameras.get(name);
    if (!m) throw new Error(`${where}: no frame of camera "${name}"`);
    const frame = cameraFrameOf(m.type as ImageType, m.cdr);
    if (!frame) throw new Error(`${where}: ${m.topic}: malformed ${m.type} message`);
    images[name] = await frameToTensor(frame, spec, `${where}: ${m.topic}`);
  }
  let measured: JointMap;
  try {
    const js = codecFor("sensor_msgs/msg/JointState").decode(jointState.cdr);
    measured = Object.fromEntries(js.name.map((n, i) => [n, js.position[i]!]));
  } catch (err) {
    throw new Error(`${where}: ${jointState.topic}: malformed sensor_msgs/msg/JointState: ${(err as Error).message}`);
  }
  try {
    return { stampNs, images, state: stateVector(inputs.profile, inputs.layout, measured) };
  } catch (err) {
    throw new Error(`${where}: ${jointState.topic}: ${(err as Error).message}`);
  }
}

/** Per run: publishes each episode's demonstration into the recording and shows it to the policy. */
export class DemonstrationPrompt {
  private readonly publishers = new Map<string, (cdr: Uint8Array) => void>();

  constructor(readonly source: DemonstrationSource, private readonly bus: Bus) {
    for (const t of demonstrationTopics(source)) this.publishers.set(t.topic, bus.advertise(t.topic, t.type, t.qos));
  }

  /**
   * Loads the episode's demonstration, republishes its messages, then feeds its frames to `policy`
   * (after its reset, before the first tick): `demonstration_start` and `demonstration_end` events
   * bracket it. Returns the frame count. Throws (the driver ends the run with a fault) when the
   * source or the policy fails: an episode never starts on half a prompt.
   */
  async feed(policy: Policy, events: EventLog, task: string, seed: number, episode: number): Promise<number> {
    const t0 = performance.now();
    const demo = await this.source.load(task, seed, episode);
    if (demo.frames.length === 0) {
      throw new Error(`demonstration ${demo.origin}: no frame with every policy camera and a joint state`);
    }
    const frames = demo.frames.length;
    events.emit({
      event: "demonstration_start", source: this.source.kind, origin: demo.origin, frames, control_hz: demo.controlHz,
      topics: this.source.topics.map((t) => DEMONSTRATION_PREFIX + t.topic),
    });
    for (const f of demo.frames) {
      for (const m of f.messages) this.publishers.get(DEMONSTRATION_PREFIX + m.topic)?.(m.cdr);
    }
    await policy.observeDemonstration(demo.frames.map((f) => f.observation));
    const ms = Math.round(performance.now() - t0);
    events.emit({ event: "demonstration_end", source: this.source.kind, frames, ms });
    return frames;
  }
}
