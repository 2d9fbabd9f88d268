/**
 * What a run report is drawn from: the summary and episode records, plus the run folder's side
 * files (ticks.jsonl, logits-episode-<i>.json, run.json, events.jsonl). Every side file is
 * optional: a folder without one gets a report without that part, never an error.
 */
import { existsSync, readFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { parse as parseYaml } from "yaml";
import type { EpisodeRecord, RunSummary } from "../summary.js";
import { historySplitsOf, type HistorySplit } from "./historySplits.js";

/** The classifier trace of one episode, as logits-episode-<i>.json holds it. */
export interface EpisodeLogits {
  /** The classifier logit of every control tick, step order. */
  logits: number[];
  /** Steps the policy declared a subtask end at. */
  declared: number[];
  /** Ground-truth subtask-end steps (sim); null on hardware. */
  truth: number[] | null;
  /** The decision threshold on sigmoid(logit), when the policy's manifest names one. */
  threshold?: number | null;
}

/**
 * The side file of episode `episode`'s classifier trace: [name, text] for RunFiles.writeSide.
 * Written for every episode, so the report can plot each one.
 */
export function logitsSideFile(episode: number, l: EpisodeLogits): [string, string] {
  return [`logits-episode-${episode}.json`, JSON.stringify(l)];
}

/**
 * The classifier threshold (on sigmoid(logit)) of the bundle in `bundleDir` (policy.yaml
 * `classifier.threshold`), or null: a remote bundle, the oracle ablation (`classifierKind`), or
 * a manifest that cannot be read (the policy loader has already reported that).
 */
export function classifierThreshold(bundleDir: string, classifierKind: string): number | null {
  if (classifierKind === "oracle") return null;
  try {
    type Manifest = { classifier?: { threshold?: unknown } } | null;
    const m = parseYaml(readFileSync(join(bundleDir, "policy.yaml"), "utf8")) as Manifest;
    const t = m?.classifier?.threshold;
    return typeof t === "number" ? t : null;
  } catch {
    return null;
  }
}

/** One safety event of events.jsonl: a filtered command (`kind` names the limit) or a hold. */
export interface SafetyEvent { episode: number; step: number | null; kind: string }

/** An episode record with its recording (absolute path), when one was kept. */
export type ReportEpisode = EpisodeRecord & { mcapPath: string | null };

/** Everything a report shows about one run. */
export interface ReportRun {
  dir: string;
  /** The run's name in comparisons: the folder's basename. */
  name: string;
  summary: RunSummary;
  episodes: ReportEpisode[];
  /** Busy milliseconds of each tick, per episode (ticks.jsonl), else all ticks as episode -1. */
  ticks: Array<{ episode: number; tickMs: number[] }>;
  /** The control rate of the run (run.json), null when unknown. */
  controlHz: number | null;
  /** "lockstep" / "realtime" (sim twin), "hardware" (no sim), null when run.json is absent. */
  clock: "lockstep" | "realtime" | "hardware" | null;
  /** The planner kind of the run config (scripted, oracle, openai...), null when unknown. */
  plannerKind: string | null;
  /** The classifier of the run config ("learned" or "oracle"), null when unknown. */
  classifierKind: string | null;
  logits: Map<number, EpisodeLogits>;
  safety: SafetyEvent[];
  /** Retrieval's history split per episode (empty when retrieval did not run). */
  historySplits: HistorySplit[];
}

/**
 * The report data of the run in `dir` from a summary and records already in memory (at the end
 * of a run); side files are read from `dir`. `tickMs` is used when ticks.jsonl is absent.
 */
export function reportRunOf(
  dir: string, summary: RunSummary, records: readonly EpisodeRecord[], tickMs: readonly number[],
): ReportRun {
  const mcaps = mcapPaths(dir);
  const config = runConfig(dir);
  const ticks = tickLines(dir);
  return {
    dir, name: basename(resolve(dir)), summary,
    episodes: records.map((r) => ({ ...r, mcapPath: mcaps.get(r.episode) ?? null })),
    ticks: ticks.length > 0 ? ticks : [{ episode: -1, tickMs: [...tickMs] }],
    ...config,
    logits: logitsOf(dir, records.map((r) => r.episode)),
    safety: safetyEvents(dir),
    historySplits: historySplitsOf(jsonLines(join(dir, "events.jsonl"))),
  };
}

/** The report data of a finished run folder: summary.json and episodes.jsonl must exist (named when not). */
export function readReportRun(dir: string): ReportRun {
  const summaryFile = join(dir, "summary.json");
  if (!existsSync(summaryFile)) throw new Error(`report: ${summaryFile} not found: not a finished run folder`);
  const summary = JSON.parse(readFileSync(summaryFile, "utf8")) as RunSummary;
  const records = jsonLines<EpisodeRecord>(join(dir, "episodes.jsonl"));
  return reportRunOf(dir, summary, records, []);
}

function jsonLines<T>(file: string): T[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8").split("\n").flatMap((line, i) => {
    if (line.trim() === "") return [];
    try { return [JSON.parse(line) as T]; } catch (err) {
      throw new Error(`report: ${file} line ${i + 1}: not JSON (${(err as Error).message})`);
    }
  });
}

