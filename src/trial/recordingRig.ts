/**
 * A recorded episode as a Rig (rig.ts): the ReplayBus (bus/replay.ts) steps through the MCAP in
 * lock-step, each control tick delivering what was logged up to its time, so the episode driver and
 * its control loop run a policy against the recording unchanged (`engram replay --through-policy`).
 * The recording obeys no command: what the loop publishes stays on the bus's in-memory sink. Its
 * ground truth is its annotations (subtask texts and end steps); it has no verdict, so the episode
 * ends with the recording, as a failure naming that.
 */
import { ReplayBus } from "../bus/replay.js";
import { decode } from "../msgs/codec.js";
import { SIM_EPISODE, episodeInstruction } from "../msgs/simTopics.js";
import { recordedCameraTopic } from "../record/cameraRecording.js";
import {
  ANNOTATIONS_TOPIC, identityOf, readMcapMetadata, type EpisodeAnnotation, type EpisodeIdentity,
} from "../record/episodeWriter.js";
import { McapSource } from "../bus/mcapReader.js";
import type { RobotProfile } from "../robot/types.js";
import type { EpisodeHandle, Rig, RigTask } from "./rig.js";
import type { EpisodeEnd } from "./tick.js";

/** What the recording holds besides its messages: identity, annotations, instruction, time span. */
interface RecordingFacts {
  identity: EpisodeIdentity;
  annotations: EpisodeAnnotation[];
  instruction: string;
  topics: Set<string>;
  lastNs: bigint;
}

/** One recorded episode, stepped tick by tick. Closing the rig closes the bus and the file. */
export class RecordingRig implements Rig {
  readonly sensors = "drivers";
  readonly groundTruthTopics = false;
  readonly pacing;
  private running = false;

  private constructor(readonly path: string, readonly bus: ReplayBus, private readonly facts: RecordingFacts) {
    this.pacing = { kind: "lockstep", advanceTo: (ns: bigint) => bus.advanceTo(ns) } as const;
  }

  /** Opens an episode recorded by engram; throws naming the file when it has no engram_episode metadata. */
  static async open(path: string): Promise<RecordingRig> {
    const identity = identityOf(await readMcapMetadata(path));
    if (!identity) throw new Error(`${path}: no engram_episode metadata: not an episode recorded by engram record`);
    const facts = await readFacts(path, identity);
    return new RecordingRig(path, await ReplayBus.open(path, { rate: Infinity }), facts);
  }

  /** The recording's identity (task, seed, rates, start). */
  get identity(): EpisodeIdentity { return this.facts.identity; }

  /** Why the file was read without its index (only its prefix replays), or undefined. */
  get fallbackReason(): string | undefined { return this.bus.fallbackReason; }

  /**
   * `profile` with each camera on the topic and encoding it was recorded with: a camera recorded
   * with --image-format jpeg is on its /compressed topic as CompressedImage.
   */
  profileAsRecorded(profile: RobotProfile): RobotProfile {
    return {
      ...profile,
      cameras: profile.cameras.map((cam) => {
        const topic = recordedCameraTopic(cam, this.facts.topics);
        return topic && topic !== cam.topic ? { ...cam, topic, encoding: "jpeg" as const } : cam;
      }),
    };
  }

  /** Throws naming the file and the camera when a policy camera was not recorded. */
  checkCameras(profile: RobotProfile, cameras: readonly string[]): void {
    for (const name of cameras) {
      const cam = profile.cameras.find((c) => c.name === name);
      if (!cam) {
        const known = profile.cameras.map((c) => c.name).join(", ");
        throw new Error(`policy camera "${name}" is not in robot ${profile.name} (cameras: ${known})`);
      }
      if (!this.facts.topics.has(cam.topic)) {
        throw new Error(`${this.path}: policy camera "${name}" (${cam.topic}) was not recorded `
          + "(record without --no-cameras)");
      }
    }
  }

  /** Delivers what was logged up to the recorded start; the episode runs until the recording's last message. */
  async reset(task: RigTask, _seed: number, _episode: number): Promise<EpisodeHandle> {
    const { identity, annotations, instruction, lastNs } = this.facts;
    if (task.id !== identity.task) throw new Error(`${this.path}: recorded task is ${identity.task}, not ${task.id}`);
    const startNs = BigInt(identity.start_ns);
    const periodNs = BigInt(Math.round(1e9 / identity.control_hz));
    await this.bus.advanceTo(startNs);
    this.running = true;
    // Tick k reads what was logged up to start + (k+1) periods: the last tick is the one that takes the last message.
    const stepLimit = Math.max(1, Number((lastNs - startNs + periodNs - 1n) / periodNs));
    return {
      instruction,
      subtasks: annotations.map((a) => a.text),
      stepLimit,
      physicsHz: identity.physics_hz,
      startPose: () => identity.start_pose,
      begin: () => {},
      finish: async (end) => { this.running = false; return { end, runGoesOn: false }; },
      score: () => ({
        duration_s: Math.round(Number(this.bus.clock.nowNs() - startNs) / 1e6) / 1000,
        checkpoints: [], checkpoints_defined: [],
        true_ends: annotations.map((a) => a.end_step),
        realtime_factor: null,
      }),
      close: async () => { this.running = false; },
    };
  }

  /** The end of the recording ends the episode (a recording has no verdict of its own). */
  verdict(): EpisodeEnd | null {
    return this.running && this.bus.exhausted ? { kind: "failure", reason: "end of the recording" } : null;
  }

  async close(): Promise<void> {
    await this.bus.close();
  }
}

/** One pass over the file: its topics, annotations, the twin's instruction and the last log time. */
async function readFacts(path: string, identity: EpisodeIdentity): Promise<RecordingFacts> {
  const source = await McapSource.open(path);
  try {
    const topics = new Set((await source.topics()).map((t) => t.topic));
    const annotations: EpisodeAnnotation[] = [];
    let instruction = "", lastNs = BigInt(identity.start_ns);
    for await (const m of source.messages()) {
      if (m.logTimeNs > lastNs) lastNs = m.logTimeNs;
      const json = (): unknown => JSON.parse(decode("std_msgs/msg/String", m.cdr).data);
      if (m.topic === ANNOTATIONS_TOPIC) annotations.push(json() as EpisodeAnnotation);
      if (m.topic === SIM_EPISODE.topic && !instruction) instruction = episodeInstruction(SIM_EPISODE.decode(m.cdr)) ?? "";
    }
    return { identity, annotations, instruction, topics, lastNs };
  } finally {
    await source.close();
  }
}
