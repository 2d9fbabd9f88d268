/**
 * Runs N policy episodes on the sim twin (in-process, lock-step or real-time) and writes the run
 * folder of DESIGN.md §5: episodes/<n>.mcap, events.jsonl, episodes.jsonl, summary.json, report.md.
 */
import { SimClock, WallClock } from "../bus/clock.js";
import { LocalBus } from "../bus/local.js";
import type { Bus } from "../bus/types.js";
import type { LoadedRunConfig } from "../config/loaders.js";
import { createOutput, StopLatch } from "../control/index.js";
import type { Policy } from "../policy/types.js";
import { OraclePlanner } from "../policy/planner/oracle.js";
import { BusRecorder } from "../record/busRecorder.js";
import { leanCameraTopics } from "../record/cameraRecording.js";
import { DEFAULT_EPISODE_RECORDING, identifyRecording, settle, type EpisodeRecordingOptions } from "../record/episodeWriter.js";
import { getLayout } from "../robot/layout.js";
import type { LoadedRobot } from "../robot/loadRobotProfile.js";
import { SimNode } from "../sim/node/SimNode.js";
import { getTask } from "../sim/tasks/index.js";
import { getTaskSpec } from "../task/index.js";
import { tickBusyMs } from "./tick.js";
import { runEpisodeLoop, type EpisodeLoopResult } from "./episodeLoop.js";
import type { EpisodeRecord, RunAbort, RunSummary } from "./summary.js";
import { RunFiles } from "./runFiles.js";
import { controlHzOf as controlHzOfConfig, runStopReason, episodeParts, imageSpecsOf, interruptReason, loadTrialPolicy, oracleEndsOf, plannerFor, runSecrets, subscribeGroundTruth, type TrialPolicy } from "./trialParts.js";
import { episodeTopics } from "../record/episodeWriter.js";
import { complexityOf } from "../policy/planner/gating.js";
import { classifierThreshold, logitsSideFile } from "./report/runData.js";

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
}

/** Lock-step bus time of a run's start (2023-11-14), ns. */
const RUN_EPOCH_NS = 1_700_000_000_000_000_000n;
/**
 * Lock-step bus time between the starts of consecutive episodes, ns (one hour of sim time, far
 * beyond any task's step limit). Episode i starts at RUN_EPOCH_NS + i·EPISODE_SLOT_NS, whatever ran
 * before it in the process: the runtime reads absolute stamps, which doubles round at ~2e-7 s
 * there, so a start that followed the earlier episodes' lengths made an episode's actions depend
 * on them, and a `--jobs` or `--shard` worker (which runs other episodes before it) diverged from
 * a sequential run (mem0-tiny: 6 of 50 outcomes). ROS time's int32 seconds hold 124,000 such slots.
 */
const EPISODE_SLOT_NS = 3_600_000_000_000n;

