/**
 * The index of a recording run: `episodes.jsonl` (one line per SAVED episode) and `recording.json`
 * (what was recorded: robot, cameras, rates), the pair `engram record --resume` checks before it
 * appends more episodes. Plain functions over files; no bus, no sim.
 */
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { RobotProfile } from "../robot/types.js";
import { compressedTopicOf, FULL_CAMERA_RECORDING, type CameraRecording } from "./cameraRecording.js";

/** One saved episode, one line of `episodes.jsonl`. */
export interface EpisodeIndexLine {
  /** Episode number within the run (0-based, continues across --resume). */
  episode: number;
  /** MCAP path relative to the run folder, e.g. `episodes/3.mcap`. */
  file: string;
  task: string;
  seed: number;
  /** Operator's (or the sim's) verdict: `n` → success, `f` → failure. */
  outcome: "success" | "failure";
  /** Teleop source that produced it. */
  source: string;
  /** Control steps recorded. */
  steps: number;
  /** Episode duration (bus time), s. */
  duration_s: number;
  /** Control-rate frames (= steps). */
  frames: number;
  /** Messages written to the MCAP. */
  messages: number;
  /** Messages the bus dropped for the recorder's subscriptions during the episode. */
  dropped: number;
  /** Language annotation segments written. */
  annotations: number;
  /** Expert source with --perturb: std, rad, of the offset on the executed arm joints (the action is the clean target). */
  perturb_rad?: number;
}

/** What a run records; two runs may share a folder only when these match. */
export interface RecordingSpec {
  robot: string;
  joint_state: { topic: string; rate_hz: number };
  cameras: Array<{ name: string; topic: string; encoding: string; rate_hz: number }>;
  control_hz: number;
  /** Sim physics rate, or null on hardware. */
  physics_hz: number | null;
  command_interface: string;
}

/** The RecordingSpec of a profile at the given rates; cameras as `lean` records them (topic, encoding and rate written). */
export function recordingSpecOf(profile: RobotProfile, controlHz: number, physicsHz: number | null, cameras: boolean, lean: CameraRecording = FULL_CAMERA_RECORDING): RecordingSpec {
  const jpeg = lean.format === "jpeg";
  return {
    robot: profile.name,
    joint_state: { ...profile.joint_state },
    cameras: cameras ? profile.cameras.map((c) => ({
      name: c.name,
      topic: jpeg ? compressedTopicOf(c.topic) : c.topic,
      encoding: jpeg ? "jpeg" : c.encoding,
      rate_hz: Math.min(c.rate_hz, lean.rateHz ?? Infinity),
    })) : [],
    control_hz: controlHz,
    physics_hz: physicsHz,
    command_interface: profile.command.interface,
  };
}

/**
 * Every difference between a previous run's spec and this one, as "field: was X, now Y" lines
 * (empty when they match).
 */
export function specDifferences(previous: RecordingSpec, current: RecordingSpec): string[] {
  const out: string[] = [];
  const cmp = (field: string, a: unknown, b: unknown) => {
    const sa = JSON.stringify(a), sb = JSON.stringify(b);
    if (sa !== sb) out.push(`${field}: was ${sa}, now ${sb}`);
  };
  cmp("robot", previous.robot, current.robot);
  cmp("joint_state", previous.joint_state, current.joint_state);
  cmp("control_hz", previous.control_hz, current.control_hz);
  cmp("physics_hz", previous.physics_hz, current.physics_hz);
  cmp("command_interface", previous.command_interface, current.command_interface);
  const names = new Set([...previous.cameras, ...current.cameras].map((c) => c.name));
  for (const n of names) cmp(`cameras.${n}`, previous.cameras.find((c) => c.name === n) ?? null, current.cameras.find((c) => c.name === n) ?? null);
  return out;
}

/** `<dir>/recording.json`. */
function specPath(dir: string): string { return join(dir, "recording.json"); }
/** `<dir>/episodes.jsonl`. */
export function indexPath(dir: string): string { return join(dir, "episodes.jsonl"); }

/** Writes `recording.json`. */
export function writeRecordingSpec(dir: string, spec: RecordingSpec): void {
  writeFileSync(specPath(dir), JSON.stringify(spec, null, 2) + "\n");
}

/** Reads `recording.json`; throws naming the file when missing or not JSON. */
export function readRecordingSpec(dir: string): RecordingSpec {
  const file = specPath(dir);
  if (!existsSync(file)) throw new Error(`${file}: missing: ${dir} is not a recording run folder (engram record writes recording.json)`);
  try {
    return JSON.parse(readFileSync(file, "utf8")) as RecordingSpec;
  } catch (err) {
    throw new Error(`${file}: not valid JSON: ${(err as Error).message}`);
  }
}

/** Appends one line to `episodes.jsonl` (synchronously: a crash after it keeps it). */
export function appendEpisodeIndex(dir: string, line: EpisodeIndexLine): void {
  appendFileSync(indexPath(dir), JSON.stringify(line) + "\n");
}

/** Reads `episodes.jsonl` (empty when absent); a bad line throws naming file and line number. */
export function readEpisodeIndex(dir: string): EpisodeIndexLine[] {
  const file = indexPath(dir);
  if (!existsSync(file)) return [];
  const out: EpisodeIndexLine[] = [];
  readFileSync(file, "utf8").split("\n").forEach((text, i) => {
    if (text.trim() === "") return;
    try {
      out.push(JSON.parse(text) as EpisodeIndexLine);
    } catch (err) {
      throw new Error(`${file}:${i + 1}: not valid JSON: ${(err as Error).message}`);
    }
  });
  return out;
}
