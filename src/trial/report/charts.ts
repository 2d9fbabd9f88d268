/**
 * The report's plots as Vega-Lite specs (pure: data in, spec out). Each has titled axes with
 * units, a legend for every colour, and episodes labelled by index, seed and outcome.
 */
import type { TopLevelSpec } from "vega-lite";
import type { EpisodeLogits, ReportEpisode, ReportRun } from "./runData.js";

const WIDTH = 560;
const HEIGHT = 200;
/** Outcome colours, fixed so that every plot and run uses the same ones. */
const OUTCOME_COLOURS = { success: "#2a9d2a", failure: "#c83232", aborted: "#8c8c8c" } as const;

/** "ep 0 · seed 1000 · success": how every plot names an episode. */
export function episodeLabel(e: Pick<ReportEpisode, "episode" | "seed" | "outcome">): string {
  return `ep ${e.episode} · seed ${e.seed} · ${e.outcome}`;
}

/** The logit at which sigmoid(logit) equals `p` (the classifier's decision threshold on the logit axis). */
export function logitOf(p: number): number {
  return Math.log(p / (1 - p));
}

function base(title: string, subtitle?: string): Record<string, unknown> {
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title: subtitle ? { text: title, subtitle } : title,
    width: WIDTH, height: HEIGHT,
    config: {
      font: "DejaVu Sans, sans-serif", background: "white",
      axis: { labelLimit: 320 }, legend: { labelLimit: 320 },
    },
  };
}

/** Data of a layer drawn once from `datum` encodings (a layer without data draws nothing). */
const ONE_ROW = { values: [{}] };

const outcomeScale = {
  domain: Object.keys(OUTCOME_COLOURS),
  range: Object.values(OUTCOME_COLOURS),
};

/** Steps per episode, coloured by outcome. */
export function outcomesSpec(run: ReportRun): TopLevelSpec {
  const values = run.episodes.map((e) => ({ label: episodeLabel(e), steps: e.steps, outcome: e.outcome }));
  return {
    ...base("Outcome per episode", "bar length: control steps the episode ran"),
    data: { values },
    layer: [
      {
        mark: { type: "bar" },
        encoding: {
          y: { field: "label", type: "nominal", title: "episode", sort: null },
          x: { field: "steps", type: "quantitative", title: "steps (control ticks)" },
          color: { field: "outcome", type: "nominal", title: "outcome", scale: outcomeScale },
        },
      },
      {
        mark: { type: "text", align: "left", dx: 4 },
        encoding: {
          y: { field: "label", type: "nominal", sort: null },
          x: { field: "steps", type: "quantitative" },
          text: { field: "steps", type: "quantitative" },
        },
      },
    ],
  } as TopLevelSpec;
}

function tickRows(run: ReportRun): Array<{ episode: string; step: number; ms: number }> {
  const byIndex = new Map(run.episodes.map((e) => [e.episode, e]));
  return run.ticks.flatMap((t) => {
    const e = byIndex.get(t.episode);
    const label = e ? episodeLabel(e) : "all ticks";
    return t.tickMs.map((ms, step) => ({ episode: label, step, ms: Math.round(ms * 1000) / 1000 }));
  });
}

function periodRule(periodMs: number, axis: "x" | "y"): object[] {
  const text = `control period ${periodMs} ms`;
  return [
    { data: ONE_ROW, mark: { type: "rule", color: "#d62728", strokeDash: [6, 3], strokeWidth: 1.5 },
      encoding: { [axis]: { datum: periodMs, type: "quantitative" } } },
    { data: ONE_ROW, mark: axis === "y"
      ? { type: "text", color: "#d62728", align: "right", baseline: "bottom", dy: -2, x: "width" }
      : { type: "text", color: "#d62728", align: "left", baseline: "top", dx: 3, y: 0 },
    encoding: { [axis]: { datum: periodMs, type: "quantitative" }, text: { value: text } } },
  ];
}

/** Tick compute time per control step, one line per episode, with the control period marked. */
export function tickTimelineSpec(run: ReportRun): TopLevelSpec {
  const periodMs = run.controlHz ? Math.round(1e5 / run.controlHz) / 100 : null;
  return {
    ...base("Tick compute time per step",
      periodMs === null ? undefined : `dashed: the control period (${periodMs} ms)`),
    layer: [
      {
        data: { values: tickRows(run) },
        mark: { type: "line", strokeWidth: 1 },
        encoding: {
          x: { field: "step", type: "quantitative", title: "control step" },
          y: { field: "ms", type: "quantitative", title: "tick compute time (ms)" },
          color: { field: "episode", type: "nominal", title: "episode", sort: null },
        },
      },
      ...(periodMs === null ? [] : periodRule(periodMs, "y")),
    ],
  } as TopLevelSpec;
}

/** Histogram of tick compute times over the run, with the control period marked. */
export function tickHistogramSpec(run: ReportRun): TopLevelSpec {
  const periodMs = run.controlHz ? Math.round(1e5 / run.controlHz) / 100 : null;
  const rows = tickRows(run);
  return {
    ...base("Tick compute time, all ticks", `${rows.length} ticks; count per 5 ms bin`),
    layer: [
      {
        data: { values: rows },
        mark: { type: "bar" },
        encoding: {
          x: { field: "ms", type: "quantitative", bin: { step: 5 }, title: "tick compute time (ms)" },
          y: { aggregate: "count", type: "quantitative", title: "ticks" },
          color: { field: "episode", type: "nominal", title: "episode", sort: null },
        },
      },
      ...(periodMs === null ? [] : periodRule(periodMs, "x")),
    ],
  } as TopLevelSpec;
}

