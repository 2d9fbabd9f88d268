/**
 * The one episode driver (DESIGN.md §3): runs a run's episodes on a Rig and writes the run folder of
 * DESIGN.md §5 (episodes/<n>.mcap, events.jsonl, episodes.jsonl, ticks.jsonl, summary.json,
 * report.md). Per episode: the rig's unrecorded reset (an operator), the recorder, the rig's reset
 * (scene set, sensors live), the policy's reset, the recording's identification, the control loop
 * (episodeLoop.ts) ended by the rig's verdict, the rig's final say, the episode record. The rig is
 * the in-process twin (src/app/runTrial.ts), the twin over the bus or a robot (hardwareTrial.ts),
 * or a recording (src/app/replayPolicy.ts).
 * NOTE: a little over 300 lines: one episode's sequence reads top to bottom here; its parts live in
 * trialParts.ts, demonstration.ts and runFiles.ts.
 */
import type { LoadedRunConfig } from "../config/loaders.js";
import { createOutput, StopLatch } from "../control/index.js";
import type { Policy } from "../policy/types.js";
import { OraclePlanner } from "../policy/planner/oracle.js";
import { complexityOf } from "../policy/planner/gating.js";
import type { LearnedPlanner } from "../policy/planner/learned.js";
import { BusRecorder } from "../record/busRecorder.js";
import { leanCameraTopics } from "../record/cameraRecording.js";
import {
  DEFAULT_EPISODE_RECORDING, episodeTopics, identifyRecording, settle, type EpisodeRecordingOptions,
} from "../record/episodeWriter.js";
import { getLayout } from "../robot/layout.js";
import type { LoadedRobot } from "../robot/loadRobotProfile.js";
import {
  DemonstrationPrompt, demonstrationTopics, type DemonstrationInputs, type DemonstrationSource,
} from "./demonstration.js";
import { runEpisodeLoop } from "./episodeLoop.js";
import { mcapDemonstration } from "./mcapDemonstration.js";
import type { ProgressBar } from "./progress.js";
import { classifierThreshold, logitsSideFile } from "./report/runData.js";
import type { EpisodeHandle, Rig, RigTask } from "./rig.js";
import { HistoryTap } from "./historyTap.js";
import { DistractorFeed } from "./interference.js";
import { RunFiles } from "./runFiles.js";
import type { EpisodeRecord, RunAbort, RunSummary } from "./summary.js";
import { tickBusyMs, type EpisodeEnd } from "./tick.js";
import {
  controlHzOf, episodeParts, imageSpecsOf, interruptReason, loadTrialPolicy, openRunPlanner, oracleEndsOf, plannerFor,
  runPartsOf, runSecrets, runStopReason, subscribeGroundTruth, type TrialPolicy,
} from "./trialParts.js";

/** What the driver runs: the rig, the policy bundle, the episodes, and where the files go. */
export interface RunEpisodesOptions {
  rig: Rig;
  run: LoadedRunConfig;
  robot: LoadedRobot;
  task: RigTask;
  /** Policy bundle folder, loaded by the policy registry (any kind: mem0, remote). */
  policyPath: string;
  /** Overrides a remote bundle's server URL (`--policy-url`). */
  policyUrl?: string;
  /** Wraps the loaded policy for the episodes (behaviour added by wrapping). Default: none. */
  wrapPolicy?: (policy: TrialPolicy) => Policy;
  /** The run's episodes, in order: seed = seed + index, MCAP episodes/<index>.mcap. */
  episodes: readonly number[];
  seed: number;
  outDir: string;
  /** Ends each episode after at most this many control steps (default: the rig's step limit). */
  maxSteps?: number;
  /** Writes no episode MCAPs; events and summaries still are. */
  noRecord?: boolean;
  /** How episode MCAPs are written (default: zstd chunks, every camera frame as published). */
  recording?: EpisodeRecordingOptions;
  /** Aborts the run: the current episode holds, its recording is closed, no new episode starts. */
  signal?: AbortSignal;
  /** The run's e-stop latch, shared by its episodes (default: one from the profile's safety section). */
  stops?: StopLatch;
  /**
   * Builds the run's demonstration source once the policy is loaded (the twin's: app/). Default: the
   * run config's `demonstration` when its source is mcap (`run.demonstrationPath`), else none.
   */
  demonstration?: (inputs: DemonstrationInputs) => Promise<DemonstrationSource>;
  /** Runs once the policy is loaded, before the first episode (a robot: wait for its topics). */
  beforeEpisodes?: (policy: TrialPolicy) => Promise<void>;
  /** A progress line, redrawn every second and at each episode's start and end. Default: none. */
  progress?: ProgressBar | null;
  /** Called after each episode. */
  onEpisode?: (record: EpisodeRecord, index: number) => void;
}

