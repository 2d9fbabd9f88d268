/**
 * A world the trial does not own, reached only over the bus, as a Rig (rig.ts): a robot's drivers
 * over ROS 2 (the operator judges each episode), or the sim twin as its own process (`engram sim`:
 * the SimJudge asks it for each scene, and its /sim/* topics are the ground truth). Ticks are paced
 * on the bus clock (the wall clock, or the twin's /clock with use_sim_time); between episodes and
 * after an error the robot is held at its newest measured joints.
 */
import { RELIABLE_QOS, SENSOR_QOS, type Bus } from "../bus/types.js";
import type { OutputAdapter } from "../control/index.js";
import { codecFor } from "../msgs/codec.js";
import type { RosTypeMap } from "../msgs/types.js";
import type { LoadedRobot } from "../robot/loadRobotProfile.js";
import { GroundTruthFeed } from "./groundTruth.js";
import type { OperatorOutcome, TrialJudge } from "./operator.js";
import type { ProgressBar } from "./progress.js";
import type { EpisodeHandle, EpisodeScore, Rig, RigTask } from "./rig.js";
import { untilAborted } from "./runEpisodes.js";
import type { EpisodeEnd } from "./tick.js";

/** Options of a BusRig. */
export interface BusRigOptions {
  /** The robot's bus; not closed by the rig. */
  bus: Bus;
  robot: LoadedRobot;
  /** Resets the scene between episodes and gives the verdict (the operator, or the SimJudge). */
  judge: TrialJudge;
  /**
   * True when the robot is the sim twin in another process: its /sim/* topics score checkpoints and
   * subtask ends (GroundTruthFeed) and feed the oracle ablations; the recording lists the twin's sensors.
   */
  twin: boolean;
  /** The global instruction given to the policy (must be in a closed-vocabulary tokenizer's list). */
  instruction: string;
  /** Subtasks in order, for the oracle-list planner (M(n) tasks; privileged). */
  subtasks: string[];
  /** Step limit per episode, at which the robot holds while the judge decides. */
  stepLimit: number;
  controlHz: number;
  /** Episodes in the run (the operator's prompt counts them). */
  episodes: number;
  /** Cleared before the judge is asked at the step limit. */
  progress?: ProgressBar | null;
  /** The run's stop: a judge asked at the step limit is not waited for. */
  signal?: AbortSignal;
}

/** A robot, or the twin in another process, over the bus. */
export class BusRig implements Rig {
  readonly bus: Bus;
  readonly pacing = { kind: "wall" } as const;
  readonly sensors: "twin" | "drivers";
  readonly groundTruthTopics: boolean;
  private readonly joints: { positions(): Record<string, number> | null; close(): void };
  private readonly truth: GroundTruthFeed | null;

  constructor(private readonly o: BusRigOptions) {
    this.bus = o.bus;
    this.sensors = o.twin ? "twin" : "drivers";
    this.groundTruthTopics = o.twin;
    this.joints = latestJointState(o.bus, o.robot.profile.joint_state.topic);
    this.truth = o.twin ? new GroundTruthFeed(o.bus, BigInt(Math.round(1e9 / o.controlHz))) : null;
  }

  /**
   * The judge's reset (the operator's hands, or the twin asked over /sim/reset); false: the
   * operator stopped the run.
   */
  async prepare(task: RigTask, seed: number, episode: number): Promise<boolean> {
    if (this.o.judge.stopRequested) return false;
    return (await this.o.judge.awaitReset(episode, this.o.episodes, { task: task.id, seed })) === "start";
  }

  async reset(task: RigTask, _seed: number, i: number): Promise<EpisodeHandle> {
    const { judge, robot } = this.o;
    const clock = this.bus.clock, truth = this.truth;
    const start0 = clock.nowNs();
    return {
      instruction: this.o.instruction,
      subtasks: this.o.subtasks,
      stepLimit: this.o.stepLimit,
      physicsHz: null,
      startFields: { robot: robot.profile.name },
      startPose: () => this.joints.positions(),
      begin: () => {
        judge.beginEpisode(i);
        truth?.begin(clock.nowNs());
      },
      finish: async (loopEnd: EpisodeEnd) => {
        let end = loopEnd;
        if (end.kind === "failure" && judge.verdict === null) {
          this.o.progress?.clear();
          const asked = judge.awaitOutcome(i, `step limit ${this.o.stepLimit}`);
          end = endOf(await untilAborted(asked, this.o.signal, "aborted"))!;
        }
        judge.endEpisode();
        // The operator's `a` ends this episode, not the run.
        return { end, runGoesOn: judge.verdict === "aborted" };
      },
      score: (loop): EpisodeScore => ({
        duration_s: Math.round(Number(clock.nowNs() - start0) / 1e6) / 1000,
        checkpoints: truth?.checkpoints ?? [],
        checkpoints_defined: truth ? task.checkpoints.map((c) => ({ id: c.id, label: c.label })) : [],
        true_ends: truth ? truth.trueEnds : null,
        realtime_factor: null,
        cameras: Object.fromEntries(loop.cameras.map((c) => [c.name, {
          frames_per_s: c.framesPerS, stale_holds: c.staleHolds,
        }])),
      }),
      logFields: (end) => ({ reason: end.kind === "success" ? null : end.reason }),
      close: async () => judge.endEpisode(),
    };
  }

  verdict(): EpisodeEnd | null {
    return endOf(this.o.judge.verdict);
  }

  holder(output: OutputAdapter): () => void {
    const publishers = new Map(output.advertisements.map((a) => [
      a.topic, this.bus.advertise(a.topic, a.type, RELIABLE_QOS),
    ]));
    return () => {
      const measured = this.joints.positions();
      if (!measured) return;
      for (const out of output.buildHold(measured, this.bus.clock.nowNs())) {
        const codec = codecFor(out.type as keyof RosTypeMap) as { encode(m: unknown): Uint8Array };
        publishers.get(out.topic)!(codec.encode(out.message));
      }
    };
  }

  /** Unsubscribes the joint state and the ground truth; the bus stays open (its owner closes it). */
  async close(): Promise<void> {
    this.joints.close();
    this.truth?.close();
  }
}

/** The judge's verdict as an episode end (null: keep going). */
function endOf(v: OperatorOutcome | null): EpisodeEnd | null {
  switch (v) {
    case null: return null;
    case "success": return { kind: "success" };
    case "failure": return { kind: "failure", reason: "judged a failure" };
    case "aborted": return { kind: "aborted", reason: "aborted by the operator" };
  }
}

/** The latest joint positions on `topic`, for holding the robot between episodes. */
function latestJointState(bus: Bus, topic: string): { positions(): Record<string, number> | null; close(): void } {
  let last: Uint8Array | null = null;
  const off = bus.subscribe(topic, "sensor_msgs/msg/JointState", SENSOR_QOS, (cdr) => { last = cdr; });
  const codec = codecFor("sensor_msgs/msg/JointState");
  return {
    positions() {
      if (!last) return null;
      try {
        const m = codec.decode(last);
        if (m.name.length !== m.position.length) return null;
        return Object.fromEntries(m.name.map((n, i) => [n, m.position[i]!]));
      } catch { return null; }
    },
    close: off,
  };
}
