/**
 * `engram run <run-config> [--policy DIR] [--task ID] [--episodes N] [--seed S] [--out DIR] [--json]`:
 * runs policy episodes on the sim twin and writes the run folder (DESIGN.md §5); `--max-steps N` ends
 * episodes early, `--no-record` skips the episode MCAPs (long evaluations), `--camera-frames all`
 * records the cameras at their full rate (default `tick`: in lock-step only the frames the control
 * ticks read are rendered; the policy sees the same frames either way); `--compression`,
 * `--camera-rate`, `--image-format`, `--jpeg-quality` choose how they are written (recordingFlags.ts). With bus.kind ros2 or
 * sim.enabled false the robot is outside this process (hardware, or `engram sim`): see runRobot.ts
 * for the operator prompts, outcome keys and extra flags. With --json the
 * last line printed is the summary object. SIGINT/SIGTERM: the current episode holds, its MCAP is
 * closed, the summary of the finished episodes is written, and the process exits 0 (a repeated
 * signal within 2 s is the same request; past the 4 s deadline it exits 130, or on a ros2 bus is
 * killed by the watchdog thread when a blocked native call keeps it from exiting). An episode aborted
 * by an error (policy, planner, I/O) holds first and ends the run; one a remote server's fault
 * ended lets the run go on; either way the run exits 1 naming it (runExit.ts), as does an uncaught
 * exception anywhere in the process (the episode holds and the recording closes first, as on
 * SIGINT). A bad flag value exits 2 before anything starts. On a terminal: `r` resumes a latched
 * e-stop, `q` stops like SIGINT.
 */
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { ConfigError, memoryChoiceSchema } from "../config/index.js";
import { loadRunConfig, type LoadedRunConfig } from "../config/loaders.js";
import { readBundleFit } from "../policy/index.js";
import { StopLatch } from "../control/index.js";
import { loadRobotProfile } from "../robot/loadRobotProfile.js";
import { preflightIssues } from "../trial/preflight.js";
import { runSlice, sliceOf } from "../app/runSlice.js";
import { SimWorld } from "../sim/world/SimWorld.js";
import { parseSlice, type SliceSpec } from "../trial/slices.js";
import { runJobs } from "./runJobs.js";
import type { RunSummary } from "../trial/summary.js";
import {
  episodeSeeds, EPISODE_FLAGS, flagChoice, flagInt, flagOptionalInt, flagString, parseCommand, UsageError,
  type CommandSpec, type ParsedArgs,
} from "./args.js";
import { defaultRunDir, exitIfLingering, installFatalHandlers, installRunKeys, installStopSignals } from "./runDir.js";
import { RECORDING_FLAGS, recordingFlags } from "./recordingFlags.js";
import { exitCodeOf, RUN_EXIT_CODES, runFailure } from "./runExit.js";
import { runOnRobot } from "./runRobot.js";
import { watchStartup } from "./startupStop.js";
import { flagTask } from "./taskFlag.js";
import { startView, VIEW_FLAG } from "./viewFlag.js";

/** At most this many `--jobs` worker processes. */
const MAX_JOBS = 64;