/** Runs the episodes and returns the run's summary (also written to `<outDir>/summary.json`). */
export async function runEpisodes(o: RunEpisodesOptions): Promise<RunSummary> {
  const { rig, task } = o;
  const cfg = o.run.config, profile = o.robot.profile, bus = rig.bus, clock = bus.clock;
  const complexity = complexityOf(task.tmc);
  const controlHz = controlHzOf(cfg, profile);
  const secrets = runSecrets(cfg, o.policyPath);
  const files = new RunFiles(o.outDir, bus, () => clock.nowNs(), secrets);
  const events = files.events;
  const records: EpisodeRecord[] = [];
  let step: number | null = null;
  const progress = progressOf(o, records, () => step);
  let policy: TrialPolicy | null = null;
  let learnedPlanner: LearnedPlanner | null = null;
  let history: HistoryTap | null = null;
  let distractors: DistractorFeed | null = null;
  const parts = runPartsOf(cfg);
  try {
    const oracleEnds = oracleEndsOf(cfg);
    const loaded = await loadTrialPolicy(cfg, profile, o.policyPath, events, oracleEnds, o.policyUrl);
    policy = loaded.policy;
    const threshold = classifierThreshold(o.policyPath, cfg.policy.classifier);
    const layout = getLayout(profile, policy.spec.layout);
    const imageSpecs = imageSpecsOf(policy);
    // The twin (in process or over the bus) publishes its ground truth: the oracle ablations can use it.
    learnedPlanner = await openRunPlanner(cfg, task.tmc, o.policyPath);
    const oraclePlanner = rig.groundTruthTopics && cfg.policy.planner.kind === "oracle" ? new OraclePlanner() : null;
    if (rig.groundTruthTopics) subscribeGroundTruth(bus, oracleEnds, oraclePlanner);
    history = o.run.historyPath ? await HistoryTap.open(o.run.historyPath, policy, events) : null;
    distractors = o.run.interference ? await DistractorFeed.open(o.run.interference, policy, task.id) : null;
    const wrapped = o.wrapPolicy ? o.wrapPolicy(policy) : policy;
    const loopPolicy = history ? history.wrap(wrapped) : wrapped;
    const demoSource = await demonstrationOf(o, { profile, layout, imageSpecs });
    const prompt = demoSource && new DemonstrationPrompt(demoSource, bus);
    const holdOutput = createOutput(profile, layout, { controlHz });
    const holdRobot = rig.holder?.(holdOutput) ?? (() => {});
    await o.beforeEpisodes?.(policy);

    // One e-stop latch for the whole run: a latched stop outlives its episode until /engram/resume.
    const stops = o.stops ?? new StopLatch({ safety: profile.safety });
    const tickMs: number[] = [];
    let late = 0;
    let aborted: RunAbort | null = null;
    let plannerDown = false;
    try {
      for (let n = 0; n < o.episodes.length && !o.signal?.aborted && !aborted; n++) {
        const i = o.episodes[n]!;
        const seed = o.seed + i;
        o.progress?.clear();
        if (rig.prepare && (await untilAborted(rig.prepare(task, seed, i), o.signal, false)) === false) break;
        events.episode = i;
        const recording = o.recording ?? DEFAULT_EPISODE_RECORDING;
        const recorded = [
          ...episodeTopics(o.robot, holdOutput.advertisements, { sensors: rig.sensors }),
          ...(prompt ? demonstrationTopics(prompt.source) : []),
        ];
        const topics = leanCameraTopics(recorded, profile, recording.cameras);
        const rec = files.recording(i);
        const recorder = cfg.record.enabled && !o.noRecord
          ? await BusRecorder.start(bus, rec.path, topics, { ...rec.options, compression: recording.compression })
          : null;
        let episode: EpisodeHandle | null = null;
        // The recording is closed whatever happens in the episode (abort, error): what it holds stays readable.
        try {
          const remoteFaults0 = loaded.remoteFaults();
          episode = await rig.reset(task, seed, i);
          const { instruction } = episode;
          await loopPolicy.reset({ task: task.id, episode: i, seed, instruction, complexity });
          if (task.tmc === "M1") loopPolicy.setInstruction(instruction);
          // What `engram replay` and export re-create the scene from (task + seed) and where the arm started.
          if (recorder) {
            await identifyRecording(recorder, {
              episode: i, robot: profile.name, task: task.id, seed, source: `policy:${policy.spec.name}`,
              control_hz: controlHz, physics_hz: episode.physicsHz, start_ns: clock.nowNs().toString(),
              start_pose: episode.startPose(),
            });
          }
          events.emit({
            event: "episode_start", task: task.id, seed, instruction, policy: policy.spec.name, ...parts,
            ...episode.startFields,
          });
          // The prompt goes in with the arm at rest, before the judges start counting.
          await prompt?.feed(loopPolicy, events, task.id, seed, i);
          await distractors?.feed(events, task.id, seed);
          episode.begin();
          step = 0;
          progress.show("running", true);
          const loop = await runEpisodeLoop({
            rig: {
              bus, pacing: rig.pacing,
              verdict: (k) => {
                step = k + 1;
                if (o.signal?.aborted) return { kind: "aborted", reason: interruptReason(o.signal) };
                return files.writeFailure ? { kind: "aborted", reason: files.writeFailure.message } : rig.verdict();
              },
            },
            control: { ...episodeParts(cfg, profile, layout, policy, controlHz), stops },
            policy: { policy: loopPolicy, imageSpecs },
            planning: {
              complexity, globalTask: instruction, keyMemory: cfg.policy.key_memory,
              planner: task.tmc === "M1" ? null
                : plannerFor(cfg.policy.planner, episode.subtasks, oraclePlanner, learnedPlanner),
            },
            events, signal: o.signal, controlHz, maxSteps: o.maxSteps ?? episode.stepLimit,
          });
          holdRobot();
          o.progress?.clear();
          const { end, runGoesOn } = await episode.finish(loop.end);
          const score = episode.score(loop, end);
          const reason = end.kind === "success" ? null : end.reason;
          events.emit({ event: "episode_end", outcome: end.kind, steps: loop.steps, reason });
          // A remote policy's fault ends its episode, not the run (runStopReason).
          const remoteFault = loaded.remoteFaults() > remoteFaults0;
          const stopReason = runGoesOn ? null : runStopReason(loop.end, plannerDown, remoteFault);
          if (stopReason !== null) {
            aborted = { episode: i, reason: stopReason, interrupted: o.signal?.aborted === true };
          }
          plannerDown = loop.end.kind === "aborted" && loop.end.plannerDown === true;
          const record = episodeRecord(i, task.id, seed, end, loop, score);
          files.appendEpisode({ ...record, mcap: recorder ? `episodes/${i}.mcap` : null, ...episode.logFields?.(end) });
          records.push(record);
          for (const t of loop.timings) tickMs.push(tickBusyMs(t));
          late += loop.lateTicks;
          // Per-tick figures (and the late ticks from waiting on the policy, the wait for its first
          // chunk), so `engram merge` recomputes the tick percentiles of merged slices exactly.
          files.appendSide("ticks.jsonl", JSON.stringify({
            episode: i, tick_ms: loop.timings.map(tickBusyMs), late: loop.lateTicks, late_on_policy: loop.lateOnPolicy,
            first_chunk_ms: loop.firstChunk && Math.round(loop.firstChunk.waitMs * 10) / 10,
          }) + "\n");
          files.writeSide(...logitsSideFile(i, {
            logits: loop.logits, declared: loop.declaredEnds, truth: record.true_ends, threshold,
          }));
          step = null;
          progress.show(end.kind, true);
          await history?.endSession();
          o.onEpisode?.(record, i);
        } finally {
          await episode?.close();
          if (recorder) {
            await settle(bus, topics); // the hold and episode_end published last reach the recording
            await recorder.stop();
          }
        }
      }
    } catch (err) {
      // Outside the loop (which holds and returns on its own errors): reset, recording, I/O.
      holdRobot();
      // A recording that failed to write fails again at close: that failure is already logged.
      const reason = err instanceof Error ? err.message : String(err);
      if (err !== files.writeFailure) events.emit({ event: "fault", reason });
      aborted ??= { episode: o.episodes[records.length] ?? records.length, reason, interrupted: false };
    }
    if (o.signal?.aborted && !aborted) {
      const episode = o.episodes[records.length] ?? records.length;
      aborted = { episode, reason: interruptReason(o.signal), interrupted: true };
    }
    return await files.finish({
      task: task.id, policy: policy.spec.name, episodes: records, tickMs, lateTicks: late, aborted, parts,
    });
  } catch (err) {
    throw secrets.redactError(err); // the caller prints it (stderr): a server may have echoed a secret into it
  } finally {
    progress.stop();
    await history?.close();
    distractors?.close();
    await policy?.close(); // before the event log closes: a remote policy logs its disconnect
    await learnedPlanner?.close();
    files.close();
    await rig.close();
  }
}

