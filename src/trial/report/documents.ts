/**
 * report.md and report.html of one run from its drawn parts (pure: strings in, text out).
 * report.html is self-contained: plots inline as SVG, thumbnails as data: URIs, no script and
 * nothing fetched, so it opens from a copied folder or a mail attachment.
 */
import { PRIVILEGED_CLASSIFIERS, PRIVILEGED_PLANNERS } from "../../config/index.js";
import { episodeLabel } from "./charts.js";
import type { EpisodeKeyFrames } from "./keyFrames.js";
import { metricRows, successText } from "./metrics.js";
import type { ReportRun } from "./runData.js";

/** A drawn plot: its PNG's file name (beside report.md) and its SVG. */
export interface Figure { id: string; title: string; png: string; svg: string }

/** What could not be drawn, and why (shown in the report and logged). */
export interface Omission { part: string; reason: string }

/** The parts of one run's report. */
export interface ReportParts {
  run: ReportRun;
  figures: Figure[];
  /** Key frames per episode; `files[i]` is frame i's JPEG path relative to the run folder. */
  keyFrames: Array<EpisodeKeyFrames & { files: string[] }>;
  omissions: Omission[];
}

/** The Markdown report: the summary table with meanings, the plots, episodes, key frames. */
export function reportMarkdown(p: ReportParts): string {
  const s = p.run.summary;
  const lines = [
    `# Run report: ${s.task} with ${s.policy}`, "",
    `Success rate ${successText(s)}.${stoppedText(s.aborted)}`, "",
    ...partsLines(p.run),
    "| metric | value | what it counts |", "| --- | --- | --- |",
    ...metricRows(p.run).map((r) => `| ${cell(r.metric)} | ${cell(r.value)} | ${cell(r.meaning)} |`), "",
    ...p.figures.flatMap((f) => [`![${f.title}](${f.png})`, ""]),
    "## Episodes", "",
    "| # | seed | outcome | steps | checkpoints (step) | declared ends | true ends | interventions |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ...p.run.episodes.map((e) => `| ${episodeCells(e).join(" | ")} |`),
    "",
    ...keyFramesMarkdown(p),
    ...(p.omissions.length === 0 ? [] : ["## Not drawn", "", ...p.omissions.map((o) => `- ${o.part}: ${o.reason}`)]),
    "",
  ];
  return lines.join("\n");
}

/** Which planner and classifier ran, with privileged oracles flagged; nothing when the run did not record them. */
function partsLines(run: ReportParts["run"]): string[] {
  const planner = run.plannerKind ?? run.summary.planner.kind;
  const classifier = run.classifierKind ?? run.summary.classifier.kind;
  if (!planner && !classifier) return [];
  const oracle = " (**privileged oracle**: reads the twin's hidden state, an ablation)";
  const flag = (privileged: boolean) => (privileged ? oracle : "");
  return [
    `Planner: \`${planner ?? "unknown"}\`${flag(PRIVILEGED_PLANNERS.includes(planner ?? ""))}; `
      + `classifier: \`${classifier ?? "unknown"}\`${flag(PRIVILEGED_CLASSIFIERS.includes(classifier ?? ""))}.`, "",
  ];
}

function keyFramesMarkdown(p: ReportParts): string[] {
  if (p.keyFrames.length === 0) return [];
  const byIndex = new Map(p.run.episodes.map((e) => [e.episode, e]));
  return ["## Key frames", "", ...p.keyFrames.flatMap((k) => [
    `### ${episodeLabel(byIndex.get(k.episode)!)} (${k.topic})`, "",
    k.frames.map((f, i) => `![step ${f.step}: ${f.why.join(", ")}](${k.files[i]})`).join(" "), "",
    k.frames.map((f) => `step ${f.step}: ${f.why.join(", ")}`).join(" · "), "",
  ])];
}

function stoppedText(a: ReportRun["summary"]["aborted"]): string {
  return a ? ` The run stopped early in episode ${a.episode}: ${a.reason}.` : "";
}

/** An episode's row: index, seed, outcome, steps, checkpoints, declared and true ends, interventions. */
function episodeCells(e: ReportRun["episodes"][number]): string[] {
  return [
    String(e.episode), String(e.seed), e.outcome, String(e.steps),
    e.checkpoints.map((c) => `${c.id} (${c.step})`).join(", ") || "-",
    e.declared_ends.join(", ") || "-", e.true_ends?.join(", ") || "-", String(e.safety_interventions),
  ];
}