/** `engram run` arguments (the robot-only ones are read by runRobot.ts). */
export const spec: CommandSpec = {
  name: "run", args: "<run-config.yaml>", positionals: [1, 1],
  flags: {
    ...EPISODE_FLAGS,
    // The launch files pass `--out=` for "the default folder".
    out: { ...EPISODE_FLAGS.out!, emptyIsDefault: true },
    policy: { type: "string", help: "policy bundle folder (default: the run config's policy.bundle)" },
    task: { type: "string", help: "task id (default: the run config's; `engram sim --help` lists them)" },
    "max-steps": {
      type: "string", help: "end each episode after at most N control steps (default: the task's limit)",
      value: { kind: "int", min: 1, max: 1_000_000 },
    },
    "no-record": { type: "boolean", help: "sim twin: write no episode MCAPs" },
    ...RECORDING_FLAGS,
    "camera-frames": {
      type: "string", help: "sim twin: tick (default: render only the frames the control ticks read) or all (full-rate camera topics)",
      value: { kind: "choice", choices: ["tick", "all"] },
    },
    jobs: {
      type: "string", help: "sim twin: run the episodes in N worker processes", value: { kind: "int", min: 1, max: MAX_JOBS },
    },
    shard: { type: "string", help: "sim twin: run slice i/N of the episodes (merge the shards with `engram merge`)" },
    job: { type: "string", help: "(internal) a --jobs worker's slice i/N" },
    operator: {
      type: "string", help: "robot: who judges episodes: keys (terminal + topic), topic, or sim (the twin's verdict)",
      value: { kind: "choice", choices: ["keys", "topic", "sim"] }, emptyIsDefault: true,
    },
    "policy-url": {
      type: "string", help: "remote policy bundles: the policy server's ws:// or wss:// URL (overrides the bundle's url)",
      emptyIsDefault: true,
    },
    demonstration: {
      type: "string",
      help: "a recorded episode MCAP shown to the policy's memory before each episode (overrides the run config's demonstration)",
    },
    memory: {
      type: "string", help: "the policy's memory strategy (overrides the run config's memory; src/memory/README.md)",
      value: { kind: "choice", choices: ["mem0", "framesamp", "tokendrop", "none", "retrieval"] },
    },
    interference: {
      type: "string", help: "k distractor sessions from the distractor pool before each episode (RoboMME-Interference)",
      value: { kind: "int", min: 0, max: 64 },
    },
    "distractor-pool": { type: "string", help: "the history store --interference draws its distractors from" },
    history: {
      type: "string",
      help: "a history store folder the run appends each demonstration and episode to (overrides the run config's history)",
    },
    instruction: {
      type: "string", help: "robot: the instruction (default: the task's nominal one for the seed)", emptyIsDefault: true,
    },
    "topic-timeout-ms": {
      type: "string", help: "robot: how long to wait for the robot's topics (default 10000)",
      value: { kind: "int", min: 1, max: 3_600_000 },
    },
    ...VIEW_FLAG,
  },
  notes: RUN_EXIT_CODES,
};

