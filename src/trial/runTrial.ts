/**
 * Runs N policy episodes on the sim twin (in-process, lock-step or real-time) and writes the run
 * folder of DESIGN.md §5: episodes/<n>.mcap, events.jsonl, episodes.jsonl, summary.json, report.md.
 */
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SimClock, WallClock } from "../bus/clock.js";
import { LocalBus } from "../bus/local.js";
import { RELIABLE_QOS, type Bus } from "../bus/types.js";
import type { LoadedRunConfig } from "../config/loaders.js";
import { ActionScheduler, createOutput, SafetyFilter, StopLatch, Watchdog, watchedTopics } from "../control/index.js";
import { decode } from "../msgs/codec.js";
import type { ImageSpec } from "../observe/preprocess.js";
import { loadMem0Policy, type Mem0Policy } from "../policy/mem0/Mem0Policy.js";
import { OpenAIPlanner } from "../policy/planner/openai.js";
import { OraclePlanner } from "../policy/planner/oracle.js";
import { ScriptedPlanner } from "../policy/planner/scripted.js";
import type { Planner } from "../policy/planner/types.js";
import { BusRecorder, type RecordedTopicSpec } from "../record/busRecorder.js";
import { getLayout, layoutDim } from "../robot/layout.js";
import type { LoadedRobot } from "../robot/loadRobotProfile.js";
import { SimNode } from "../sim/node/SimNode.js";
import { SIM_SENSOR_QOS } from "../sim/node/sensors.js";
import { getTask } from "../sim/tasks/index.js";
import { EVENTS_QOS, EVENTS_TOPIC, EventLog } from "./eventLog.js";
import { runEpisodeLoop, type EpisodeLoopResult } from "./episodeLoop.js";
import { summarizeRun, type EpisodeRecord, type RunSummary } from "./summary.js";
import { writeReport } from "./report.js";

export interface TrialOptions {
  run: LoadedRunConfig;
  robot: LoadedRobot;
  /** Policy bundle folder (overrides the run config's). */
  policyPath: string;
  task: string;
  episodes: number;
  seed: number;
  outDir: string;
  /** Called after each episode (progress line). */
  onEpisode?: (record: EpisodeRecord, index: number) => void;
  /** Aborts the run: the current episode holds, its recording is closed, no new episode starts. */
  signal?: AbortSignal;
}

