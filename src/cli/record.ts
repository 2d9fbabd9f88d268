/**
 * `engram record <run-config> [--source expert|leader|keyboard] [--task ID] [--episodes N] [--seed S]
 * [--out DIR] [--resume DIR] [--max-steps N] [--perturb RAD] [--no-cameras] [--compression C] [--camera-rate HZ]
 * [--image-format raw|jpeg] [--jpeg-quality Q] [--keys] [--json]`: records
 * teleop demonstrations, one MCAP per episode + episodes.jsonl (src/app/recordSession.ts).
 * Keys (raw terminal, works over SSH): n save, f save as failure, r discard and re-record, space
 * pause/hold, q stop; jog keys for --source keyboard (w/s, a/d, e/c, g, tab). The expert source
 * runs without keys (saved by the sim's verdict) unless --keys is given. A progress line goes to
 * stderr; with --json the last stdout line is the result object.
 */
import { resolve } from "node:path";
import { loadRunConfig } from "../config/loaders.js";
import { loadRobotProfile } from "../robot/loadRobotProfile.js";
import { terminalKeys, type KeySource } from "../record/teleop/keys.js";
import { recordEpisodes, type RecordProgress, type TeleopSourceKind } from "../app/recordSession.js";
import {
  episodeSeeds, EPISODE_FLAGS, flagChoice, flagNumber, flagOptionalInt, flagString, parseCommand, UsageError,
  type CommandSpec,
} from "./args.js";
import { flagTask } from "./taskFlag.js";
import { RECORDING_FLAGS, recordingFlags } from "./recordingFlags.js";
import { defaultRunDir, installStopSignals } from "./runDir.js";
import { startView, VIEW_FLAG } from "./viewFlag.js";

/** `engram record` arguments. */
export const spec: CommandSpec = {
  name: "record", args: "<run-config.yaml>", positionals: [1, 1],
  flags: {
    ...EPISODE_FLAGS,
    source: {
      type: "string", help: "expert (default), leader or keyboard",
      value: { kind: "choice", choices: ["expert", "leader", "keyboard"] },
    },
    task: { type: "string", help: "task id (default: the run config's)" },
    resume: { type: "string", help: "continue a recording run in this folder" },
    "max-steps": {
      type: "string", help: "end each episode after at most N control steps", value: { kind: "int", min: 1, max: 1_000_000 },
    },
    perturb: {
      type: "string", help: "expert only: std (rad) of a smooth offset the sim executes on the arm joints",
      value: { kind: "number", min: 0, max: 0.3 },
    },
    "no-cameras": { type: "boolean", help: "record no camera topics" },
    ...RECORDING_FLAGS,
    keys: { type: "boolean", help: "read the episode keys (n f r space q) from the terminal with --source expert" },
    ...VIEW_FLAG,
  },
  notes: [
    "exit codes: 0 every requested episode was saved, or a stop (signal, q) closed everything cleanly; 1 an error",
    "(config, sim, disk); 2 a usage error (unknown or repeated flag, bad value); 130 a stop still not done after 4 s,",
    "or a signal more than 2 s after the first.",
  ].join("\n"),
};

/** Entry point of `engram record`; the exit codes are spec.notes'. */
export async function main(args: string[]): Promise<number> {
  const p = parseCommand(spec, args);
  const configPath = p.positional[0]!;
  const source = flagChoice<TeleopSourceKind>(p, "source", "expert");
  // DART-style data: the sim executes the expert's targets plus a smooth offset of this std on the arm joints.
  const perturbRad = flagNumber(p, "perturb", 0);
  if (perturbRad > 0 && source !== "expert") {
    throw new UsageError(`--perturb applies to --source expert only (got --source ${source})`);
  }
  const run = loadRunConfig(configPath);
  const cfg = run.config;
  const robot = loadRobotProfile(run.robotPath);
  const resumeDir = flagString(p, "resume");
  const outDir = resolve(resumeDir ?? flagString(p, "out") ?? cfg.output ?? defaultRunDir(run.root, `record-${cfg.name}`));
  const interactive = source !== "expert" || p.flags.has("keys");
  const keys: KeySource | null = interactive && process.stdin.isTTY ? terminalKeys() : null;
  const maxSteps = flagOptionalInt(p, "max-steps");
  const task = flagTask(p, cfg.task);
  const { episodes, seed } = episodeSeeds(p, { episodes: cfg.episodes, seed: cfg.sim.seed });
  const view = await startView(p, robot.profile.name);
  const stop = installStopSignals();
  const json = p.flags.has("json");
  try {
    const result = await recordEpisodes({
      run, robot, source, outDir, keys, maxSteps, perturbRad,
      task, episodes, seed,
      resume: resumeDir !== undefined,
      cameras: !p.flags.has("no-cameras"),
      recording: recordingFlags(p),
      signal: stop.signal,
      tapBus: view?.tap,
      onProgress: (pr) => process.stderr.write(progressLine(pr)),
    });
    process.stderr.write("\n");
    const ok = result.saved.filter((l) => l.outcome === "success").length;
    process.stdout.write(json
      ? JSON.stringify(result) + "\n"
      : `saved ${result.saved.length} episodes (${ok} success) to ${outDir}${result.discarded ? `, discarded ${result.discarded}` : ""}\n`);
    return 0;
  } finally {
    await view?.close();
    keys?.close();
    stop.dispose();
  }
}

/** One progress line (rewritten in place with \r; saved/discarded lines end with a newline). */
function progressLine(p: RecordProgress): string {
  const head = `[record] episode ${p.episode}/${p.total}`;
  switch (p.phase) {
    case "reset": return `\r${head} reset the scene: starting in ${p.countdownS} s   `;
    case "saved": return `\r${head} saved (${p.outcome}): ${p.frames} frames, ${p.dropped} dropped, ${p.elapsedS.toFixed(1)} s elapsed\n`;
    case "discarded": return `\r${head} discarded (${p.outcome}) after ${p.frames} frames\n`;
    case "recording":
    case "paused": return `\r${head} ${p.phase === "paused" ? "PAUSED " : ""}${p.elapsedS.toFixed(1)} s, ${p.frames} frames, ${p.dropped} dropped   `;
  }
}