/** The run's demonstration source: the caller's, else the run config's recorded MCAP, else none. */
async function demonstrationOf(
  o: RunEpisodesOptions, inputs: DemonstrationInputs,
): Promise<DemonstrationSource | null> {
  if (o.demonstration) return o.demonstration(inputs);
  const demo = o.run.config.demonstration;
  if (!demo) return null;
  if (demo.source === "mcap") return mcapDemonstration(o.run.demonstrationPath!, inputs);
  throw new Error(`${o.run.source.file}: demonstration.source ${demo.source} needs the twin in this process `
    + "(bus.kind local, sim.enabled true); name a recorded episode instead (source: mcap)");
}

/** One line of episodes.jsonl: the loop's figures and the rig's score, in the file's field order. */
function episodeRecord(
  i: number, task: string, seed: number, end: EpisodeEnd, loop: Awaited<ReturnType<typeof runEpisodeLoop>>,
  score: ReturnType<EpisodeHandle["score"]>,
): EpisodeRecord {
  return {
    episode: i, task, seed,
    outcome: end.kind,
    steps: loop.steps,
    duration_s: score.duration_s,
    checkpoints: score.checkpoints,
    checkpoints_defined: score.checkpoints_defined,
    declared_ends: loop.declaredEnds,
    true_ends: score.true_ends,
    planner_latencies_ms: loop.plannerLatenciesMs,
    safety_interventions: loop.interventions,
    realtime_factor: score.realtime_factor,
    ...(score.cameras && { cameras: score.cameras }),
    ...(end.kind === "failure" && loop.end.kind === "failure" && loop.end.planComplete
      && { plan_complete: true as const }),
  };
}