/** Runs the trial and returns its summary (also written to `<outDir>/summary.json`). */
export async function runTrial(o: TrialOptions): Promise<RunSummary> {
  const cfg = o.run.config;
  if (!cfg.sim.enabled || cfg.bus.kind !== "local") {
    throw new Error(`runTrial runs the in-process sim twin: run config "${cfg.name}" needs sim.enabled: true and bus.kind: local (got sim.enabled=${cfg.sim.enabled}, bus.kind=${cfg.bus.kind})`);
  }
  const profile = o.robot.profile;
  const task = getTaskSpec(o.task);
  const complexity = complexityOf(task.tmc);
  const lockstep = cfg.sim.mode === "lockstep";
  const clock = lockstep ? new SimClock(RUN_EPOCH_NS) : new WallClock();
  const local = new LocalBus({ clock });
  const bus = o.tapBus ? o.tapBus(local) : local;
  const secrets = runSecrets(cfg, o.policyPath);
  const files = new RunFiles(o.outDir, bus, () => clock.nowNs(), secrets);
  const events = files.events;

  let policy: TrialPolicy | null = null;
  const node = await SimNode.create({ bus, robot: o.robot, physicsHz: cfg.sim.physics_hz, controlHz: controlHzOf(o), cameraFrames: o.cameraFrames ?? "tick" });
  try {
    const oracleEnds = oracleEndsOf(cfg);
    policy = await loadTrialPolicy(cfg, profile, o.policyPath, events, oracleEnds, o.policyUrl);
    const threshold = classifierThreshold(o.policyPath, cfg.policy.classifier);
    const controlHz = controlHzOf(o);
    const layout = getLayout(profile, policy.spec.layout);
    const imageSpecs = imageSpecsOf(policy);
    const oraclePlanner = cfg.policy.planner.kind === "oracle" ? new OraclePlanner() : null;
    subscribeGroundTruth(bus, oracleEnds, oraclePlanner);
    const loopPolicy = o.wrapPolicy ? o.wrapPolicy(policy, node) : policy;

    const stops = o.stops ?? new StopLatch({ safety: profile.safety });
    let interventions = 0;
    events.onEvent((e) => { if (e.event === "safety_intervention" || e.event === "safety_hold") interventions++; });
    // A remote policy's fault ends its episode, not the run (runStopReason).
    let remoteFault = false;
    events.onEvent((e) => { if (e.event === "remote_fault") remoteFault = true; });
    const indices = o.episodeIndices ?? Array.from({ length: o.episodes }, (_, k) => k);
    const records: EpisodeRecord[] = [];
    const tickMs: number[] = [];
    let late = 0;
    let aborted: RunAbort | null = null;
    let plannerDown = false;
    try {
      for (let n = 0; n < indices.length && !o.signal?.aborted && !aborted; n++) {
        const i = indices[n]!;
        const seed = o.seed + i;
        events.episode = i;
        const recording = o.recording ?? DEFAULT_EPISODE_RECORDING;
        const commands = createOutput(profile, layout, { controlHz }).advertisements;
        const recorded = episodeTopics(o.robot, commands, { sensors: "twin" });
        const topics = leanCameraTopics(recorded, profile, recording.cameras);
        const rec = files.recording(i);
        const recorder = cfg.record.enabled && !o.noRecord ? await BusRecorder.start(bus, rec.path, topics, { ...rec.options, compression: recording.compression }) : null;
        const stopSim = new AbortController();
        let simLoop: Promise<void> | null = null;
        let simFailure: Error | null = null;
        // The recording is closed whatever happens in the episode (abort, error): what it holds stays readable.
        try {
          interventions = 0;
          remoteFault = false;
          if (clock instanceof SimClock) {
            // The previous episode's last messages (its final command) are still in the bus's
            // delivery queue: let them arrive in that episode's time, as SimClock lets what a tick
            // published arrive before time moves on, not at the next slot (where the sim rejects a
            // command from an hour ago, logging it, and holds).
            await new Promise<void>((r) => setImmediate(r));
            await new Promise<void>((r) => setImmediate(r));
            const start = RUN_EPOCH_NS + BigInt(i) * EPISODE_SLOT_NS;
            if (clock.nowNs() > start) throw new Error(`episode ${i} would start at bus time ${start} ns, but the run is already at ${clock.nowNs()} ns (an episode ran past ${EPISODE_SLOT_NS / 1_000_000_000n} s of sim time)`);
            await clock.advanceTo(start);
          }
          const wall0 = performance.now();
          const sim0 = clock.nowNs();
          const episode = node.reset({ task: getTask(task.id), seed })!;
          // Real-time mode: the twin steps on the wall clock by itself while the loop runs (lock-step: the loop's pace advances it).
          // A twin that fails ends the episode held (checkEnd), never as an unhandled rejection that would kill the run and its recording.
          simLoop = lockstep ? null : node.runRealtime(stopSim.signal).catch((err: unknown) => { simFailure = err instanceof Error ? err : new Error(String(err)); });
          const instruction = episode.instruction;
          await loopPolicy.reset({ task: task.id, episode: i, seed, instruction, complexity });
          if (task.tmc === "M1") loopPolicy.setInstruction(instruction);
          // What `engram replay` and export re-create the scene from (task + seed) and where the arm started.
          if (recorder) {
            await identifyRecording(recorder, {
              episode: i, robot: profile.name, task: task.id, seed, source: `policy:${policy.spec.name}`, control_hz: controlHz,
              physics_hz: cfg.sim.physics_hz, start_ns: clock.nowNs().toString(),
              start_pose: Object.fromEntries(node.world.jointNames().map((n, j) => [n, node.world.jointPositions()[j]!])),
            });
          }
          events.emit({ event: "episode_start", task: task.id, seed, instruction, policy: policy.spec.name });
          const loop = await runEpisodeLoop({
            bus, profile, layout, policy: loopPolicy, imageSpecs, controlHz, realtime: !lockstep, wallPaced: lockstep && o.wallPaced === true,
            pace: lockstep ? (ns) => node.advanceTo(ns) : (ns) => clock.sleepUntil(ns),
            complexity,
            globalTask: instruction,
            planner: task.tmc === "M1" ? null
              : plannerFor(cfg.policy.planner, episode.task.subtasks(episode.scene), oraclePlanner),
            keyMemory: cfg.policy.key_memory,
            ...episodeParts(cfg, profile, layout, policy, controlHz),
            stops,
            signal: o.signal,
            events,
            maxSteps: Math.min(episode.limit, o.maxSteps ?? Infinity),
            checkEnd: () => (o.signal?.aborted ? { kind: "aborted", reason: interruptReason(o.signal) }
              : files.writeFailure ? { kind: "aborted", reason: files.writeFailure.message }
              : simFailure ? { kind: "aborted", reason: `sim twin (real-time mode) failed: ${(simFailure as Error).message}` }
              : episode.done ? (episode.success ? { kind: "success" } : { kind: "failure", reason: "step limit" }) : null),
          });
          stopSim.abort();
          await simLoop;
          const record = episodeRecord(i, task.id, seed, loop, episode, task.checkpoints, (performance.now() - wall0) / 1000, Number(clock.nowNs() - sim0) / 1e9, interventions);
          events.emit({ event: "episode_end", outcome: record.outcome, steps: record.steps, reason: loop.end.kind === "success" ? null : loop.end.reason });
          const stopReason = runStopReason(loop.end, plannerDown, remoteFault);
          if (stopReason !== null) aborted = { episode: i, reason: stopReason, interrupted: o.signal?.aborted === true };
          plannerDown = loop.end.kind === "aborted" && loop.end.plannerDown === true;
          files.appendEpisode({ ...record, mcap: recorder ? `episodes/${i}.mcap` : null });
          records.push(record);
          for (const t of loop.timings) tickMs.push(tickBusyMs(t));
          late += loop.lateTicks;
          // Per-tick figures (and the late ticks from waiting on the policy, the wait for its first chunk), so `engram merge` recomputes the tick percentiles of merged slices exactly.
          files.appendSide("ticks.jsonl", JSON.stringify({ episode: i, tick_ms: loop.timings.map(tickBusyMs), late: loop.lateTicks, late_on_policy: loop.lateOnPolicy, first_chunk_ms: loop.firstChunk && Math.round(loop.firstChunk.waitMs * 10) / 10 }) + "\n");
          files.writeSide(...logitsSideFile(i, { logits: loop.logits, declared: loop.declaredEnds, truth: record.true_ends, threshold }));
          o.onEpisode?.(record, i);
        } finally {
          stopSim.abort();
          await simLoop;
          if (recorder) {
            await settle(bus, topics); // the hold and episode_end published last reach the recording
            await recorder.stop();
          }
        }
      }
    } catch (err) {
      // Outside the loop (which holds and returns on its own errors): reset, recording, I/O.
      // A recording that failed to write fails again at close: that failure is already logged.
      const reason = err instanceof Error ? err.message : String(err);
      if (err !== files.writeFailure) events.emit({ event: "fault", reason });
      aborted ??= { episode: indices[records.length] ?? records.length, reason, interrupted: false };
    }
    if (o.signal?.aborted && !aborted) aborted = { episode: indices[records.length] ?? records.length, reason: interruptReason(o.signal), interrupted: true };
    return await files.finish({ task: task.id, policy: policy.spec.name, episodes: records, tickMs, lateTicks: late, aborted });
  } catch (err) {
    throw secrets.redactError(err); // the caller prints it (stderr): a server may have echoed a secret into it
  } finally {
    await policy?.close(); // before the event log closes: a remote policy logs its disconnect
    files.close();
    node.close();
    await bus.close();
  }
}


function controlHzOf(o: TrialOptions): number {
  return controlHzOfConfig(o.run.config, o.robot.profile);
}

function episodeRecord(
  i: number, task: string, seed: number, loop: EpisodeLoopResult,
  episode: NonNullable<ReturnType<SimNode["reset"]>>,
  checkpoints: ReadonlyArray<{ id: string; label: "storage" | "update" | "compression" }>,
  wallS: number, simS: number, interventions: number,
): EpisodeRecord {
  return {
    episode: i, task, seed,
    outcome: loop.end.kind,
    steps: loop.steps,
    duration_s: Math.round(simS * 1000) / 1000,
    checkpoints: episode.checkpoints().map((c) => ({ id: c.id, label: c.label, step: c.step })),
    checkpoints_defined: checkpoints.map((c) => ({ id: c.id, label: c.label })),
    declared_ends: loop.declaredEnds,
    true_ends: episode.ends().map((e) => e.step),
    planner_latencies_ms: loop.plannerLatenciesMs,
    safety_interventions: interventions,
    realtime_factor: wallS > 0 ? Math.round((simS / wallS) * 1000) / 1000 : null,
  };
}

