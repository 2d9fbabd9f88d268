/**
 * `engram run` against a robot it does not own (bus.kind ros2: hardware drivers, or `engram sim`
 * as its own process), or a recording (bus.kind replay: the policy replayed against it). Flags beyond run's own: `--instruction TEXT` (default: the task's nominal
 * instruction for the seed), `--max-steps N` (default: the task's time limit), `--operator
 * keys|sim` (keys: the terminal and the /engram/operator topic, the default on hardware; sim: the
 * sim twin's own verdict on /sim/episode, the default when the run config has sim.enabled: true),
 * `--topic-timeout-ms N` (wait for the robot's topics, and with --operator sim for the twin's
 * reply to each episode's reset request on /sim/reset, default 10000). `--operator topic`: only the
 * topic (what the launch files use: `ros2 launch` owns the terminal). Operator prompts are also
 * published on /engram/operator_prompt (std_msgs/msg/String) for an operator on another machine.
 */
import { resolve } from "node:path";
import { RELIABLE_QOS, type Bus } from "../bus/types.js";
import type { LoadedRunConfig } from "../config/loaders.js";
import type { LoadedRobot } from "../robot/loadRobotProfile.js";
import type { RobotProfile } from "../robot/types.js";
import { runOnRecording } from "../app/replayPolicy.js";
import { runHardwareTrial } from "../trial/hardwareTrial.js";
import { recordingFlags } from "./recordingFlags.js";
import { codecFor } from "../msgs/codec.js";
import { mergeInputs, Operator, OPERATOR_PROMPT_TOPIC, OPERATOR_TOPIC, SimJudge, terminalInput, topicInput, type TrialJudge } from "../trial/operator.js";
import { startHeartbeat } from "../trial/heartbeat.js";
import { ProgressBar } from "../trial/progress.js";
import type { RunSummary } from "../trial/summary.js";
import { getTaskSpec, nominalTexts, type TaskTexts } from "../task/index.js";
import { flagChoice, flagInt, flagOptionalInt, flagString, type ParsedArgs } from "./args.js";

/** Options `engram run` has already resolved. */
export interface RobotRunArgs {
  p: ParsedArgs;
  run: LoadedRunConfig;
  robot: LoadedRobot;
  policyPath: string;
  /** Overrides a remote bundle's server URL. */
  policyUrl?: string;
  outDir: string;
  episodes: number;
  task: string;
  seed: number;
  signal: AbortSignal;
  /** Wraps the robot's bus (`--view`: the live view taps it). */
  tapBus?: (bus: Bus) => Bus;
}

/** Opens the run config's bus for a robot trial; only ros2 can reach a robot outside this process. */
async function openBus(run: LoadedRunConfig): Promise<Bus> {
  const b = run.config.bus;
  switch (b.kind) {
    case "ros2": {
      const { Ros2Bus } = await import("../bus/ros2.js");
      // use_sim_time: the config's true wins; otherwise the node parameter ros2 launch passes decides.
      return Ros2Bus.create({ nodeName: b.node_name, domainId: b.domain_id, useSimTime: b.use_sim_time ? true : undefined });
    }
    case "local":
      throw new Error(`${run.source.file}: bus.kind local with sim.enabled false: nothing in this process publishes robot "${run.config.robot}"'s topics; use bus.kind ros2 for hardware or \`engram sim\` in another process`);
    case "replay":
      throw new Error(`${run.source.file}: bus.kind replay runs on its recording (runOnRecording), not on a live bus`);
  }
}

/**
 * The start-up warning of a run on real hardware whose profile names no deadman topic (commands
 * then flow until someone presses the e-stop), or null (a deadman is wired, or the robot is the twin).
 */
