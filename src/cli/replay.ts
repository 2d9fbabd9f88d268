/**
 * `engram replay <episode.mcap> [--config run-config] [--rate F] [--to sim|bus] [--through-policy BUNDLE] [--json]`
 *
 * --to sim (default): the sim twin in-process, lock-step, scene from the recorded task + seed.
 * --to bus: the run config's bus (a robot over ROS 2, or the in-process sim in real time).
 * Both first move to the recorded start pose slowly through the safety filter, then re-send the
 * recorded commands at recorded timing / rate, and print the tracking error (and sim success).
 * --through-policy: instead, runs the policy (any kind: mem0, remote) against the recording with the
 * trial's episode driver and writes `<name>.policy.mcap` and the run folder `<name>.policy/` beside
 * the episode, comparing declared subtask ends with the annotations.
 * Without --config the run config is the launch/*.yaml with the sim enabled for the recorded robot
 * (an in-process one first).
 */
import { readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { loadRunConfig, type LoadedRunConfig } from "../config/loaders.js";
import { identityOf, readMcapMetadata } from "../record/episodeWriter.js";
import { replayEpisode } from "../app/replayCommands.js";
import { replayThroughPolicy } from "../app/replayPolicy.js";
import { loadRobotProfile } from "../robot/loadRobotProfile.js";
import { flagChoice, flagNumber, flagString, parseCommand, UsageError, type CommandSpec } from "./args.js";
import { installStopSignals } from "./runDir.js";
import { startView, VIEW_FLAG } from "./viewFlag.js";

/** `engram replay` arguments. */
export const spec: CommandSpec = {
  name: "replay", args: "<episode.mcap>", positionals: [1, 1],
  flags: {
    config: { type: "string", help: "run config (default: the launch/*.yaml with the sim for the recorded robot)" },
    rate: {
      type: "string", help: "playback rate (default 1)", value: { kind: "number", min: 0, minExclusive: true, max: 100 },
    },
    to: {
      type: "string", help: "sim (default: the in-process twin) or bus (the run config's bus)",
      value: { kind: "choice", choices: ["sim", "bus"] },
    },
    "through-policy": { type: "string", help: "feed the recorded observations through this policy bundle offline instead" },
    json: { type: "boolean", help: "print the result as one JSON object" },
    ...VIEW_FLAG,
  },
  notes: [
    "exit codes: 0 the replay ran (and, in the sim, succeeded); 1 the sim task failed, or an error (file, config,",
    "bus); 2 a usage error (unknown or repeated flag, bad value); 130 a stop still not done after 4 s.",
  ].join("\n"),
};

/** Entry point of `engram replay`; the exit codes are spec.notes'. */
export async function main(args: string[]): Promise<number> {
  const p = parseCommand(spec, args);
  const file = p.positional[0]!;
  const to = flagChoice<"sim" | "bus">(p, "to", "sim");
  const rate = flagNumber(p, "rate", 1);
  const configFlag = flagString(p, "config");
  const run = configFlag ? loadRunConfig(configFlag) : await defaultConfigFor(file);
  const robot = loadRobotProfile(run.robotPath);
  const json = p.flags.has("json");
  const bundle = flagString(p, "through-policy");
  if (bundle && p.flags.has("view")) {
    throw new UsageError("--view shows a replay on a bus; --through-policy runs the policy offline, on no bus");
  }
  if (bundle) {
    const r = await replayThroughPolicy({ run, robot, path: file, bundle: resolve(bundle) });
    if (r.warning) process.stderr.write(`engram replay: warning: ${r.warning}\n`);
    process.stdout.write(json ? JSON.stringify(r) + "\n"
      : `wrote ${r.out}: ${r.steps} steps, ${r.chunks} chunks, declared ends at [${r.declared_ends.join(", ")}] vs annotated [${r.annotated_ends.join(", ")}]: precision ${fmt(r.precision)}, recall ${fmt(r.recall)}, mean offset ${fmt(r.mean_offset_steps)} steps; run folder ${r.run_dir}\n`);
    return 0;
  }
  const view = await startView(p, robot.profile.name);
  const stop = installStopSignals();
  try {
    const r = await replayEpisode({ run, robot, path: file, rate, to, signal: stop.signal, tapBus: view?.tap });
    if (r.warning) process.stderr.write(`engram replay: warning: ${r.warning}\n`);
    if (json) process.stdout.write(JSON.stringify(r) + "\n");
    else {
      const worst = Object.entries(r.tracking.joints).sort((a, b) => b[1].rms - a[1].rms).slice(0, 3).map(([n, e]) => `${n} rms ${e.rms.toFixed(4)} max ${e.max.toFixed(4)}`).join("; ");
      process.stdout.write(`replayed ${r.commands} commands of ${file} (${r.task} seed ${r.seed}) to ${r.to} at rate ${r.rate}: tracking rms ${r.tracking.rmsRad.toFixed(4)} rad, max ${r.tracking.maxRad.toFixed(4)} rad over ${r.tracking.samples} samples (worst: ${worst})${r.sim ? `; sim ${r.sim.success ? "SUCCESS" : "FAILURE"} in ${r.sim.steps} steps` : ""}\n`);
    }
    return r.sim && !r.sim.success ? 1 : 0;
  } finally {
    await view?.close();
    stop.dispose();
  }
}

function fmt(x: number | null): string { return x === null ? "n/a" : x.toFixed(3); }

/** The sim run config under launch/ for the recorded robot. */
async function defaultConfigFor(file: string): Promise<LoadedRunConfig> {
  const id = identityOf(await readMcapMetadata(file));
  if (!id) throw new Error(`${file}: no engram_episode metadata; pass --config <run-config.yaml>`);
  const dir = resolve("launch");
  const found: LoadedRunConfig[] = [];
  for (const name of readdirSync(dir).filter((n) => n.endsWith(".yaml") && !n.includes(".launch.")).sort()) {
    try {
      const run = loadRunConfig(join(dir, name));
      if (run.config.sim.enabled && loadRobotProfile(run.robotPath).profile.name === id.robot) found.push(run);
    } catch { /* not a run config */ }
  }
  // The in-process one first (sim-x-one.yaml before sim-ros2-x-one.yaml).
  const pick = found.find((r) => r.config.bus.kind === "local") ?? found[0];
  if (pick) return pick;
  throw new Error(`${file}: no run config in ${dir} runs the sim for robot "${id.robot}"; pass --config <run-config.yaml>`);
}