/** Runs the trial and returns its summary (also written to `<outDir>/summary.json`). */
export async function runTrial(o: TrialOptions): Promise<RunSummary> {
  const cfg = o.run.config;
  if (!cfg.sim.enabled || cfg.bus.kind !== "local") {
    throw new Error(`runTrial runs the in-process sim twin: run config "${cfg.name}" needs sim.enabled: true and bus.kind: local (got sim.enabled=${cfg.sim.enabled}, bus.kind=${cfg.bus.kind})`);
  }
  const profile = o.robot.profile;
  const task = getTask(o.task);
  const lockstep = cfg.sim.mode === "lockstep";
  const clock = lockstep ? new SimClock(1_700_000_000_000_000_000n) : new WallClock();
  const bus = new LocalBus({ clock });
  mkdirSync(join(o.outDir, "episodes"), { recursive: true });
  const events = new EventLog({ bus, file: join(o.outDir, "events.jsonl"), nowNs: () => clock.nowNs() });

  let policy: Mem0Policy | null = null;
  const node = await SimNode.create({ bus, robot: o.robot, physicsHz: cfg.sim.physics_hz, controlHz: controlHzOf(o) });
  try {
    policy = await loadMem0Policy(o.policyPath, {
      robot: profile,
      ablation: { anchor: cfg.policy.anchor, slidingWindow: cfg.policy.sliding, oracleClassifier: cfg.policy.classifier === "oracle" },
      onEvent: (e) => events.emit(e.kind === "memory" ? { event: "memory", op: e.op, step: e.step } : { event: "classifier_end", ...e }),
    });
    const controlHz = controlHzOf(o);
    const layout = getLayout(profile, policy.spec.layout);
    const imageSpecs = imageSpecsOf(policy);
    const oracleClassifier = cfg.policy.classifier === "oracle";
    const oraclePlanner = cfg.policy.planner.kind === "oracle" ? new OraclePlanner() : null;
    subscribeGroundTruth(bus, policy, oracleClassifier, oraclePlanner);

    let interventions = 0;
    events.onEvent((e) => { if (e.event === "safety_intervention" || e.event === "safety_hold") interventions++; });
    const records: EpisodeRecord[] = [];
    const tickMs: number[] = [];
    let late = 0;
    for (let i = 0; i < o.episodes && !o.signal?.aborted; i++) {
      const seed = o.seed + i;
      events.episode = i;
      const recorder = cfg.record.enabled ? await BusRecorder.start(bus, join(o.outDir, "episodes", `${i}.mcap`), recordedTopics(o.robot, createOutput(profile, layout, { controlHz }).advertisements)) : null;
      interventions = 0;
      const wall0 = performance.now();
      const sim0 = clock.nowNs();
      const episode = node.reset({ task, seed })!;
      const instruction = episode.instruction;
      await policy.reset({ task: task.id, episode: i, seed, instruction });
      if (task.tmc === "M1") policy.setInstruction(instruction);
      events.emit({ event: "episode_start", task: task.id, seed, instruction, policy: policy.spec.name });
      const loop = await runEpisodeLoop({
        bus, profile, layout, policy, imageSpecs, controlHz, realtime: !lockstep,
        pace: lockstep ? (ns) => node.advanceTo(ns) : (ns) => clock.sleepUntil(ns),
        complexity: task.tmc === "M1" ? "M(1)" : "M(n)",
        globalTask: instruction,
        planner: task.tmc === "M1" ? null : plannerFor(cfg.policy.planner, task.subtasks(episode.scene), oraclePlanner),
        keyMemory: cfg.policy.key_memory,
        scheduler: new ActionScheduler({ dim: layoutDim(layout), executeSteps: cfg.control.execute_steps ?? undefined, ensemble: cfg.control.temporal_ensemble ? { decay: 0.1 } : undefined }),
        safety: new SafetyFilter({ profile, layout, controlHz }),
        output: createOutput(profile, layout, { controlHz }),
        stops: new StopLatch({ safety: profile.safety }),
        watchdog: new Watchdog(watchedTopics(profile, policy.spec.cameras)),
        events,
        maxSteps: episode.limit,
        checkEnd: () => (o.signal?.aborted ? { kind: "aborted", reason: "interrupted" } : episode.done ? (episode.success ? { kind: "success" } : { kind: "failure", reason: "step limit" }) : null),
      });
      const record = episodeRecord(i, task.id, seed, loop, episode, task.checkpoints, (performance.now() - wall0) / 1000, Number(clock.nowNs() - sim0) / 1e9, interventions);
      events.emit({ event: "episode_end", outcome: record.outcome, steps: record.steps, reason: loop.end.kind === "success" ? null : loop.end.reason });
      const summary = recorder ? await recorder.stop() : null;
      appendFileSync(join(o.outDir, "episodes.jsonl"), JSON.stringify({ ...record, mcap: summary ? `episodes/${i}.mcap` : null }) + "\n");
      records.push(record);
      for (const t of loop.timings) tickMs.push(t.preprocessMs + t.observeMs + t.actMs + t.publishMs);
      late += loop.lateTicks;
      if (i === 0) writeFileSync(join(o.outDir, "logits-episode-0.json"), JSON.stringify({ logits: loop.logits, declared: loop.declaredEnds, truth: record.true_ends }));
      o.onEpisode?.(record, i);
    }
    const summary = summarizeRun({ task: task.id, policy: policy.spec.name, episodes: records, tickMs, lateTicks: late });
    writeFileSync(join(o.outDir, "summary.json"), JSON.stringify(summary, null, 2) + "\n");
    await writeReport(o.outDir, summary, records, tickMs);
    return summary;
  } finally {
    events.close();
    node.close();
    await bus.close();
  }
}