/** Entry point of `engram run`: the exit code follows RUN_EXIT_CODES. */
export async function main(args: string[]): Promise<number> {
  const p = parseCommand(spec, args);
  const configPath = p.positional[0]!;
  const loaded = withDemonstrationFlag(loadRunConfig(configPath), flagString(p, "demonstration"));
  const withHistory = withHistoryFlag(loaded, flagString(p, "history"));
  const run = withMemoryFlag(withInterferenceFlags(withHistory, p), p);
  const cfg = run.config;
  const recording = recordingFlags(p);
  const policyFlag = flagString(p, "policy");
  const policyPath = policyFlag ? resolve(policyFlag) : run.bundlePath;
  if (!policyPath) throw new Error(`${configPath}: no policy bundle: set policy.bundle in the run config or pass --policy <bundle>`);
  const policyUrl = flagString(p, "policy-url");
  if (policyUrl && !/^wss?:\/\/\S+$/.test(policyUrl)) {
    throw new UsageError(`--policy-url: expected a ws:// or wss:// URL, found ${JSON.stringify(policyUrl)}`);
  }
  const task = flagTask(p, cfg.task);
  const { episodes, seed } = episodeSeeds(p, { episodes: cfg.episodes, seed: cfg.sim.seed });
  const robot = loadRobotProfile(run.robotPath);
  // Before any bus or sim exists, what `engram check` checks: bundle fits robot, task texts tokenize; exit 1 now.
  const preflight = await preflightIssues({
    run, robot: robot.profile, policyPath, task, seed,
    instruction: onRobotConfig(cfg) ? flagString(p, "instruction") || undefined : undefined,
  });
  if (preflight.length > 0) throw new ConfigError(preflight);
  // The twin's physics engine compiles its code paths in its first steps (seconds that block the main
  // thread): pay that before the run folder exists, so a stop during the start-up after it is seen at once.
  if (!onRobotConfig(cfg)) (await SimWorld.create({ profile: robot.profile, physicsHz: cfg.sim.physics_hz })).dispose();
  const outDir = resolve(flagString(p, "out") ?? cfg.output ?? defaultRunDir(run.root, cfg.name));
  const json = p.flags.has("json");
  // Slices of the run (in-process sim twin only): a shard for this machine, worker processes, a worker's share.
  const shard = flagSlice(p, "shard"), job = flagSlice(p, "job");
  const jobs = Math.min(flagInt(p, "jobs", 1), Math.max(1, sliceOf(episodes, shard).length));
  if (onRobotConfig(cfg) && (shard || job || jobs > 1)) {
    const where = `run config "${cfg.name}" has bus.kind ${cfg.bus.kind}, sim.enabled ${cfg.sim.enabled}`;
    throw new UsageError(`--shard and --jobs run episodes on the in-process sim twin (${where})`);
  }
  if (jobs > 1 && run.historyPath) {
    throw new UsageError(`one process at a time writes the history store ${run.historyPath}: run without --jobs ${jobs}`);
  }
  if (jobs > 1 && p.flags.has("view")) {
    throw new UsageError(`--view shows one process's bus: run without --jobs ${jobs}`);
  }
  const view = await startView(p, robot.profile.name);
  const stop = installStopSignals(4000, 2000, { watchdog: run.config.bus.kind === "ros2" });
  const fatal = installFatalHandlers(stop);
  const onRobot = onRobotConfig(cfg);
  const stops = new StopLatch({ safety: robot.profile.safety });
  // On the in-process sim the terminal is ours; on a robot the operator (runRobot.ts) reads it.
  const keys = onRobot ? { dispose() {} } : installRunKeys({
    resume: () => process.stderr.write(stops.resume("key") ? "[run] e-stop resumed (key r)\n" : "[run] r: no e-stop is latched\n"),
    stop: () => stop.stop("q"),
  });
  if (!onRobot && process.stdin.isTTY) process.stderr.write("[run] keys: r resume a latched e-stop, q stop\n");
  const t0 = performance.now();
  let successes = 0, done = 0;
  const mine = sliceOf(episodes, shard, job).length; // this process's episodes (all, or its slice's)
  let exitNow: number | null = null;
  try {
    // A robot this process does not own (hardware, or `engram sim` as its own process): runRobot.ts.
    let jobsFailure: string | null = null;
    let summary: RunSummary;
    let startupStopped = false;
    if (onRobot) {
      const signal = stop.signal;
      summary = await runOnRobot({
        p, run, robot, policyPath, policyUrl, outDir, episodes, task, seed, signal, tapBus: view?.tap,
      });
    } else if (jobs > 1) {
      const r = await runJobs(args, jobs, outDir, stop.signal);
      summary = r.summary;
      jobsFailure = r.failure;
    } else {
      // Both manifest kinds require `name`, what the loaded policy's spec.name (the summary's policy) is.
      const policy = (readBundleFit(policyPath).manifest as { name?: string }).name ?? policyPath;
      const firstEpisode = sliceOf(episodes, shard, job)[0] ?? 0;
      const startup = watchStartup(stop.signal, { outDir, task, policy, firstEpisode });
      ({ summary, stoppedInStartup: startupStopped } = await startup.race(runSlice({
        run, robot, policyPath, policyUrl, outDir, episodes, shard, job, task, seed,
        wrapPolicy: startup.wrapPolicy,
        tapBus: view?.tap,
        signal: stop.signal,
        stops,
        maxSteps: flagOptionalInt(p, "max-steps"),
        noRecord: p.flags.has("no-record"),
        cameraFrames: flagChoice(p, "camera-frames", "tick"),
        recording,
        onEpisode: (r) => {
          if (r.outcome === "success") successes++;
          done++;
          const elapsed = (performance.now() - t0) / 1000;
          process.stderr.write(`[run] ${progressBar(done, mine)} episode ${done}/${mine} seed ${r.seed}: ${r.outcome} in ${r.steps} steps; ${successes}/${done} successes; ${elapsed.toFixed(1)} s elapsed\n`);
        },
      })));
    }
    process.stderr.write(`[run] wrote ${outDir}\n`);
    process.stdout.write(json ? JSON.stringify(summary) + "\n" : `${summary.task}: ${summary.successes}/${summary.episodes} successes, tick p50 ${summary.tick_ms.p50} ms; run folder ${outDir}\n`);
    const failure = jobsFailure ?? await runFailure(outDir, summary, fatal.error);
    if (failure) process.stderr.write(`[run] ${failure}\n`);
    const code = exitCodeOf(failure);
    // A stop in start-up left the start-up's next blocking step queued: exit (below) before it runs.
    if (startupStopped) exitNow = code;
    else if (summary.aborted || failure) exitIfLingering(code);
    return code;
  } finally {
    await view?.close();
    keys.dispose();
    fatal.dispose();
    stop.dispose();
    if (exitNow !== null) process.exit(exitNow);
  }
}

