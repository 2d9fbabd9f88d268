/**
 * The report's summary table: each metric's value as a person reads it ("2/2 (100 %)") and a
 * sentence on what it counts, shared by report.md and report.html. Pure.
 */
import { PRIVILEGED_PLANNERS } from "../../config/index.js";
import type { CheckpointLabel } from "../../task/index.js";
import { episodeEndMatch, MATCH_TOLERANCE_STEPS } from "../summary.js";
import { splitScores } from "./historySplits.js";
import type { ReportRun } from "./runData.js";

/** One row of the summary table. */
export interface MetricRow { metric: string; value: string; meaning: string }

const pct = (x: number) => `${Math.round(x * 1000) / 10} %`;
const num = (v: number | null | undefined, digits = 1) => (v === null || v === undefined ? "n/a" : v.toFixed(digits));

/** "2/2 (100 %), Wilson 95 % [34.2 %, 100 %]": the success line of a run. */
export function successText(s: ReportRun["summary"]): string {
  if (s.episodes === 0) return "0 episodes";
  const ci = s.wilson95 ? `, Wilson 95 % [${pct(s.wilson95[0])}, ${pct(s.wilson95[1])}]` : "";
  return `${s.successes}/${s.episodes} (${pct(s.successes / s.episodes)})${ci}`;
}

/** The rows of the summary table. */
export function metricRows(run: ReportRun): MetricRow[] {
  const s = run.summary;
  return [
    episodesRow(run),
    { metric: "success rate", value: successText(s),
      meaning: "episodes whose task succeeded; the interval is the Wilson score interval" },
    checkpointRow(run),
    classifierRow(run),
    plannerRow(run),
    tickRow(run),
    { metric: "safety interventions", value: String(s.safety.interventions),
      meaning: "commands the safety filter changed before they reached the robot (a joint or gripper position, "
        + "velocity or rate clamped to its limit), plus holds (a lasting hold counts once), over all episodes" },
    realtimeRow(run),
    ...cameraRows(run),
    ...historySplitRows(run),
  ];
}

/** Retrieval's split of each episode's history against the true session starts (it never reads them). */
function historySplitRows(run: ReportRun): MetricRow[] {
  if (run.historySplits.length === 0) return [];
  const s = splitScores(run.historySplits);
  const whole = s.withDemonstration > 0
    ? `; demonstration retrieved whole ${s.demonstrationWhole}/${s.withDemonstration}` : "";
  return [{
    metric: "retrieval split", value: `boundary precision ${num(s.precision, 2)}, recall ${num(s.recall, 2)}${whole}`,
    meaning: "retrieval's session starts in each episode's history (demonstration, then stored sessions) against the "
      + "true ones, a match within 1 frame, mean over episodes; and episodes whose session retrieved on the first "
      + "tick held the whole demonstration",
  }];
}

/** Per camera over a middleware (a robot the run does not own): what the runtime received of it. */
function cameraRows(run: ReportRun): MetricRow[] {
  return Object.entries(run.summary.cameras ?? {}).map(([name, c]) => ({
    metric: `camera ${name}`, value: `${num(c.frames_per_s_mean)} frames/s, ${num(c.stale_holds_per_episode)} stale holds`,
    meaning: "frames per second the control loop received (mean over episodes) and holds its stale frames began, "
      + "per episode",
  }));
}

function episodesRow(run: ReportRun): MetricRow {
  const count = (o: string) => run.episodes.filter((e) => e.outcome === o).length;
  const a = run.summary.aborted;
  return {
    metric: "episodes", value: String(run.summary.episodes),
    meaning: `${count("success")} success, ${count("failure")} failure (the step limit or the task failed), `
      + `${count("aborted")} aborted (a fault, a stop or an interrupt)`
      + (a ? `; the run stopped in episode ${a.episode}` : ""),
  };
}

function checkpointRow(run: ReportRun): MetricRow {
  const r = run.summary.checkpoint_rates;
  const ids = (label: string) => [...new Set(run.episodes
    .flatMap((e) => e.checkpoints_defined.filter((c) => c.label === label).map((c) => c.id)))];
  const part = (label: CheckpointLabel) => {
    const v = r[label];
    const named = ids(label).join(", ");
    return `${label} ${v === null ? "n/a" : pct(v)}${named ? ` (${named})` : ""}`;
  };
  return {
    metric: "checkpoint rates", value: [part("storage"), part("update"), part("compression")].join("; "),
    meaning: "RMBench's memory checkpoints: the share of the task's checkpoints of each label reached. Storage: the "
      + "state to remember was created; update: a later event the memory must take in happened; compression: the "
      + "goal that needs the remembered state was reached. n/a: the task defines none of that label",
  };
}

