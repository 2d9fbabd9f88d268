/**
 * `engram record`'s engine: N episodes from one teleop source, one MCAP each (EpisodeWriter),
 * `episodes.jsonl` + `recording.json` (episodeIndex), `events.jsonl` (EventLog), a reset phase
 * with a countdown between episodes, operator keys (n save, f fail, r discard and re-record,
 * space pause/hold, q stop) and a progress callback. Sources:
 * - expert: the sim's scripted expert in lock-step; its targets are published as leader commands
 *   (expertSource). Without keys each episode is saved by the sim's verdict; with keys, a key
 *   pressed during the episode decides it (r/q at once), else the operator is asked at its end.
 * - leader: the leader arm forwarded through the SafetyFilter (leaderForwarder), on the sim twin
 *   (real-time) or on hardware (the run config's bus).
 * - keyboard: end-effector jog via IK published as the leader arm (keyboardJog) + the same forwarder.
 * NOTE: over 300 lines: one session loop (reset phase, episode, operator keys, save or discard)
 * serves all three sources; the sources themselves live in record/teleop/ and app/expertSource.ts.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { createBus } from "../bus/index.js";
import { SimClock, WallClock } from "../bus/clock.js";
import { LocalBus } from "../bus/local.js";
import type { Bus } from "../bus/types.js";
import type { LoadedRunConfig } from "../config/loaders.js";
import type { LoadedRobot } from "../robot/loadRobotProfile.js";
import { SimNode } from "../sim/node/SimNode.js";
import type { TaskEpisode, EpisodeTick } from "../sim/node/TaskEpisode.js";
import { getTask } from "../sim/tasks/index.js";
import { EventLog } from "../trial/eventLog.js";
import { ENGRAM_EVENTS } from "../msgs/events.js";
import {
  appendEpisodeIndex, readEpisodeIndex, readRecordingSpec, recordingSpecOf, specDifferences, writeRecordingSpec,
  indexPath, type EpisodeIndexLine,
} from "../record/episodeIndex.js";
import { leanCameraTopics } from "../record/cameraRecording.js";
import {
  ANNOTATIONS_TOPIC, annotationOf, DEFAULT_EPISODE_RECORDING, episodeTopics, EpisodeWriter, type EpisodeIdentity, type EpisodeRecordingOptions,
} from "../record/episodeWriter.js";
import { publishExpertTargets } from "./expertSource.js";
import { ExpertPerturbation, checkPerturbationStd } from "../sim/expert/perturbation.js";
import { KeyboardJog } from "../record/teleop/keyboardJog.js";
import { nextEpisodeKey, type EpisodeKey, type KeySource } from "../record/teleop/keys.js";
import { allJointsLayout, LeaderForwarder } from "../record/teleop/leaderForwarder.js";
import { createOutput } from "../control/index.js";

/** Teleop sources. */
export type TeleopSourceKind = "expert" | "leader" | "keyboard";

/** Options of `recordEpisodes`. */
export interface RecordOptions {
  run: LoadedRunConfig;
  robot: LoadedRobot;
  source: TeleopSourceKind;
  task: string;
  /** Episodes to SAVE in this call (discarded ones are re-recorded). */
  episodes: number;
  /** Episode i (counting across --resume) uses seed + i. */
  seed: number;
  outDir: string;
  /** Continue a run in `outDir` (robot, cameras and rates must match). */
  resume?: boolean;
  /** Render and record cameras (default true). */
  cameras?: boolean;
  /** How the MCAPs are written (default: zstd chunks, every camera frame as published). */
  recording?: EpisodeRecordingOptions;
  /** Cap on control steps per episode (default: the task's step limit in the sim; 3000 on hardware). */
  maxSteps?: number;
  /** Expert source: stationary std, rad, of the DART-style offset on the executed arm joints (0/undefined: none). */
  perturbRad?: number;
  /** Operator keys; null = non-interactive (expert only: saved by the sim's verdict). */
  keys?: KeySource | null;
  /** Reset-phase countdown between episodes, s (default 0 for the expert, 5 otherwise). */
  resetSeconds?: number;
  onProgress?: (p: RecordProgress) => void;
  /** Aborts: the running episode's MCAP is closed (kept, not indexed); no new episode starts. */
  signal?: AbortSignal;
  /** Wraps the session's bus (`--view`: the live view taps it; src/bus/tappedBus.ts). Default: none. */
  tapBus?: (bus: Bus) => Bus;
}

