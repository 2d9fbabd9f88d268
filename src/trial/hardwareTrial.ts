/**
 * Trials on a robot the trial does not own: hardware drivers over ROS 2, or the sim twin as its
 * own process (`engram sim`); only the bus connects them: the episode driver (runEpisodes.ts) over
 * a BusRig. Between episodes a judge (the human operator, or the twin asked over the bus) resets
 * the scene to the episode's task and seed; during an episode its verdict ends it; at the step
 * limit the robot holds while the judge decides. Writes the same run folder as runTrial (DESIGN.md
 * §5); summary fields with no ground truth here (checkpoint rates, classifier against ground
 * truth, real-time factor) are null.
 */
import { SENSOR_QOS, type Bus } from "../bus/types.js";
import type { LoadedRunConfig } from "../config/loaders.js";
import type { StopLatch } from "../control/index.js";
import { describeProblems, readJointState } from "../observe/checkJointState.js";
import type { EpisodeRecordingOptions } from "../record/episodeWriter.js";
import type { LoadedRobot } from "../robot/loadRobotProfile.js";
import { getTaskSpec, stepLimit } from "../task/index.js";
import { BusRig } from "./busRig.js";
import type { TrialJudge } from "./operator.js";
import type { ProgressBar } from "./progress.js";
import { runEpisodes } from "./runEpisodes.js";
import type { EpisodeRecord, RunSummary } from "./summary.js";
import { controlHzOf } from "./trialParts.js";

/** Options of `runHardwareTrial`. */
export interface HardwareTrialOptions {
  run: LoadedRunConfig;
  robot: LoadedRobot;
  /** Policy bundle folder. */
  policyPath: string;
  /** Overrides a remote bundle's server URL (`--policy-url`). */
  policyUrl?: string;
  /** Task id: names the run, sets the step limit and the memory class (M(1) / M(n)). */
  task: string;
  /** The global instruction given to the policy (must be in a closed-vocabulary tokenizer's list). */
  instruction: string;
  /** Subtasks in order, for the oracle-list planner (M(n) tasks; privileged). */
  subtasks: string[];
  episodes: number;
  /** Seed of episode i is seed + i (flow-matching noise). */
  seed: number;
  outDir: string;
  /** The robot's bus; not closed here. */
  bus: Bus;
  judge: TrialJudge;
  /** Step limit per episode (default: the task's time limit at the control rate). */
  maxSteps?: number;
  /** How episode MCAPs are written (default: zstd chunks, every camera frame as published). */
  recording?: EpisodeRecordingOptions;
  /** How long to wait for the robot's topics before the first episode, ms (default 10 000). */
  topicTimeoutMs?: number;
  progress?: ProgressBar | null;
  /** Called after each episode. */
  onEpisode?: (record: EpisodeRecord, index: number) => void;
  /** Aborts the run: the current episode holds, its recording closes, no new episode starts. */
  signal?: AbortSignal;
  /** The run's e-stop latch, shared by its episodes (default: one from the profile's safety section). */
  stops?: StopLatch;
}

/** Runs the trial and returns its summary (also written to `<outDir>/summary.json`). Throws when the robot's topics never arrive. */
export async function runHardwareTrial(o: HardwareTrialOptions): Promise<RunSummary> {
  const cfg = o.run.config;
  const task = getTaskSpec(o.task);
  const controlHz = controlHzOf(cfg, o.robot.profile);
  const rig = new BusRig({
    bus: o.bus, robot: o.robot, judge: o.judge, twin: cfg.sim.enabled, instruction: o.instruction, subtasks: o.subtasks,
    stepLimit: o.maxSteps ?? stepLimit(task, controlHz), controlHz, episodes: o.episodes, progress: o.progress, signal: o.signal,
  });
  return runEpisodes({
    rig, run: o.run, robot: o.robot, task, policyPath: o.policyPath, policyUrl: o.policyUrl,
    episodes: Array.from({ length: o.episodes }, (_, k) => k), seed: o.seed, outDir: o.outDir,
    recording: o.recording, signal: o.signal, stops: o.stops, progress: o.progress, onEpisode: o.onEpisode,
    beforeEpisodes: (policy) => waitForRobot(o.bus, o.robot, policy.spec.cameras, o.topicTimeoutMs ?? 10_000, o.signal),
  });
}

/**
 * Waits (wall time) until the joint state and every policy camera have delivered a message, the
 * newest joint state passes the profile check, and, with use_sim_time, `/clock` has started.
 * Throws after `timeoutMs` naming the silent topics, or the joint state's problem.
 */
export async function waitForRobot(bus: Bus, robot: LoadedRobot, cameras: readonly string[], timeoutMs: number, signal?: AbortSignal): Promise<void> {
  const p = robot.profile;
  const topics = new Map<string, string>([[p.joint_state.topic, "sensor_msgs/msg/JointState"]]);
  for (const name of cameras) {
    const cam = p.cameras.find((c) => c.name === name);
    if (cam) topics.set(cam.topic, cam.encoding === "jpeg" ? "sensor_msgs/msg/CompressedImage" : "sensor_msgs/msg/Image");
  }
  const heard = new Set<string>();
  const jsTopic = p.joint_state.topic;
  let jointProblem: string | null = null;
  const offs = [...topics].map(([topic, type]) => bus.subscribe(topic, type, SENSOR_QOS, (cdr) => {
    heard.add(topic);
    if (topic !== jsTopic) return;
    const check = readJointState(cdr, p.joints, jsTopic);
    jointProblem = check.kind === "valid" ? null : describeProblems(check.problems);
  }));
  const deadline = performance.now() + timeoutMs;
  try {
    while (heard.size < topics.size || jointProblem !== null || bus.clock.nowNs() === 0n) {
      if (signal?.aborted) return;
      if (performance.now() > deadline) {
        if (heard.size === topics.size && jointProblem !== null) throw badJointState(p.name, jointProblem, timeoutMs);
        const silent = [...topics.keys()].filter((t) => !heard.has(t));
        const clock = bus.clock.nowNs() === 0n ? " and /clock (use_sim_time is on but no time arrived)" : "";
        throw new Error(`robot ${p.name}: no message on ${silent.join(", ") || "(all topics heard)"}${clock} within ${timeoutMs} ms; are the drivers (or \`engram sim\`) running on this ROS domain? check with \`ros2 topic hz <topic>\``);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    for (const off of offs) off();
  }
}

function badJointState(robot: string, problem: string, timeoutMs: number): Error {
  return new Error(`robot ${robot}: no joint state passed the profile check within ${timeoutMs} ms; the newest: ${problem}. `
    + "Every joint the profile declares must come in one JointState message on that topic "
    + "(a gripper published by another driver needs a relay that merges it)");
}