export function deadmanWarning(profile: RobotProfile, simEnabled: boolean): string | null {
  if (simEnabled || profile.safety.deadman_topic) return null;
  return `[run] WARNING: NO DEADMAN: ${profile.name}'s profile has no safety.deadman_topic, so commands flow `
    + `until the e-stop (${profile.safety.estop_topic}) is pressed; set safety.deadman_topic to require a held switch`;
}

/** Runs the trial on the robot and returns the summary. */
export async function runOnRobot(a: RobotRunArgs): Promise<RunSummary> {
  const cfg = a.run.config;
  if (cfg.bus.kind === "replay") {
    // The recording is the robot: the episode driver over it (one episode, the recorded one).
    return runOnRecording({
      run: a.run, robot: a.robot, policyPath: a.policyPath, policyUrl: a.policyUrl, outDir: resolve(a.outDir), signal: a.signal,
      onEpisode: (r, i) => process.stderr.write(`[run] episode ${i}: ${r.outcome} in ${r.steps} steps (${r.duration_s} s)\n`),
    });
  }
  const judgeKind = flagChoice(a.p, "operator", cfg.sim.enabled ? "sim" : "keys");
  const opened = await openBus(a.run);
  const bus = a.tapBus ? a.tapBus(opened) : opened;
  let nominal: TaskTexts;
  try { nominal = nominalTexts(getTaskSpec(a.task), a.seed); } catch (err) { await bus.close(); throw err; }
  // An empty --instruction= (a launch argument left at its default) means the task's own.
  const instruction = flagString(a.p, "instruction") ?? nominal.instruction;
  const progress = new ProgressBar();
  const promptCodec = codecFor("std_msgs/msg/String");
  const publishPrompt = bus.advertise(OPERATOR_PROMPT_TOPIC, "std_msgs/msg/String", { ...RELIABLE_QOS, durability: "transient_local", depth: 1 });
  const write = (line: string): void => { progress.clear(); process.stderr.write(line + "\n"); publishPrompt(promptCodec.encode({ data: line })); };
  const term = judgeKind === "keys" ? terminalInput() : null;
  const topic = judgeKind === "sim" ? null : topicInput(bus);
  const topicTimeoutMs = flagInt(a.p, "topic-timeout-ms", 10_000);
  const judge: TrialJudge & { close?(): void } = judgeKind === "sim"
    ? new SimJudge(bus, { write, resetTimeoutMs: topicTimeoutMs })
    : new Operator(term ? mergeInputs(term, topic!) : topic!, { write });
  const judgeText = judgeKind === "sim"
    ? "the sim twin (each episode's scene asked on /sim/reset, verdict on /sim/episode)"
    : `the operator (${judgeKind === "keys" ? "keys here, or " : ""}`
      + `\`ros2 topic pub --once ${OPERATOR_TOPIC} std_msgs/msg/String "{data: s}"\`)`;
  const heartbeat = startHeartbeat(bus);
  write(`[run] ${a.robot.profile.name} on the ${cfg.bus.kind} bus, ${a.episodes} episode(s) of ${a.task}, judged by ${judgeText}; instruction: ${instruction}`);
  const noDeadman = deadmanWarning(a.robot.profile, cfg.sim.enabled);
  if (noDeadman) write(noDeadman);
  try {
    return await runHardwareTrial({
      run: a.run, robot: a.robot, policyPath: a.policyPath, policyUrl: a.policyUrl, task: a.task, instruction, subtasks: nominal.subtasks,
      episodes: a.episodes, seed: a.seed, outDir: resolve(a.outDir), bus, judge, progress, signal: a.signal,
      maxSteps: flagOptionalInt(a.p, "max-steps"),
      recording: recordingFlags(a.p),
      topicTimeoutMs,
      onEpisode: (r, i) => write(`[run] episode ${i + 1}/${a.episodes}: ${r.outcome} in ${r.steps} steps (${r.duration_s} s)`),
    });
  } finally {
    heartbeat.stop();
    term?.close();
    topic?.close();
    judge.close?.();
    await bus.close();
  }
}