function mcapPaths(dir: string): Map<number, string> {
  const out = new Map<number, string>();
  type Line = { episode: number; mcap?: string | null; file?: string | null };
  for (const l of jsonLines<Line>(join(dir, "episodes.jsonl"))) {
    const file = l.mcap ?? l.file;
    if (file && existsSync(resolve(dir, file))) out.set(l.episode, resolve(dir, file));
  }
  return out;
}

function tickLines(dir: string): Array<{ episode: number; tickMs: number[] }> {
  return jsonLines<{ episode: number; tick_ms: number[] }>(join(dir, "ticks.jsonl"))
    .map((t) => ({ episode: t.episode, tickMs: t.tick_ms }));
}

interface RunConfigView {
  controlHz: number | null;
  clock: ReportRun["clock"];
  plannerKind: string | null;
  classifierKind: string | null;
}

function runConfig(dir: string): RunConfigView {
  const file = join(dir, "run.json");
  if (!existsSync(file)) return { controlHz: null, clock: null, plannerKind: null, classifierKind: null };
  const c = (JSON.parse(readFileSync(file, "utf8")) as { config?: RunJsonConfig }).config ?? {};
  const sim = c.sim;
  const clock = sim === undefined ? null
    : sim.enabled === false ? "hardware"
    : sim.mode === "realtime" ? "realtime" : "lockstep";
  return {
    controlHz: typeof c.control?.control_hz === "number" ? c.control.control_hz : null,
    clock, plannerKind: c.policy?.planner?.kind ?? null, classifierKind: c.policy?.classifier ?? null,
  };
}

interface RunJsonConfig {
  sim?: { enabled?: boolean; mode?: string };
  control?: { control_hz?: number | null };
  policy?: { planner?: { kind?: string }; classifier?: string };
}

function logitsOf(dir: string, episodes: readonly number[]): Map<number, EpisodeLogits> {
  const out = new Map<number, EpisodeLogits>();
  for (const e of episodes) {
    const file = join(dir, `logits-episode-${e}.json`);
    if (existsSync(file)) out.set(e, JSON.parse(readFileSync(file, "utf8")) as EpisodeLogits);
  }
  return out;
}

function safetyEvents(dir: string): SafetyEvent[] {
  type Line = { event?: string; episode?: number; step?: number; kind?: string; reason?: string };
  return jsonLines<Line>(join(dir, "events.jsonl"))
    .filter((e) => e.event === "safety_intervention" || e.event === "safety_hold")
    .map((e) => ({
      episode: e.episode ?? -1, step: e.step ?? null,
      kind: e.event === "safety_hold" ? "hold" : e.kind ?? "intervention",
    }));
}