/** What the progress line shows. */
export interface RecordProgress {
  phase: "recording" | "paused" | "reset" | "saved" | "discarded";
  /** 1-based episode being recorded, of `total` to save in this call. */
  episode: number;
  total: number;
  elapsedS: number;
  frames: number;
  dropped: number;
  /** Reset phase: seconds left. */
  countdownS?: number;
  outcome?: string;
}

/** What a record call did. */
export interface RecordResult {
  outDir: string;
  saved: EpisodeIndexLine[];
  discarded: number;
  /** True when `q` or a signal stopped it early. */
  stopped: boolean;
}

type Verdict = Exclude<EpisodeKey, "pause">;

interface Session {
  o: RecordOptions;
  bus: Bus;
  node: SimNode | null;
  events: EventLog;
  controlHz: number;
  periodNs: bigint;
  topics: ReturnType<typeof episodeTopics>;
  forwarder: LeaderForwarder | null;
  onTick: ((tick: EpisodeTick) => void | Promise<void>) | null;
}

/** Records episodes; see the module note. Throws on a bad setup (source/config mismatch, --resume mismatch). */
export async function recordEpisodes(o: RecordOptions): Promise<RecordResult> {
  const cfg = o.run.config, profile = o.robot.profile;
  const controlHz = cfg.control.control_hz ?? profile.control_hz;
  const sim = cfg.sim.enabled;
  if (o.source === "expert" && !(sim && cfg.bus.kind === "local")) {
    throw new Error(`record --source expert drives the in-process sim twin: run config "${cfg.name}" needs sim.enabled: true and bus.kind: local (got sim.enabled=${sim}, bus.kind=${cfg.bus.kind})`);
  }
  if (o.source !== "expert" && !o.keys && !sim) throw new Error(`record --source ${o.source} on hardware needs operator keys (a terminal on stdin) to end episodes`);
  if (o.perturbRad !== undefined) {
    checkPerturbationStd(o.perturbRad, "record --perturb");
    if (o.perturbRad > 0 && o.source !== "expert") throw new Error(`record --perturb applies to --source expert only (got --source ${o.source})`);
  }
  const cameras = o.cameras ?? true;
  const recording = o.recording ?? DEFAULT_EPISODE_RECORDING;
  const spec = recordingSpecOf(profile, controlHz, sim ? cfg.sim.physics_hz : null, cameras, recording.cameras);
  mkdirSync(join(o.outDir, "episodes"), { recursive: true });
  const previous = o.resume ? readEpisodeIndex(o.outDir) : [];
  if (o.resume) {
    const diffs = specDifferences(readRecordingSpec(o.outDir), spec);
    if (diffs.length > 0) throw new Error(`record --resume ${o.outDir}: this run does not match the recording it continues:\n  ${diffs.join("\n  ")}`);
  } else {
    if (readEpisodeIndex(o.outDir).length > 0) throw new Error(`record: ${indexPath(o.outDir)} already lists episodes; pass --resume ${o.outDir} to continue that run, or choose another --out`);
    writeRecordingSpec(o.outDir, spec);
  }

  const lockstep = o.source === "expert";
  const clock = lockstep ? new SimClock(1_700_000_000_000_000_000n) : new WallClock();
  const opened = sim ? new LocalBus({ clock })
    : await createBus(cfg.bus as Parameters<typeof createBus>[0], { root: o.run.dir });
  const bus = o.tapBus ? o.tapBus(opened) : opened;
  const events = new EventLog({ bus, file: join(o.outDir, "events.jsonl"), nowNs: () => bus.clock.nowNs() });
  const commands = createOutput(profile, allJointsLayout(profile), { controlHz }).advertisements;
  const all = episodeTopics(o.robot, commands, { sensors: sim ? "twin" : "drivers", cameras });
  const s: Session = {
    o, bus, node: null, events, controlHz, periodNs: BigInt(Math.round(1e9 / controlHz)), forwarder: null, onTick: null,
    topics: leanCameraTopics(selectTopics(all, cfg.record.topics), profile, recording.cameras),
  };
  const stopSim = new AbortController();
  let simLoop: Promise<void> = Promise.resolve();
  const result: RecordResult = { outDir: o.outDir, saved: [], discarded: 0, stopped: false };
  try {
    if (sim) {
      // With a leader or keyboard source the forwarder drives the arm through the safety filter; the twin must not also follow the raw leader.
      s.node = await SimNode.create({ bus, robot: o.robot, physicsHz: cfg.sim.physics_hz, controlHz, cameras, followLeader: o.source === "expert", onTick: (t) => s.onTick?.(t) });
    }
    if (o.source !== "expert") {
      s.forwarder = new LeaderForwarder({ bus, profile, controlHz, onEvent: (e) => events.emit({ ...e }) });
      if (s.node) { s.node.reset(); simLoop = s.node.runRealtime(stopSim.signal); }
    }
    let index = previous.reduce((m, l) => Math.max(m, l.episode + 1), 0);
    const t0 = performance.now();
    while (result.saved.length < o.episodes && !o.signal?.aborted) {
      if ((result.saved.length + result.discarded > 0 || o.source !== "expert") && await resetPhase(s, result.saved.length + 1, t0) === "quit") { result.stopped = true; break; }
      if (o.signal?.aborted) break;
      const seed = o.seed + index;
      events.episode = index;
      const verdict = await recordOne(s, index, seed, result.saved.length + 1, t0, result);
      if (verdict === "quit") { result.stopped = true; break; }
      if (verdict === "discard") result.discarded++;
      else index++;
    }
    if (o.signal?.aborted) result.stopped = true;
    return result;
  } finally {
    stopSim.abort();
    await simLoop;
    s.forwarder?.close();
    events.close();
    s.node?.close();
    await bus.close();
  }
}