function controlHzOf(o: TrialOptions): number {
  return o.run.config.control.control_hz ?? o.robot.profile.control_hz;
}

function imageSpecsOf(policy: Mem0Policy): Record<string, ImageSpec> {
  const { width, height } = policy.spec.imageSize;
  const norm = policy.spec.pixelNormalization ?? { mean: [0, 0, 0], std: [1, 1, 1] };
  const spec: ImageSpec = { width, height, mean: norm.mean as ImageSpec["mean"], std: norm.std as ImageSpec["std"] };
  return Object.fromEntries(policy.spec.cameras.map((c) => [c, spec]));
}

function plannerFor(p: LoadedRunConfig["config"]["policy"]["planner"], subtasks: string[], oracle: OraclePlanner | null): Planner | null {
  switch (p.kind) {
    case "none": return null;
    case "scripted": return new ScriptedPlanner(subtasks);
    case "oracle": return oracle;
    case "openai": return new OpenAIPlanner({ url: p.url!, model: p.model!, timeoutMs: p.timeout_ms, retries: p.retries });
  }
}

/** The sim's ground truth feeds the oracle classifier and the oracle planner when configured. */
function subscribeGroundTruth(bus: Bus, policy: Mem0Policy, oracleClassifier: boolean, oraclePlanner: OraclePlanner | null): void {
  if (oracleClassifier) {
    bus.subscribe("/sim/subtask_end", "std_msgs/msg/Bool", RELIABLE_QOS, (cdr) => { if (decode("std_msgs/msg/Bool", cdr).data) policy.setOracleSubtaskEnd(); });
  }
  if (oraclePlanner) {
    bus.subscribe("/sim/subtask", "std_msgs/msg/String", { ...RELIABLE_QOS, durability: "transient_local", depth: 1 }, (cdr) => oraclePlanner.update(decode("std_msgs/msg/String", cdr).data));
  }
}

/** Every topic the run uses: sensors, commands, events, and the sim's ground truth. */
function recordedTopics(robot: LoadedRobot, commands: ReadonlyArray<{ topic: string; type: string }>): RecordedTopicSpec[] {
  const p = robot.profile;
  const out: RecordedTopicSpec[] = [
    { topic: p.joint_state.topic, type: "sensor_msgs/msg/JointState", qos: RELIABLE_QOS },
    ...p.cameras.flatMap((c) => [
      { topic: c.topic, type: c.encoding === "jpeg" ? "sensor_msgs/msg/CompressedImage" : "sensor_msgs/msg/Image", qos: SIM_SENSOR_QOS },
      { topic: c.info_topic, type: "sensor_msgs/msg/CameraInfo", qos: SIM_SENSOR_QOS },
    ]),
    ...commands.map((c) => ({ topic: c.topic, type: c.type, qos: RELIABLE_QOS })),
    { topic: EVENTS_TOPIC, type: "std_msgs/msg/String", qos: EVENTS_QOS },
    { topic: "/sim/subtask_end", type: "std_msgs/msg/Bool", qos: RELIABLE_QOS },
    { topic: "/sim/subtask", type: "std_msgs/msg/String", qos: { ...RELIABLE_QOS, durability: "transient_local", depth: 1 } },
    { topic: "/sim/checkpoints", type: "std_msgs/msg/String", qos: { ...RELIABLE_QOS, durability: "transient_local", depth: 20 } },
    { topic: "/sim/episode", type: "std_msgs/msg/String", qos: { ...RELIABLE_QOS, durability: "transient_local", depth: 1 } },
  ];
  return out;
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