function cell(s: string): string {
  return s.replace(/\|/g, "\\|").replace(/\n/g, " ");
}

/** The self-contained HTML report. */
export function reportHtml(p: ReportParts): string {
  const s = p.run.summary;
  const body = [
    `<h1>Run report: ${esc(s.task)} with ${esc(s.policy)}</h1>`,
    `<p class="run">${esc(p.run.dir)}</p>`,
    `<p class="headline">Success rate <b>${esc(successText(s))}</b>.${esc(stoppedText(s.aborted))}</p>`,
    metricsTable(p.run),
    ...p.figures.map((f) => `<figure id="${esc(f.id)}">${f.svg}<figcaption>${esc(f.title)}</figcaption></figure>`),
    "<h2>Episodes</h2>", episodesTable(p.run),
    ...keyFramesHtml(p),
    ...(p.omissions.length === 0 ? [] : ["<h2>Not drawn</h2>", list(p.omissions.map((o) => `${o.part}: ${o.reason}`))]),
  ];
  return htmlPage(`Run report: ${s.task} with ${s.policy}`, body.join("\n"));
}

/** A complete HTML page with the report's stylesheet around `body`. */
export function htmlPage(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>
<style>
body { font-family: "DejaVu Sans", sans-serif; margin: 24px auto; max-width: 1000px; color: #222; }
table { border-collapse: collapse; margin: 12px 0; font-size: 13px; }
td, th { border: 1px solid #ccc; padding: 4px 8px; vertical-align: top; text-align: left; }
td.meaning { color: #555; max-width: 520px; }
figure { margin: 16px 0; } figcaption { font-size: 12px; color: #555; }
.frames { display: flex; flex-wrap: wrap; gap: 8px; } .frames figure { margin: 0; }
.frames figcaption { max-width: 192px; } .run { color: #777; font-size: 12px; }
.success { color: #2a9d2a; } .failure { color: #c83232; } .aborted { color: #8c8c8c; }
</style></head>
<body>
${body}
</body></html>
`;
}

function metricsTable(run: ReportRun): string {
  const rows = metricRows(run)
    .map((r) => `<tr><th>${esc(r.metric)}</th><td>${esc(r.value)}</td><td class="meaning">${esc(r.meaning)}</td></tr>`);
  return `<table class="metrics"><tr><th>metric</th><th>value</th><th>what it counts</th></tr>${rows.join("")}</table>`;
}

function episodesTable(run: ReportRun): string {
  const head = ["#", "seed", "outcome", "steps", "checkpoints (step)", "declared ends", "true ends", "interventions"];
  const rows = run.episodes.map((e) => "<tr>" + episodeCells(e)
    .map((c, i) => (i === 2 ? `<td class="${esc(c)}">${esc(c)}</td>` : `<td>${esc(c)}</td>`)).join("") + "</tr>");
  return `<table class="episodes"><tr>${head.map((h) => `<th>${h}</th>`).join("")}</tr>${rows.join("")}</table>`;
}

function list(items: readonly string[]): string {
  return `<ul>${items.map((i) => `<li>${esc(i)}</li>`).join("")}</ul>`;
}

function keyFramesHtml(p: ReportParts): string[] {
  if (p.keyFrames.length === 0) return [];
  const byIndex = new Map(p.run.episodes.map((e) => [e.episode, e]));
  return ["<h2>Key frames</h2>", ...p.keyFrames.map((k) => {
    const frames = k.frames.map((f) => `<figure class="frame">`
      + `<img alt="step ${f.step}" src="data:image/jpeg;base64,${f.jpeg.toString("base64")}">`
      + `<figcaption>step ${f.step}: ${esc(f.why.join(", "))}</figcaption></figure>`);
    const heading = `<h3>${esc(episodeLabel(byIndex.get(k.episode)!))} <small>(${esc(k.topic)})</small></h3>`;
    return `${heading}<div class="frames">${frames.join("")}</div>`;
  })];
}

/** `s` with the five characters HTML gives meaning escaped. */
export function esc(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}