/**
 * The run config's `record.topics` (empty = all): events and annotations are always kept, since
 * replay and export read them. A listed topic the run does not have is an error naming it.
 */
function selectTopics(all: ReturnType<typeof episodeTopics>, wanted: readonly string[]): ReturnType<typeof episodeTopics> {
  if (wanted.length === 0) return all;
  const unknown = wanted.filter((t) => !all.some((a) => a.topic === t));
  if (unknown.length > 0) throw new Error(`record.topics: ${unknown.join(", ")} not used by this run (topics: ${all.map((a) => a.topic).join(", ")})`);
  const always = [ENGRAM_EVENTS.topic, ANNOTATIONS_TOPIC];
  return all.filter((a) => wanted.includes(a.topic) || always.includes(a.topic));
}

/**
 * Between episodes: the operator resets the scene (hardware) while a countdown runs; the sim
 * resets itself. `n` or space skips the rest of the countdown; `q` stops the run.
 */
async function resetPhase(s: Session, k: number, t0: number): Promise<"quit" | null> {
  const seconds = s.o.resetSeconds ?? (s.o.source === "expert" ? 0 : 5);
  let key: EpisodeKey | null = null;
  let wake: () => void = () => undefined;
  const off = s.o.keys?.onKey((p) => { if (p.kind === "episode" && ["save", "pause", "quit"].includes(p.key)) { key = p.key; wake(); } }) ?? (() => undefined);
  try {
    for (let left = seconds; left > 0 && !s.o.signal?.aborted && key === null; left--) {
      s.o.onProgress?.({ phase: "reset", episode: k, total: s.o.episodes, elapsedS: (performance.now() - t0) / 1000, frames: 0, dropped: 0, countdownS: left });
      await new Promise<void>((r) => { const t = setTimeout(r, 1000); wake = () => { clearTimeout(t); r(); }; });
    }
  } finally {
    off();
  }
  return key === "quit" ? "quit" : null;
}

