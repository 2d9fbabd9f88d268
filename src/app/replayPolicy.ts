/**
 * `engram replay --through-policy`: a recorded episode fed through a policy offline, as the episode
 * driver (trial/runEpisodes.ts) over a RecordingRig (trial/recordingRig.ts): every tick reads the
 * sensors logged up to its time and runs the control loop's stages (the loop's sensors,
 * preprocessing, safety filter and scheduler), with any policy the registry loads (mem0, remote).
 * M(n) tasks get their subtask instructions from the annotations in order (the oracle-list planner:
 * the recording's own plan).
 * Writes what the policy did to `<name>.policy.mcap` beside the episode:
 * - /engram/policy/chunk (trajectory_msgs/JointTrajectory: each chunk act() returned, robot units),
 * - /engram/policy/logit (std_msgs/Float32: the classifier logit of every observed tick),
 * - /engram/policy/subtask_end (std_msgs/String JSON {step, logit}: each declared subtask end),
 * and the driver's run folder `<name>.policy/` (events.jsonl, episodes.jsonl, summary.json with the
 * declared ends scored against the annotated ones, report.md).
 */
import { basename, dirname, join, resolve } from "node:path";
import type { LoadedRunConfig } from "../config/loaders.js";
import type { LoadedRobot } from "../robot/loadRobotProfile.js";
import { getTaskSpec } from "../task/index.js";
import { McapRecorder } from "../record/mcapRecorder.js";
import { prefixWarning } from "../record/replayEpisode.js";
import { RecordingRig } from "../trial/recordingRig.js";
import { runEpisodes } from "../trial/runEpisodes.js";
import type { EpisodeRecord, RunSummary } from "../trial/summary.js";
import { PolicyTap } from "./policyTap.js";

/** Options of `replayThroughPolicy`. */
export interface ThroughPolicyOptions {
  run: LoadedRunConfig;
  robot: LoadedRobot;
  path: string;
  /** Policy bundle folder (any kind the policy registry loads). */
  bundle: string;
  /** Overrides a remote bundle's server URL. */
  policyUrl?: string;
}

/** What the offline pass found. */
export interface ThroughPolicyReport {
  file: string;
  out: string;
  /** The driver's run folder of the replay (events, episode record, summary, report). */
  run_dir: string;
  policy: string;
  steps: number;
  /** Ticks the loop held before observing (no joint state or frame of every policy camera yet, stale, stopped). */
  skipped: number;
  chunks: number;
  declared_ends: number[];
  annotated_ends: number[];
  precision: number | null;
  recall: number | null;
  mean_offset_steps: number | null;
  /** Set when the file has no usable index: only its recorded prefix went through the policy. */
  warning: string | null;
}

/** Runs the offline pass; throws naming the file when it has no identity or no frames of a policy camera. */
export async function replayThroughPolicy(o: ThroughPolicyOptions): Promise<ThroughPolicyReport> {
  const rig = await RecordingRig.open(o.path);
  const id = rig.identity;
  const name = basename(o.path, ".mcap");
  const out = join(dirname(o.path), `${name}.policy.mcap`);
  const runDir = join(dirname(o.path), `${name}.policy`);
  const profile = rig.profileAsRecorded(o.robot.profile);
  const periodNs = BigInt(Math.round(1e9 / id.control_hz));
  let recorder: McapRecorder | null = null;
  let tap: PolicyTap | null = null;
  let record: EpisodeRecord | null = null;
  try {
    recorder = await McapRecorder.open(out);
    await PolicyTap.addTopics(recorder);
    const startNs = BigInt(id.start_ns);
    const summary = await runEpisodes({
      rig, run: replayConfig(o.run, id.control_hz), robot: { ...o.robot, profile }, task: getTaskSpec(id.task),
      policyPath: o.bundle, policyUrl: o.policyUrl,
      wrapPolicy: (policy) => (tap = new PolicyTap(policy, recorder!, startNs, periodNs)),
      beforeEpisodes: async (policy) => rig.checkCameras(profile, policy.spec.cameras),
      // The recorded episode's index and seed (the driver's seed is that of episode 0).
      episodes: [id.episode], seed: id.seed - id.episode, outDir: runDir, noRecord: true,
      onEpisode: (r) => { record = r; },
    });
    const r = record as EpisodeRecord | null;
    if (!r) {
      const why = summary.aborted?.reason ?? "no episode ran";
      throw new Error(`${o.path}: the replay through ${o.bundle} stopped: ${why}`);
    }
    const t = tap as PolicyTap | null;
    return {
      file: o.path, out, run_dir: runDir, policy: summary.policy, steps: r.steps, skipped: r.steps - (t?.observed ?? 0),
      chunks: t?.chunks ?? 0, declared_ends: r.declared_ends, annotated_ends: r.true_ends ?? [],
      precision: summary.classifier.precision, recall: summary.classifier.recall,
      mean_offset_steps: summary.classifier.mean_offset_steps,
      warning: prefixWarning(o.path, rig.fallbackReason, BigInt(r.steps) * periodNs),
    };
  } finally {
    await recorder?.close();
  }
}

/** Options of `runOnRecording`. */
export interface RecordingRunOptions {
  /** A run config with `bus.kind: replay` (its `file` is the recorded episode). */
  run: LoadedRunConfig;
  robot: LoadedRobot;
  policyPath: string;
  policyUrl?: string;
  outDir: string;
  signal?: AbortSignal;
  onEpisode?: (record: EpisodeRecord, index: number) => void;
}

/**
 * `engram run` with a `bus.kind: replay` run config: the episode driver over the recording its
 * `file` names, the policy and planner the config asks for, writing the run folder to `outDir`
 * (no episode MCAP: the recording is not re-recorded). The recording is stepped tick by tick, so
 * `rate` and `as_fast_as_possible` do not apply.
 */
export async function runOnRecording(o: RecordingRunOptions): Promise<RunSummary> {
  const bus = o.run.config.bus;
  if (bus.kind !== "replay") throw new Error(`${o.run.source.file}: runOnRecording needs bus.kind replay, got ${bus.kind}`);
  const rig = await RecordingRig.open(resolve(o.run.dir, bus.file));
  const id = rig.identity;
  const profile = rig.profileAsRecorded(o.robot.profile);
  const c = o.run.config;
  return runEpisodes({
    rig, run: { ...o.run, config: { ...c, control: { ...c.control, control_hz: id.control_hz } } },
    robot: { ...o.robot, profile }, task: getTaskSpec(id.task), policyPath: o.policyPath, policyUrl: o.policyUrl,
    beforeEpisodes: async (policy) => rig.checkCameras(profile, policy.spec.cameras),
    episodes: [id.episode], seed: id.seed - id.episode, outDir: o.outDir, noRecord: true, signal: o.signal,
    onEpisode: o.onEpisode,
  });
}

/**
 * The run config as a replay runs it: the recorded control rate, the annotations as the plan (the
 * oracle-list planner: a recording answers no planner), the bundle's own classifier (a recording
 * feeds no oracle), and no episode MCAP.
 */
function replayConfig(run: LoadedRunConfig, controlHz: number): LoadedRunConfig {
  const c = run.config;
  return {
    ...run,
    config: {
      ...c,
      control: { ...c.control, control_hz: controlHz },
      policy: { ...c.policy, classifier: "learned", planner: { ...c.policy.planner, kind: "oracle-list" } },
      record: { ...c.record, enabled: false },
    },
  };
}