/** The run config with `--demonstration FILE` as its demonstration (source mcap); the file must exist. */
function withDemonstrationFlag(run: LoadedRunConfig, file: string | undefined): LoadedRunConfig {
  if (file === undefined) return run;
  const path = resolve(file);
  if (!existsSync(path) || !statSync(path).isFile()) throw new UsageError(`--demonstration: no such MCAP file ${path}`);
  return { ...run, config: { ...run.config, demonstration: { source: "mcap", path } }, demonstrationPath: path };
}

/** The run config with `--history DIR` as its history store (created when missing). */
function withHistoryFlag(run: LoadedRunConfig, dir: string | undefined): LoadedRunConfig {
  if (dir === undefined) return run;
  const path = resolve(dir);
  if (existsSync(path) && !statSync(path).isDirectory()) throw new UsageError(`--history: ${path} is not a folder`);
  return { ...run, config: { ...run.config, history: path }, historyPath: path };
}

/** The run config with `--memory STRATEGY` as its memory strategy (the config's other memory fields kept). */
function withMemoryFlag(run: LoadedRunConfig, p: ReturnType<typeof parseCommand>): LoadedRunConfig {
  const strategy = flagString(p, "memory");
  if (strategy === undefined) return run;
  return { ...run, config: { ...run.config, memory: memoryChoiceSchema.parse({ ...run.config.memory, strategy }) } };
}

/** The run config with `--interference K` and `--distractor-pool DIR` over its `interference`. */
function withInterferenceFlags(run: LoadedRunConfig, p: ReturnType<typeof parseCommand>): LoadedRunConfig {
  const k = flagOptionalInt(p, "interference");
  const pool = flagString(p, "distractor-pool");
  if (k === undefined && pool === undefined) return run;
  const base = run.interference;
  const poolPath = pool === undefined ? base?.pool : resolve(pool);
  const kValue = k ?? base?.k;
  if (poolPath === undefined) {
    throw new UsageError("--interference needs a distractor pool: --distractor-pool DIR or interference.pool in the run config");
  }
  if (kValue === undefined) throw new UsageError("--distractor-pool needs --interference K (or interference.k in the run config)");
  const interference = { k: kValue, frames: base?.frames ?? 32, pool: poolPath };
  return { ...run, config: { ...run.config, interference }, interference };
}

/** The robot is outside this process (hardware over ROS 2, or `engram sim` as its own process). */
function onRobotConfig(cfg: { bus: { kind: string }; sim: { enabled: boolean } }): boolean {
  return cfg.bus.kind !== "local" || !cfg.sim.enabled;
}

/** `--shard i/N` / `--job i/N`, or null when absent. */
function flagSlice(p: ParsedArgs, name: string): SliceSpec | null {
  const v = flagString(p, name);
  if (v === undefined) return null;
  try { return parseSlice(v, name); } catch (err) { throw new UsageError((err as Error).message); }
}

function progressBar(done: number, total: number, width = 20): string {
  const filled = Math.round((done / Math.max(1, total)) * width);
  return `[${"#".repeat(filled)}${".".repeat(width - filled)}]`;
}