/** Records one episode; returns the operator's (or the sim's) verdict, after saving or discarding it. */
async function recordOne(s: Session, index: number, seed: number, k: number, t0: number, result: RecordResult): Promise<Verdict | "aborted"> {
  const { o, bus, events } = s;
  const task = getTask(o.task);
  const path = join(o.outDir, "episodes", `${index}.mcap`);
  const startNs = bus.clock.nowNs();
  const writer = await EpisodeWriter.start(bus, path, s.topics, o.recording?.compression);
  const episode = s.node ? s.node.reset({ task, seed, expert: o.source === "expert" }) : null;
  const measured = s.node ? Object.fromEntries(s.node.world.jointNames().map((n, i) => [n, s.node!.world.jointPositions()[i]!])) : s.forwarder?.measuredPositions ?? null;
  const identity: EpisodeIdentity = {
    episode: index, robot: o.robot.profile.name, task: task.id, seed, source: o.source, control_hz: s.controlHz,
    physics_hz: s.node ? o.run.config.sim.physics_hz : null, start_ns: startNs.toString(), start_pose: measured ? { ...measured } : null,
  };
  await writer.identify(identity);
  events.emit({ event: "episode_start", task: task.id, seed, source: o.source, instruction: episode?.instruction ?? null, start_ns: startNs, file: `episodes/${index}.mcap` });
  let frames = 0, lastProgress = 0;
  const progress = (phase: RecordProgress["phase"], outcome?: string) => {
    o.onProgress?.({ phase, episode: k, total: o.episodes, elapsedS: (performance.now() - t0) / 1000, frames, dropped: writer.dropped, outcome });
  };
  const tickProgress = (phase: RecordProgress["phase"]) => {
    const now = performance.now();
    if (now - lastProgress > 250) { lastProgress = now; progress(phase); }
  };
  const maxSteps = o.maxSteps ?? episode?.limit ?? 3000;
  let verdict: Verdict | "aborted";
  if (o.source === "expert") {
    const ep = episode!;
    const perturbation = o.perturbRad ? new ExpertPerturbation(o.perturbRad, seed) : undefined;
    publishExpertTargets(ep, bus, o.robot.profile.teleop.leader_topic, s.node!.world.jointNames(), perturbation);
    const published = new Set<number>();
    const annotate = (closeOpen: boolean) => {
      for (const a of ep.expert!.annotations()) {
        const end = a.endStep ?? (closeOpen ? ep.stepCount - 1 : null);
        if (end === null || published.has(a.startStep) || end < a.startStep) continue;
        published.add(a.startStep);
        writer.annotate(annotationOf({ text: a.text, startStep: a.startStep, endStep: end }, startNs, s.controlHz));
      }
    };
    s.onTick = (tick) => { frames = tick.step + 1; annotate(false); tickProgress("recording"); };
    // A verdict key pressed while the expert runs decides the episode (r and q end it at once).
    let early: Verdict | null = null;
    const off = o.keys?.onKey((p) => { if (p.kind === "episode" && p.key !== "pause" && early === null) early = p.key; }) ?? (() => undefined);
    const stepNs = s.node!.world.stepTimeNs(s.node!.physicsStepsPerControl);
    const ends = (v: Verdict | null) => v === "discard" || v === "quit";
    while (!ep.done && frames < maxSteps && !o.signal?.aborted && !ends(early)) await s.node!.advanceBy(stepNs);
    off();
    s.onTick = null;
    annotate(true);
    verdict = o.signal?.aborted ? "aborted" : early ?? (o.keys ? await askVerdict(o.keys, ep) : ep.success ? "save" : "fail");
  } else {
    verdict = await realtimeEpisode(s, episode, maxSteps, (n) => { frames = n; }, tickProgress, startNs);
  }
  const outcome = verdict === "save" ? "success" : "failure";
  events.emit({ event: "episode_end", outcome: verdict === "save" || verdict === "fail" ? outcome : verdict, steps: frames, sim_success: episode?.success ?? null });
  if (verdict === "discard" || verdict === "quit") {
    await writer.discard();
    progress("discarded", verdict);
    return verdict;
  }
  const summary = await writer.finish(outcome);
  if (verdict === "aborted") return verdict;
  const line: EpisodeIndexLine = {
    episode: index, file: `episodes/${index}.mcap`, task: task.id, seed, outcome, source: o.source, steps: frames,
    duration_s: Math.round(frames * 1e6 / s.controlHz) / 1e6, frames, messages: summary.messageCount, dropped: writer.dropped,
    annotations: writer.annotationCount,
    ...(o.perturbRad ? { perturb_rad: o.perturbRad } : {}),
  };
  appendEpisodeIndex(o.outDir, line);
  result.saved.push(line);
  progress("saved", outcome);
  return verdict;
}

