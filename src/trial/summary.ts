import { percentile } from "../observe/stats.js";
import type { CheckpointLabel } from "../task/index.js";

/** Wilson score interval for a binomial proportion (95 % by default). [0, 0] ... for n = 0 it is null. */
export function wilsonInterval(successes: number, n: number, z = 1.959963984540054): [number, number] | null {
  if (n === 0) return null;
  const p = successes / n;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denom;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denom;
  return [round4(Math.max(0, centre - half)), round4(Math.min(1, centre + half))];
}

/** One finished episode, as written to episodes.jsonl. */
export interface EpisodeRecord {
  episode: number;
  task: string;
  seed: number;
  outcome: "success" | "failure" | "aborted";
  steps: number;
  duration_s: number;
  /** Checkpoint id → label and the step it latched; absent when never reached. */
  checkpoints: { id: string; label: CheckpointLabel; step: number }[];
  /** Checkpoints the task defines, so rates can be computed over the ones not reached too. */
  checkpoints_defined: { id: string; label: CheckpointLabel }[];
  /** Declared subtask-end steps and ground-truth ones (sim), for classifier scoring. */
  declared_ends: number[];
  true_ends: number[] | null;
  planner_latencies_ms: number[];
  safety_interventions: number;
  /** Sim seconds per wall second; null on hardware. */
  realtime_factor: number | null;
  /** Per policy camera over a middleware (a robot the run does not own): frames received per second, stale holds. */
  cameras?: Record<string, CameraEpisodeStats>;
  /** Present when the planner's "done" ended a failed episode (its own plan, not the world, ended it). */
  plan_complete?: true;
}

/** One camera in one episode: frames received per second of the episode, holds its stale frames began. */
export interface CameraEpisodeStats { frames_per_s: number | null; stale_holds: number }

/** The run summary of DESIGN.md §5. Fields that do not apply are null, never invented. */
export interface RunSummary {
  task: string;
  policy: string;
  episodes: number;
  successes: number;
  success_rate: number | null;
  wilson95: [number, number] | null;
  checkpoint_rates: { storage: number | null; update: number | null; compression: number | null };
  /**
   * `kind`: the run config's classifier (learned, or oracle: the sim's ground truth) and planner
   * (learned, openai, none, or the oracles oracle-list and oracle); `privileged`: it read the twin's
   * hidden state (an ablation, not the policy). Both null when unknown (a run from before they were recorded).
   */
  classifier: PartKind & { precision: number | null; recall: number | null; mean_offset_steps: number | null };
  planner: PartKind & { calls: number; latency_ms_p50: number | null };
  tick_ms: { p50: number | null; p99: number | null; late: number };
  safety: { interventions: number };
  realtime_factor: number | null;
  /** Why the run stopped before its last episode (an interrupt or an error); null when it ran to the end. */
  aborted: RunAbort | null;
  /** Present when the episodes carry camera stats: per camera, the mean frames/s and stale holds per episode. */
  cameras?: Record<string, { frames_per_s_mean: number | null; stale_holds_per_episode: number }>;
}

/** Which kind of part ran, and whether it was a privileged oracle; null when unknown. */
export interface PartKind { kind: string | null; privileged: boolean | null }

/** The run stopped early: in which episode (0-based) and why. */
export interface RunAbort { episode: number; reason: string; interrupted: boolean }

/** How far (control steps) a declared subtask end may lie from a true one and still count: RMBench's +-5. */
export const MATCH_TOLERANCE_STEPS = 5;

/** The ends one episode got wrong: true ends no declared end matched, declared ends that matched none. */
export interface EndMatch { tp: number; fp: number; fn: number; offsets: number[]; missed: number[]; extra: number[] }

/**
 * Matches declared subtask ends to ground-truth ends: a declared end within `toleranceSteps` of an
 * unmatched true end is a true positive (offset = declared - true). Greedy in time order.
 */
export function matchSubtaskEnds(declared: readonly number[], truth: readonly number[], toleranceSteps = MATCH_TOLERANCE_STEPS): EndMatch {
  const used = new Set<number>();
  const offsets: number[] = [];
  const extra: number[] = [];
  let tp = 0;
  for (const d of declared) {
    let best = -1;
    for (let i = 0; i < truth.length; i++) {
      if (used.has(i) || Math.abs(d - truth[i]!) > toleranceSteps) continue;
      if (best < 0 || Math.abs(d - truth[i]!) < Math.abs(d - truth[best]!)) best = i;
    }
    if (best >= 0) { used.add(best); tp++; offsets.push(d - truth[best]!); } else extra.push(d);
  }
  const missed = truth.filter((_, i) => !used.has(i));
  return { tp, fp: declared.length - tp, fn: truth.length - tp, offsets, missed, extra };
}

/** The fields of an episode record that its classifier's score reads. */
export type ScoredEpisode = Pick<EpisodeRecord, "steps" | "declared_ends" | "true_ends" | "plan_complete">;

