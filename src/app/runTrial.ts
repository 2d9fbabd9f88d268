/**
 * Runs N policy episodes on the sim twin in process (lock-step or real-time): the episode driver
 * (trial/runEpisodes.ts) over a TwinRig, writing the run folder of DESIGN.md §5.
 */
import type { Bus } from "../bus/types.js";
import type { LoadedRunConfig } from "../config/loaders.js";
import type { StopLatch } from "../control/index.js";
import type { Policy } from "../policy/types.js";
import type { EpisodeRecordingOptions } from "../record/episodeWriter.js";
import type { LoadedRobot } from "../robot/loadRobotProfile.js";
import { getTaskSpec } from "../task/index.js";
import type { SimNode } from "../sim/node/SimNode.js";
import { runEpisodes, type RunEpisodesOptions } from "../trial/runEpisodes.js";
import type { EpisodeRecord, RunSummary } from "../trial/summary.js";
import type { TrialPolicy } from "../trial/trialParts.js";
import { controlHzOf } from "../trial/trialParts.js";
import { twinDemonstration, type TwinDemonstrationOptions } from "./twinDemonstration.js";
import { TwinRig } from "./twinRig.js";

/** Options of `runTrial`. */
export interface TrialOptions {
  run: LoadedRunConfig;
  robot: LoadedRobot;
  /** Policy bundle folder (overrides the run config's). */
  policyPath: string;
  /** Overrides a remote bundle's server URL (`--policy-url`). */
  policyUrl?: string;
  task: string;
  episodes: number;
  seed: number;
  outDir: string;
  /** Called after each episode (progress line). */
  onEpisode?: (record: EpisodeRecord, index: number) => void;
  /** Aborts the run: the current episode holds, its recording is closed, no new episode starts. */
  signal?: AbortSignal;
  /**
   * The run's e-stop latch, shared by all its episodes (a latched stop outlives the episode); the
   * CLI's terminal key resumes it. Default: one built from the profile's safety section.
   */
  stops?: StopLatch;
  /** Ends each episode after at most this many control steps (default: the task's time limit). */
  maxSteps?: number;
  /** Writes no episode MCAPs (long evaluations); events and summaries still are. */
  noRecord?: boolean;
  /** How episode MCAPs are written (default: zstd chunks, every camera frame as published). */
  recording?: EpisodeRecordingOptions;
  /**
   * Lock-step camera frames (SimNode's `cameraFrames`): `tick` (default, evaluation) renders only
   * the frame each control tick reads, `all` every frame at the camera's rate (full-rate MCAPs).
   * What the policy observes is identical either way.
   */
  cameraFrames?: "all" | "tick";
  /**
   * Lock-step only: each tick also waits for its wall-clock time, and late ticks count on the wall
   * clock (the remote-policy bench: the twin stays deterministic, the policy's round trips weigh as
   * on hardware). Default false: lock-step runs as fast as the sim and the policy allow.
   */
  wallPaced?: boolean;
  /**
   * Runs only these episodes of the run (0-based, in this order; seed = seed + index, MCAP
   * episodes/<index>.mcap): a shard's or a worker's share (runSlice.ts). Default 0..episodes-1.
   */
  episodeIndices?: readonly number[];
  /**
   * Wraps the loaded policy for the episodes (behaviour added by wrapping: e.g. training's DAgger
   * collector, which logs what the policy saw with the twin's oracle labels). Default: none.
   */
  wrapPolicy?: (policy: TrialPolicy, sim: SimNode) => Policy;
  /** Wraps the run's bus (`--view`: the live view taps it; see src/bus/tappedBus.ts). Default: none. */
  tapBus?: (bus: Bus) => Bus;
  /** `demonstration.source: twin`: who demonstrates a task (default: its sim definition's `demonstration`). */
  demonstrator?: TwinDemonstrationOptions["demonstrator"];
}

/** Runs the trial on the in-process twin and returns its summary (also written to `<outDir>/summary.json`). */
export async function runTrial(o: TrialOptions): Promise<RunSummary> {
  const rig = await TwinRig.create({
    run: o.run, robot: o.robot, cameraFrames: o.cameraFrames, wallPaced: o.wallPaced, tapBus: o.tapBus,
  });
  const wrap = o.wrapPolicy;
  return runEpisodes({
    rig, run: o.run, robot: o.robot, task: getTaskSpec(o.task), policyPath: o.policyPath, policyUrl: o.policyUrl,
    wrapPolicy: wrap && ((policy) => wrap(policy, rig.node)),
    episodes: o.episodeIndices ?? Array.from({ length: o.episodes }, (_, k) => k),
    seed: o.seed, outDir: o.outDir, maxSteps: o.maxSteps, noRecord: o.noRecord, recording: o.recording,
    signal: o.signal, stops: o.stops, onEpisode: o.onEpisode,
    demonstration: twinDemonstrationOf(o),
  });
}

/** `demonstration.source: twin` needs the sim, so app/ builds it; a recorded one the driver reads itself. */
function twinDemonstrationOf(o: TrialOptions): RunEpisodesOptions["demonstration"] {
  const demo = o.run.config.demonstration;
  if (demo?.source !== "twin") return undefined;
  return async (inputs) => twinDemonstration({
    robot: o.robot, physicsHz: o.run.config.sim.physics_hz, controlHz: controlHzOf(o.run.config, o.robot.profile),
    inputs, demonstrator: o.demonstrator, maxFrames: demo.max_frames,
  });
}