/** Expert episodes with keys: the operator confirms (n/f), discards (r) or stops (q) after watching it. */
function askVerdict(keys: KeySource, ep: TaskEpisode): Promise<Verdict> {
  process.stderr.write(`\n[record] episode done (sim says ${ep.success ? "success" : "failure"}): n save, f save as failure, r discard, q stop\n`);
  return nextEpisodeKey(keys, ["save", "fail", "discard", "quit"]) as Promise<Verdict>;
}

/**
 * Leader/keyboard episodes, paced on the bus clock at the control rate: forward the leader (the
 * keyboard publishes as the leader first), until a key ends it, the sim's episode is done (saved by
 * its verdict when there are no keys), `maxSteps`, or a signal.
 */
async function realtimeEpisode(
  s: Session, episode: TaskEpisode | null, maxSteps: number, setFrames: (n: number) => void,
  tickProgress: (phase: RecordProgress["phase"]) => void, startNs: bigint,
): Promise<Verdict | "aborted"> {
  const { o, bus } = s;
  const fwd = s.forwarder!;
  const pending: EpisodeKey[] = [];
  let jog: KeyboardJog | null = null;
  const off = o.keys?.onKey((p) => {
    if (p.kind === "episode") pending.push(p.key);
    else if (p.kind === "jog" && jog) {
      const r = jog.apply(p.jog);
      if (r.kind === "refused") s.events.emit({ event: "jog_refused", reason: r.reason });
    }
  }) ?? (() => undefined);
  try {
    for (let step = 0; ; step++) {
      await bus.clock.sleepUntil(startNs + BigInt(step + 1) * s.periodNs);
      if (o.signal?.aborted) return "aborted";
      if (o.source === "keyboard") {
        if (!jog && fwd.measuredPositions) jog = new KeyboardJog(o.robot.profile, bus, fwd.measuredPositions);
        jog?.publishTargets();
      }
      fwd.tick(bus.clock.nowNs());
      setFrames(step + 1);
      tickProgress(fwd.isPaused ? "paused" : "recording");
      for (const key of pending.splice(0)) {
        if (key === "pause") { fwd.setPaused(!fwd.isPaused); s.events.emit({ event: fwd.isPaused ? "teleop_paused" : "teleop_resumed", step }); continue; }
        return key;
      }
      if (episode?.done && !o.keys) return episode.success ? "save" : "fail";
      if (step + 1 >= maxSteps) {
        if (!o.keys) return episode?.success ? "save" : "fail";
        process.stderr.write(`\n[record] step limit ${maxSteps} reached: n save, f save as failure, r discard, q stop\n`);
        fwd.setPaused(true);
        const key = await nextEpisodeKey(o.keys, ["save", "fail", "discard", "quit"]);
        fwd.setPaused(false);
        return key as Verdict;
      }
    }
  } finally {
    off();
  }
}