function classifierRow(run: ReportRun): MetricRow {
  const c = run.summary.classifier;
  const scored = run.episodes.filter((e) => e.true_ends !== null).map((e) => episodeEndMatch(e, MATCH_TOLERANCE_STEPS));
  const declared = scored.reduce((a, m) => a + m.tp + m.fp, 0);
  const truth = scored.reduce((a, m) => a + m.tp + m.fn, 0);
  const tp = scored.reduce((a, m) => a + m.tp, 0);
  const why: string[] = [];
  if (scored.length === 0) why.push("n/a: no ground-truth subtask ends (hardware), nothing to score against");
  else {
    const within = `within ${MATCH_TOLERANCE_STEPS} steps`;
    why.push(`${tp} of ${declared} declared ends lie ${within} of one of ${truth} true ends (an extra end in an `
      + `episode's last ${MATCH_TOLERANCE_STEPS} steps is not counted: the episode or recording ends before its `
      + "true end can be marked; it does count where the planner's done ended the episode)");
    if (c.precision === null) why.push("precision n/a: the policy declared no end");
    if (c.recall === null) why.push("recall n/a: the task has no true subtask end");
    if (c.mean_offset_steps === null) why.push("mean offset n/a: no declared end matched a true one");
  }
  if (run.classifierKind === "oracle") why.push("the classifier was the sim's oracle (an ablation), not the model");
  return {
    metric: "classifier precision / recall / mean offset",
    value: `${num(c.precision, 2)} / ${num(c.recall, 2)} / ${offsetText(c.mean_offset_steps)}`,
    meaning: `subtask ends the classifier declared, scored against the sim's true ends; ${why.join("; ")}`,
  };
}

function offsetText(steps: number | null): string {
  return steps === null ? "n/a" : `${steps} step${steps === 1 ? "" : "s"}`;
}

function plannerRow(run: ReportRun): MetricRow {
  const p = run.summary.planner;
  const known = run.plannerKind ?? p.kind;
  const oracle = known !== null && PRIVILEGED_PLANNERS.includes(known) ? ", a privileged oracle, not a planner" : "";
  const kind = known ? ` (${known} planner${oracle})` : "";
  return {
    metric: "planner calls / latency p50",
    value: `${p.calls} / ${p.latency_ms_p50 === null ? "n/a" : `${p.latency_ms_p50} ms`}`,
    meaning: p.calls === 0
      ? `the high-level planner${kind} was never called: an M(1) task keeps one instruction, `
        + "or the planner answers without a call"
      : `calls to the high-level planner${kind} for the next subtask, and their median latency`,
  };
}

function tickRow(run: ReportRun): MetricRow {
  const t = run.summary.tick_ms;
  const period = run.controlHz ? 1000 / run.controlHz : null;
  const value = `${num(t.p50)} / ${num(t.p99)} ms, late ${t.late}`;
  const over = period === null ? 0 : run.ticks.reduce((a, e) => a + e.tickMs.filter((ms) => ms > period).length, 0);
  const clock = run.clock === "lockstep"
    ? `The sim ran in lock-step: the twin waits for each tick, so a tick that computes longer than the period `
      + `(${over === 0 ? "none here" : `${over} here`}) slows the run, not the robot, and is never late`
    : run.clock === "realtime" || run.clock === "hardware"
      ? "The clock is real: a tick that finishes after the next tick's time counts as late"
      : "";
  return {
    metric: "tick p50 / p99 / late", value,
    meaning: `busy time of one control tick (observe, act, safety, publish)`
      + `${period === null ? "" : ` against the ${period} ms control period`}; `
      + `late: ticks that finished after the next tick was due. ${clock}`.trim(),
  };
}

function realtimeRow(run: ReportRun): MetricRow {
  const v = run.summary.realtime_factor;
  return {
    metric: "real-time factor", value: v === null ? "n/a" : `${v}x`,
    meaning: v === null
      ? "n/a: on hardware time is real (factor 1 by definition)"
      : "simulated seconds per wall-clock second, mean over episodes: above 1 the run went faster than real time",
  };
}
