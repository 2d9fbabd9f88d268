/**
 * A run folder's report: report.md with PNG plots and JPEG key frames beside it, and a
 * self-contained report.html. Plots are Vega-Lite specs (report/charts.ts) rendered headless.
 * Each part is drawn on its own: a part that fails is logged, named in the report, and skipped.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { TopLevelSpec } from "vega-lite";
import { summarizeRun, type EpisodeRecord, type RunSummary } from "./summary.js";
import * as charts from "./report/charts.js";
import { reportHtml, reportMarkdown, type Figure, type Omission, type ReportParts } from "./report/documents.js";
import { readKeyFrames } from "./report/keyFrames.js";
import { pngOfSvg, svgOf } from "./report/render.js";
import { readReportRun, reportRunOf, type ReportRun } from "./report/runData.js";

/** Episodes that get their own classifier plot and key frames; later ones are listed as not drawn. */
const PER_EPISODE_LIMIT = 20;

/** Summarizes a finished (or stopped) run and writes summary.json, report.md and its plots into `outDir`. */
export async function finishRun(outDir: string, args: Parameters<typeof summarizeRun>[0]): Promise<RunSummary> {
  const summary = summarizeRun(args);
  writeFileSync(join(outDir, "summary.json"), JSON.stringify(summary, null, 2) + "\n");
  await writeReport(outDir, summary, args.episodes, args.tickMs);
  return summary;
}

/**
 * Writes report.md, report.html and their plots into `outDir` from the summary, the records and
 * the folder's side files. Never throws for a part of the report: see the module note.
 */
export async function writeReport(
  outDir: string, summary: RunSummary, records: readonly EpisodeRecord[], tickMs: readonly number[],
): Promise<void> {
  const omissions: Omission[] = [];
  let run: ReportRun;
  try {
    run = reportRunOf(outDir, summary, records, tickMs);
  } catch (err) {
    omit(omissions, "side files", err);
    run = {
      dir: outDir, name: outDir, summary, episodes: records.map((r) => ({ ...r, mcapPath: null })),
      ticks: [{ episode: -1, tickMs: [...tickMs] }],
      controlHz: null, clock: null, plannerKind: null, classifierKind: null, logits: new Map(), safety: [],
      historySplits: [],
    };
  }
  try {
    await writeRunReport(run, omissions);
  } catch (err) {
    omit([], "report", err); // the run's summary.json is written; its report must not fail it
  }
}

/** Rebuilds the report of the finished run folder `dir` (summary.json, episodes.jsonl, side files). */
export async function rebuildReport(dir: string): Promise<ReportRun> {
  const run = readReportRun(dir);
  await writeRunReport(run, []);
  return run;
}

/**
 * Draws every part in memory first, then writes report.md and report.html before the PNGs and
 * JPEGs: on a disk that fills up the text reports, which say the most, are the ones that land.
 */
async function writeRunReport(run: ReportRun, omissions: Omission[]): Promise<void> {
  const figures: DrawnFigure[] = [];
  for (const [id, title, spec] of figureSpecs(run, omissions)) {
    const fig = await drawFigure(id, title, spec).catch((err: unknown) => {
      omit(omissions, `plot ${title}`, err);
      return null;
    });
    if (fig) figures.push(fig);
  }
  const parts: ReportParts = { run, figures, keyFrames: await keyFramesOf(run, omissions), omissions };
  const files: Array<[string, string | Buffer]> = [
    ["report.md", reportMarkdown(parts)],
    ["report.html", reportHtml(parts)],
    ...figures.map((f): [string, Buffer] => [f.png, f.pngBytes]),
    ...parts.keyFrames.flatMap((k) => k.frames.map((f, i): [string, Buffer] => [k.files[i]!, f.jpeg])),
  ];
  if (parts.keyFrames.length > 0) mkdirSync(join(run.dir, "frames"), { recursive: true });
  // One by one, each failure logged: a PNG that cannot be written leaves the rest.
  for (const [name, bytes] of files) {
    await writeFile(join(run.dir, name), bytes).catch((err: unknown) => omit([], name, err));
  }
}

type FigureSpec = [id: string, title: string, spec: () => TopLevelSpec | null];

function figureSpecs(run: ReportRun, omissions: Omission[]): FigureSpec[] {
  const shown = run.episodes.slice(0, PER_EPISODE_LIMIT);
  const classifier = shown.flatMap((e): FigureSpec[] => {
    const l = run.logits.get(e.episode);
    if (!l) return [];
    const title = `classifier logit, episode ${e.episode}`;
    return [[`classifier-episode-${e.episode}`, title, () => charts.classifierSpec(e, l)]];
  });
  if (run.episodes.length > PER_EPISODE_LIMIT) {
    const n = PER_EPISODE_LIMIT;
    const reason = `episodes ${n}..${run.episodes.length - 1} (the first ${n} are drawn)`;
    omissions.push({ part: "per-episode plots and key frames", reason });
  }
  if (run.logits.size === 0) {
    omissions.push({ part: "classifier plots", reason: "no logits-episode-<i>.json in the run folder" });
  }
  return [
    ["outcomes", "outcome per episode", () => charts.outcomesSpec(run)],
    ["tick-latency", "tick compute time, histogram", () => charts.tickHistogramSpec(run)],
    ["tick-timeline", "tick compute time per step", () => charts.tickTimelineSpec(run)],
    ["checkpoints", "checkpoints reached", () => charts.checkpointsSpec(run)],
    ["planner", "planner call latency", () => charts.plannerSpec(run)],
    ["safety", "safety interventions by kind", () => charts.safetySpec(run)],
    ...classifier,
  ];
}

type DrawnFigure = Figure & { pngBytes: Buffer };

async function drawFigure(id: string, title: string, spec: () => TopLevelSpec | null): Promise<DrawnFigure | null> {
  const s = spec();
  if (s === null) return null;
  const svg = await svgOf(s);
  return { id, title, png: `${id}.png`, svg, pngBytes: await pngOfSvg(svg) };
}

async function keyFramesOf(run: ReportRun, omissions: Omission[]): Promise<ReportParts["keyFrames"]> {
  const out: ReportParts["keyFrames"] = [];
  if (run.episodes.length > 0 && run.episodes.every((e) => e.mcapPath === null)) {
    omissions.push({ part: "key frames", reason: "the run folder holds no episode recordings (run with --no-record?)" });
  }
  for (const e of run.episodes.slice(0, PER_EPISODE_LIMIT)) {
    if (!e.mcapPath) continue;
    try {
      const k = await readKeyFrames(e, e.mcapPath);
      if (!k) {
        omissions.push({ part: `key frames, episode ${e.episode}`, reason: `${e.mcapPath} holds no camera topic` });
        continue;
      }
      out.push({ ...k, files: k.frames.map((f) => join("frames", `episode-${e.episode}-step-${f.step}.jpg`)) });
    } catch (err) {
      omit(omissions, `key frames, episode ${e.episode}`, err);
    }
  }
  return out;
}

function omit(omissions: Omission[], part: string, err: unknown): void {
  const reason = err instanceof Error ? err.message : String(err);
  omissions.push({ part, reason });
  process.stderr.write(`[report] ${part} not written: ${reason}\n`);
}
