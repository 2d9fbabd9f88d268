/**
 * Trials on a robot the trial does not own: hardware drivers over ROS 2, or the sim twin as its
 * own process (`engram sim`); only the bus connects them. Between episodes a judge (the human
 * operator, or the twin asked over the bus) resets the scene to the episode's task and seed;
 * during an episode its verdict ends it; at the step limit the robot holds while the judge decides. Writes the same run folder as runTrial
 * (DESIGN.md §5). Summary fields with no ground truth here (checkpoint rates, classifier against
 * ground truth, real-time factor) are null.
 */
import { RELIABLE_QOS, SENSOR_QOS, type Bus } from "../bus/types.js";
import type { LoadedRunConfig } from "../config/loaders.js";
import { createOutput, StopLatch } from "../control/index.js";
import { codecFor } from "../msgs/codec.js";
import { describeProblems, readJointState } from "../observe/checkJointState.js";
import type { RosTypeMap } from "../msgs/types.js";
import { OraclePlanner } from "../policy/planner/oracle.js";
import { BusRecorder } from "../record/busRecorder.js";
import { identifyRecording, settle } from "../record/episodeWriter.js";
import { getLayout } from "../robot/layout.js";
import type { LoadedRobot } from "../robot/loadRobotProfile.js";
import { getTaskSpec, stepLimit } from "../task/index.js";
import { runEpisodeLoop, type EpisodeEnd } from "./episodeLoop.js";
import { tickBusyMs } from "./tick.js";
import type { OperatorOutcome, TrialJudge } from "./operator.js";
import type { ProgressBar } from "./progress.js";
import { GroundTruthFeed } from "./groundTruth.js";
import { RunFiles } from "./runFiles.js";
import type { EpisodeRecord, RunAbort, RunSummary } from "./summary.js";
import { controlHzOf, runStopReason, episodeParts, imageSpecsOf, interruptReason, loadTrialPolicy, oracleEndsOf, plannerFor, runSecrets, subscribeGroundTruth, type TrialPolicy } from "./trialParts.js";
import { leanCameraTopics } from "../record/cameraRecording.js";
import { DEFAULT_EPISODE_RECORDING, episodeTopics, type EpisodeRecordingOptions } from "../record/episodeWriter.js";
import { complexityOf } from "../policy/planner/gating.js";
import { classifierThreshold, logitsSideFile } from "./report/runData.js";

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
  /** Subtasks in order, for the scripted planner (M(n) tasks). */
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
  const cfg = o.run.config, profile = o.robot.profile, bus = o.bus, clock = bus.clock;
  const task = getTaskSpec(o.task);
  const complexity = complexityOf(task.tmc);
  const controlHz = controlHzOf(cfg, profile);
  const maxSteps = o.maxSteps ?? stepLimit(task, controlHz);
  const secrets = runSecrets(cfg, o.policyPath);
  const files = new RunFiles(o.outDir, bus, () => clock.nowNs(), secrets);
  const events = files.events;
  const joints = latestJointState(bus, profile.joint_state.topic);
  const t0 = performance.now();
  const records: EpisodeRecord[] = [];
  const tickMs: number[] = [];
  let late = 0, step: number | null = null;
  const show = (note?: string, force = false) => o.progress?.update({ done: records.length, total: o.episodes, step, successes: records.filter((r) => r.outcome === "success").length, elapsedS: (performance.now() - t0) / 1000, note }, force);
  const timer = setInterval(() => show(), 1000);
  timer.unref();
  let policy: TrialPolicy | null = null;
  let truth: GroundTruthFeed | null = null;
  try {
    const oracleEnds = oracleEndsOf(cfg);
    policy = await loadTrialPolicy(cfg, profile, o.policyPath, events, oracleEnds, o.policyUrl);
    const threshold = classifierThreshold(o.policyPath, cfg.policy.classifier);
    const layout = getLayout(profile, policy.spec.layout);
    // The sim twin in another process publishes its ground truth: the oracle ablations can use it.
    const oraclePlanner = cfg.sim.enabled && cfg.policy.planner.kind === "oracle" ? new OraclePlanner() : null;
    if (cfg.sim.enabled) subscribeGroundTruth(bus, oracleEnds, oraclePlanner);
    // Scoring from the twin's ground truth when the robot is the sim twin in another process.
    truth = cfg.sim.enabled ? new GroundTruthFeed(bus, BigInt(Math.round(1e9 / controlHz))) : null;
    const holdOutput = createOutput(profile, layout, { controlHz });
    const holdPublishers = new Map(holdOutput.advertisements.map((a) => [a.topic, bus.advertise(a.topic, a.type, RELIABLE_QOS)]));
    const holdRobot = (): void => {
      const measured = joints.positions();
      if (!measured) return;
      for (const out of holdOutput.buildHold(measured, clock.nowNs())) {
        holdPublishers.get(out.topic)!((codecFor(out.type as keyof RosTypeMap) as { encode(m: unknown): Uint8Array }).encode(out.message));
      }
    };
    let interventions = 0;
    events.onEvent((e) => { if (e.event === "safety_intervention" || e.event === "safety_hold") interventions++; });
    // A remote policy's fault ends its episode, not the run (runStopReason).
    let remoteFault = false;
    events.onEvent((e) => { if (e.event === "remote_fault") remoteFault = true; });
    await waitForRobot(bus, o.robot, policy.spec.cameras, o.topicTimeoutMs ?? 10_000, o.signal);

    // One e-stop latch for the whole run: a latched stop outlives its episode until /engram/resume.
    const stops = o.stops ?? new StopLatch({ safety: profile.safety });
    let aborted: RunAbort | null = null;
    let plannerDown = false;
    try {
      for (let i = 0; i < o.episodes && !o.signal?.aborted && !o.judge.stopRequested && !aborted; i++) {
        o.progress?.clear();
        const seed = o.seed + i;
        const reset = o.judge.awaitReset(i, o.episodes, { task: task.id, seed });
        if ((await untilAborted(reset, o.signal, "stop")) === "stop") break;
        events.episode = i;
        const recording = o.recording ?? DEFAULT_EPISODE_RECORDING;
        const sensors = cfg.sim.enabled ? "twin" : "drivers"; // the twin as `engram sim`, else the robot's drivers
        const recorded = episodeTopics(o.robot, holdOutput.advertisements, { sensors });
        const topics = leanCameraTopics(recorded, profile, recording.cameras);
        const rec = files.recording(i);
        const recorder = cfg.record.enabled ? await BusRecorder.start(bus, rec.path, topics, { ...rec.options, compression: recording.compression }) : null;
        // The recording is closed whatever happens in the episode: what it holds stays readable.
        try {
          interventions = 0;
          remoteFault = false;
          const start0 = clock.nowNs();
          await policy.reset({ task: task.id, episode: i, seed, instruction: o.instruction, complexity });
          if (task.tmc === "M1") policy.setInstruction(o.instruction);
          // What `engram replay` needs: task + seed, rates, and where the arm started.
          if (recorder) {
            await identifyRecording(recorder, {
              episode: i, robot: profile.name, task: task.id, seed, source: `policy:${policy.spec.name}`, control_hz: controlHz,
              physics_hz: null, start_ns: clock.nowNs().toString(), start_pose: joints.positions(),
            });
          }
          events.emit({ event: "episode_start", task: task.id, seed, instruction: o.instruction, policy: policy.spec.name, robot: profile.name });
          o.judge.beginEpisode(i);
          truth?.begin(clock.nowNs());
          step = 0;
          show("running", true);
          const loop = await runEpisodeLoop({
            bus, profile, layout, policy, imageSpecs: imageSpecsOf(policy), controlHz, realtime: true, signal: o.signal,
            pace: (ns) => untilAborted(clock.sleepUntil(ns), o.signal, undefined),
            complexity,
            globalTask: o.instruction,
            planner: task.tmc === "M1" ? null : plannerFor(cfg.policy.planner, o.subtasks, oraclePlanner),
            keyMemory: cfg.policy.key_memory,
            ...episodeParts(cfg, profile, layout, policy, controlHz),
            stops, events, maxSteps,
            checkEnd: (k) => {
              step = k + 1;
              if (o.signal?.aborted) return { kind: "aborted", reason: interruptReason(o.signal) };
              return files.writeFailure ? { kind: "aborted", reason: files.writeFailure.message } : endOf(o.judge.verdict);
            },
          });
          holdRobot();
          let end: EpisodeEnd = loop.end;
          if (end.kind === "failure" && o.judge.verdict === null) {
            o.progress?.clear();
            end = endOf(await untilAborted(o.judge.awaitOutcome(i, `step limit ${maxSteps}`), o.signal, "aborted"))!;
          }
          o.judge.endEpisode();
          events.emit({ event: "episode_end", outcome: end.kind, steps: loop.steps, reason: end.kind === "success" ? null : end.reason });
          // Aborted by the loop (error, dead planner) or an interrupt, not by the judge's `a`: the run ends.
          // The operator resets the scene before the next episode, whose reset() waits for a policy server that went away.
          const stopReason = o.judge.verdict === "aborted" ? null : runStopReason(loop.end, plannerDown, remoteFault);
          if (stopReason !== null) aborted = { episode: i, reason: stopReason, interrupted: o.signal?.aborted === true };
          plannerDown = loop.end.kind === "aborted" && loop.end.plannerDown === true;
          const record: EpisodeRecord = {
            episode: i, task: task.id, seed, outcome: end.kind, steps: loop.steps,
            duration_s: Math.round(Number(clock.nowNs() - start0) / 1e6) / 1000,
            checkpoints: truth?.checkpoints ?? [], checkpoints_defined: truth ? task.checkpoints.map((c) => ({ id: c.id, label: c.label })) : [],
            declared_ends: loop.declaredEnds, true_ends: truth ? truth.trueEnds : null,
            planner_latencies_ms: loop.plannerLatenciesMs,
            safety_interventions: interventions,
            realtime_factor: null,
            cameras: Object.fromEntries(loop.cameras.map((c) => [c.name, {
              frames_per_s: c.framesPerS, stale_holds: c.staleHolds,
            }])),
          };
          files.appendEpisode({ ...record, mcap: recorder ? `episodes/${i}.mcap` : null, reason: end.kind === "success" ? null : end.reason });
          records.push(record);
          for (const t of loop.timings) tickMs.push(tickBusyMs(t));
          late += loop.lateTicks;
          files.writeSide(...logitsSideFile(i, { logits: loop.logits, declared: loop.declaredEnds, truth: record.true_ends, threshold }));
          step = null;
          show(end.kind, true);
          o.onEpisode?.(record, i);
        } finally {
          o.judge.endEpisode();
          if (recorder) {
            await settle(bus, topics); // the hold and episode_end published last reach the recording
            await recorder.stop();
          }
        }
      }
    } catch (err) {
      // Outside the loop (which holds and returns on its own errors): policy reset, recording, I/O.
      holdRobot();
      // A recording that failed to write fails again at close: that failure is already logged.
      const reason = err instanceof Error ? err.message : String(err);
      if (err !== files.writeFailure) events.emit({ event: "fault", reason });
      aborted ??= { episode: records.length, reason, interrupted: false };
    }
    if (o.signal?.aborted && !aborted) aborted = { episode: records.length, reason: interruptReason(o.signal), interrupted: true };
    return await files.finish({ task: task.id, policy: policy.spec.name, episodes: records, tickMs, lateTicks: late, aborted });
  } catch (err) {
    throw secrets.redactError(err); // the caller prints it (stderr): a server may have echoed a secret into it
  } finally {
    clearInterval(timer);
    o.progress?.clear();
    joints.close();
    truth?.close();
    await policy?.close(); // before the event log closes: a remote policy logs its disconnect
    files.close();
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

/** Resolves with `p`, or with `onAbort` as soon as `signal` aborts. */
function untilAborted<T>(p: Promise<T>, signal: AbortSignal | undefined, onAbort: T): Promise<T> {
  if (!signal) return p;
  if (signal.aborted) return Promise.resolve(onAbort);
  return new Promise<T>((resolve, reject) => {
    const off = () => resolve(onAbort);
    signal.addEventListener("abort", off, { once: true });
    p.then((v) => { signal.removeEventListener("abort", off); resolve(v); }, (e: unknown) => { signal.removeEventListener("abort", off); reject(e); });
  });
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
        return m.name.length === m.position.length ? Object.fromEntries(m.name.map((n, i) => [n, m.position[i]!])) : null;
      } catch { return null; }
    },
    close: off,
  };
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