/** Episode `e`'s classifier logit per step, with the threshold and the declared and true subtask ends. */
export function classifierSpec(e: ReportEpisode, l: EpisodeLogits): TopLevelSpec {
  const marks = [
    ...l.declared.map((step) => ({ step, what: "declared end" })),
    ...(l.truth ?? []).map((step) => ({ step, what: "true end (sim)" })),
  ];
  const threshold = typeof l.threshold === "number" && l.threshold > 0 && l.threshold < 1 ? l.threshold : null;
  const domain = ["logit", "declared end", "true end (sim)"];
  const colour = {
    field: "what", type: "nominal", title: "line", scale: { domain, range: ["#222222", "#1f5fd0", "#e08a00"] },
  };
  const dash = { field: "what", type: "nominal", title: "line", scale: { domain, range: [[1, 0], [1, 0], [6, 3]] } };
  const layers: object[] = [
    {
      data: { values: l.logits.map((logit, step) => ({ step, logit, what: "logit" })) },
      mark: { type: "line", strokeWidth: 1.2 },
      encoding: {
        x: { field: "step", type: "quantitative", title: "control step" },
        y: { field: "logit", type: "quantitative", title: "classifier logit" },
        color: colour, strokeDash: dash,
      },
    },
  ];
  if (marks.length > 0) {
    layers.push({
      data: { values: marks },
      mark: { type: "rule", strokeWidth: 2 },
      encoding: { x: { field: "step", type: "quantitative" }, color: colour, strokeDash: dash },
    });
  }
  if (threshold !== null) {
    const y = Math.round(logitOf(threshold) * 1000) / 1000;
    const label = `threshold σ(logit) = ${threshold} (logit ${y})`;
    layers.push(
      { data: ONE_ROW, mark: { type: "rule", color: "#666", strokeDash: [4, 4] },
        encoding: { y: { datum: y, type: "quantitative" } } },
      { data: ONE_ROW, mark: { type: "text", color: "#444", align: "left", baseline: "bottom", x: 2, dy: -2 },
        encoding: { y: { datum: y, type: "quantitative" }, text: { value: label } } },
    );
  }
  return {
    ...base(`Classifier, ${episodeLabel(e)}`, "a subtask end is declared after enough ticks above the threshold"),
    layer: layers,
  } as TopLevelSpec;
}

/** Share of episodes reaching each checkpoint the task defines, labelled by its RMBench label. */
export function checkpointsSpec(run: ReportRun): TopLevelSpec | null {
  const defined = new Map<string, string>();
  for (const e of run.episodes) for (const c of e.checkpoints_defined) defined.set(c.id, c.label);
  if (defined.size === 0 || run.episodes.length === 0) return null;
  const values = [...defined].map(([id, label]) => {
    const reached = run.episodes.filter((e) => e.checkpoints.some((c) => c.id === id)).length;
    const n = run.episodes.length;
    return { checkpoint: `${label}: ${id}`, label, share: reached / n, text: `${reached}/${n}` };
  });
  return {
    ...base("Checkpoints reached", "share of episodes that reached each checkpoint"),
    height: Math.max(60, 28 * values.length),
    data: { values },
    layer: [
      {
        mark: { type: "bar" },
        encoding: {
          y: { field: "checkpoint", type: "nominal", title: null, sort: null },
          x: { field: "share", type: "quantitative", title: "episodes reaching it", scale: { domain: [0, 1] },
            axis: { format: ".0%" } },
          color: { field: "label", type: "nominal", title: "RMBench label",
            scale: { domain: ["storage", "update", "compression"], range: ["#4c78a8", "#f58518", "#54a24b"] } },
        },
      },
      {
        mark: { type: "text", align: "right", dx: -4, color: "white" },
        encoding: {
          y: { field: "checkpoint", type: "nominal", sort: null }, x: { field: "share", type: "quantitative" },
          text: { field: "text" },
        },
      },
    ],
  } as TopLevelSpec;
}

/** Every planner call's latency, per episode; null when the run made none. */
export function plannerSpec(run: ReportRun): TopLevelSpec | null {
  const values = run.episodes.flatMap((e) =>
    e.planner_latencies_ms.map((ms, call) => ({ label: episodeLabel(e), call, ms })));
  if (values.length === 0) return null;
  return {
    ...base("Planner calls", `${values.length} calls; one point per call`),
    data: { values },
    mark: { type: "point", filled: true, size: 50 },
    encoding: {
      x: { field: "call", type: "quantitative", title: "call in the episode (0 = first)", axis: { tickMinStep: 1 } },
      y: { field: "ms", type: "quantitative", title: "planner latency (ms)" },
      color: { field: "label", type: "nominal", title: "episode", sort: null },
    },
  } as TopLevelSpec;
}

/** Safety interventions per episode by kind (which limit the filter applied, or a hold); null when none. */
export function safetySpec(run: ReportRun): TopLevelSpec | null {
  if (run.safety.length === 0) return null;
  const byIndex = new Map(run.episodes.map((e) => [e.episode, e]));
  const values = run.safety.map((s) => {
    const e = byIndex.get(s.episode);
    return { label: e ? episodeLabel(e) : `ep ${s.episode}`, kind: s.kind };
  });
  return {
    ...base("Safety interventions", "commands the safety filter changed (by limit) and holds, per episode"),
    height: Math.max(60, 28 * new Set(values.map((v) => v.label)).size),
    data: { values },
    mark: { type: "bar" },
    encoding: {
      y: { field: "label", type: "nominal", title: "episode", sort: null },
      x: { aggregate: "count", type: "quantitative", title: "interventions (count)" },
      color: { field: "kind", type: "nominal", title: "limit applied" },
    },
  } as TopLevelSpec;
}