/**
 * matchSubtaskEnds over one episode, except that an extra end whose +-tolerance window runs past the
 * episode's last step is not counted: the tick that ends an episode (the confirm press, the lamp lighting)
 * comes before the twin marks the end of the subtask in progress (button released, hands clear), so that
 * end's true counterpart is never recorded. True ends are all scored, and every extra end of an episode the
 * planner's "done" ended (`plan_complete`): there the declared end itself ended it, nothing was cut short.
 */
export function episodeEndMatch(e: ScoredEpisode, toleranceSteps = MATCH_TOLERANCE_STEPS): EndMatch {
  const m = matchSubtaskEnds(e.declared_ends, e.true_ends ?? [], toleranceSteps);
  const extra = e.plan_complete ? m.extra : m.extra.filter((step) => step <= e.steps - 1 - toleranceSteps);
  return { ...m, fp: extra.length, extra };
}

/** Precision, recall and mean offset of the declared subtask ends (episodeEndMatch) over the episodes that have true ends. */
export function classifierScores(
  eps: ReadonlyArray<ScoredEpisode>, toleranceSteps = MATCH_TOLERANCE_STEPS,
): { precision: number | null; recall: number | null; mean_offset_steps: number | null } {
  const scored = eps.filter((e) => e.true_ends !== null);
  let tp = 0, fp = 0, fn = 0;
  const offsets: number[] = [];
  for (const e of scored) {
    const m = episodeEndMatch(e, toleranceSteps);
    tp += m.tp; fp += m.fp; fn += m.fn; offsets.push(...m.offsets);
  }
  return {
    precision: scored.length === 0 || tp + fp === 0 ? null : round4(tp / (tp + fp)),
    recall: scored.length === 0 || tp + fn === 0 ? null : round4(tp / (tp + fn)),
    mean_offset_steps: offsets.length === 0 ? null : round4(offsets.reduce((a, b) => a + b, 0) / offsets.length),
  };
}

/** Builds the run summary from the episode records and per-tick timings. Pure. */
export function summarizeRun(args: {
  task: string;
  policy: string;
  episodes: readonly EpisodeRecord[];
  tickMs: readonly number[];
  lateTicks: number;
  matchToleranceSteps?: number;
  aborted?: RunAbort | null;
  /** The planner and classifier that ran (trialParts.runPartsOf); unknown when absent. */
  parts?: { planner: PartKind; classifier: PartKind };
}): RunSummary {
  const eps = args.episodes;
  const n = eps.length;
  const successes = eps.filter((e) => e.outcome === "success").length;
  const rate = (label: CheckpointLabel): number | null => {
    let defined = 0, reached = 0;
    for (const e of eps) {
      defined += e.checkpoints_defined.filter((c) => c.label === label).length;
      reached += e.checkpoints.filter((c) => c.label === label).length;
    }
    return defined === 0 ? null : round4(reached / defined);
  };
  const latencies = eps.flatMap((e) => e.planner_latencies_ms);
  const rtfs = eps.map((e) => e.realtime_factor).filter((r): r is number => r !== null);
  return {
    task: args.task,
    policy: args.policy,
    episodes: n,
    successes,
    success_rate: n === 0 ? null : round4(successes / n),
    wilson95: wilsonInterval(successes, n),
    checkpoint_rates: { storage: rate("storage"), update: rate("update"), compression: rate("compression") },
    classifier: { ...partOf(args.parts?.classifier), ...classifierScores(eps, args.matchToleranceSteps) },
    planner: {
      ...partOf(args.parts?.planner), calls: latencies.length,
      latency_ms_p50: latencies.length === 0 ? null : percentile(latencies, 0.5),
    },
    tick_ms: {
      p50: args.tickMs.length === 0 ? null : percentile(args.tickMs, 0.5),
      p99: args.tickMs.length === 0 ? null : percentile(args.tickMs, 0.99),
      late: args.lateTicks,
    },
    safety: { interventions: eps.reduce((a, e) => a + e.safety_interventions, 0) },
    realtime_factor: rtfs.length === 0 ? null : round4(rtfs.reduce((a, b) => a + b, 0) / rtfs.length),
    aborted: args.aborted ?? null,
    ...camerasOf(eps),
  };
}

function partOf(p: PartKind | undefined): PartKind {
  return { kind: p?.kind ?? null, privileged: p?.privileged ?? null };
}

/** Per camera over the episodes that report it: mean frames/s, mean stale holds per episode. */
function camerasOf(eps: readonly EpisodeRecord[]): Pick<RunSummary, "cameras"> {
  const byName = new Map<string, CameraEpisodeStats[]>();
  for (const e of eps) {
    for (const [name, s] of Object.entries(e.cameras ?? {})) byName.set(name, [...(byName.get(name) ?? []), s]);
  }
  if (byName.size === 0) return {};
  const mean = (xs: number[]) => (xs.length === 0 ? null : round4(xs.reduce((a, b) => a + b, 0) / xs.length));
  return {
    cameras: Object.fromEntries([...byName].map(([name, stats]) => [name, {
      frames_per_s_mean: mean(stats.map((s) => s.frames_per_s).filter((v): v is number => v !== null)),
      stale_holds_per_episode: mean(stats.map((s) => s.stale_holds)) ?? 0,
    }])),
  };
}

function round4(x: number): number {
  return Math.round(x * 1e4) / 1e4;
}