/** The progress line's redraws (a no-op without a bar). */
function progressOf(o: RunEpisodesOptions, records: readonly EpisodeRecord[], step: () => number | null): {
  show(note?: string, force?: boolean): void; stop(): void;
} {
  const bar = o.progress;
  if (!bar) return { show() {}, stop() {} };
  const t0 = performance.now();
  const show = (note?: string, force = false): void => bar.update({
    done: records.length, total: o.episodes.length, step: step(),
    successes: records.filter((r) => r.outcome === "success").length, elapsedS: (performance.now() - t0) / 1000, note,
  }, force);
  const timer = setInterval(() => show(), 1000);
  timer.unref();
  return { show, stop: () => { clearInterval(timer); bar.clear(); } };
}

/** Resolves with `p`, or with `onAbort` as soon as `signal` aborts. */
export function untilAborted<T>(p: Promise<T>, signal: AbortSignal | undefined, onAbort: T): Promise<T> {
  if (!signal) return p;
  if (signal.aborted) return Promise.resolve(onAbort);
  return new Promise<T>((resolve, reject) => {
    const off = () => resolve(onAbort);
    signal.addEventListener("abort", off, { once: true });
    p.then(
      (v) => { signal.removeEventListener("abort", off); resolve(v); },
      (e: unknown) => { signal.removeEventListener("abort", off); reject(e); },
    );
  });
}
