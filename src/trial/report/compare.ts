/**
 * Runs side by side (e.g. the full model against its ablations): a table of success with the
 * Wilson 95 % interval per run, checkpoint rates, classifier and tick figures, and plots of the
 * same. Written as compare.md + compare.html (self-contained) with PNGs into one folder.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { TopLevelSpec } from "vega-lite";
import { esc, htmlPage } from "./documents.js";
import { successText } from "./metrics.js";
import { pngOfSvg, svgOf } from "./render.js";
import type { ReportRun } from "./runData.js";

const fmt = (v: number | null, digits = 2) => (v === null ? "n/a" : v.toFixed(digits));

/** The comparison table's rows: one per run, in the order given. Pure. */
function comparisonRows(runs: readonly ReportRun[]): string[][] {
  return runs.map((r) => {
    const s = r.summary, c = s.checkpoint_rates;
    return [
      r.name, s.policy, s.task, successText(s),
      `${fmt(c.storage)} / ${fmt(c.update)} / ${fmt(c.compression)}`,
      `${fmt(s.classifier.precision)} / ${fmt(s.classifier.recall)}`,
      `${fmt(s.tick_ms.p50, 1)} / ${fmt(s.tick_ms.p99, 1)}`,
    ];
  });
}

const HEADER = [
  "run", "policy", "task", "success (Wilson 95 %)", "storage / update / compression", "classifier P / R",
  "tick p50 / p99 ms",
];

/** Success rate per run as a bar with its Wilson 95 % interval as an error bar. */
function successSpec(runs: readonly ReportRun[]): TopLevelSpec {
  const values = runs.map((r) => ({
    run: r.name, rate: r.summary.success_rate ?? 0, lo: r.summary.wilson95?.[0] ?? 0, hi: r.summary.wilson95?.[1] ?? 0,
    text: `${r.summary.successes}/${r.summary.episodes}`,
  }));
  const y = { field: "run", type: "nominal", title: "run", sort: null };
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title: { text: "Success rate per run", subtitle: "bar: successes / episodes; whisker: Wilson 95 % interval" },
    width: 520, height: Math.max(60, 32 * runs.length),
    config: { font: "DejaVu Sans, sans-serif", background: "white" },
    data: { values },
    layer: [
      { mark: { type: "bar", color: "#a6c8e8" },
        encoding: { y, x: { field: "rate", type: "quantitative", title: "success rate", scale: { domain: [0, 1] },
          axis: { format: ".0%" } } } },
      { mark: { type: "rule", strokeWidth: 2, color: "#222" },
        encoding: { y, x: { field: "lo", type: "quantitative" }, x2: { field: "hi" } } },
      { mark: { type: "text", align: "left", dx: 6, dy: -8 },
        encoding: { y, x: { field: "hi", type: "quantitative" }, text: { field: "text" } } },
    ],
  } as TopLevelSpec;
}

/** Checkpoint rates per run, grouped by label. */
function checkpointRatesSpec(runs: readonly ReportRun[]): TopLevelSpec {
  const values = runs.flatMap((r) => (["storage", "update", "compression"] as const)
    .flatMap((label) => {
      const rate = r.summary.checkpoint_rates[label];
      return rate === null ? [] : [{ run: r.name, label, rate }];
    }));
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title: {
      text: "Checkpoint rates per run", subtitle: "share of the task's checkpoints of each RMBench label reached",
    },
    width: 520, height: Math.max(60, 32 * runs.length),
    config: { font: "DejaVu Sans, sans-serif", background: "white" },
    data: { values },
    mark: { type: "bar" },
    encoding: {
      y: { field: "run", type: "nominal", title: "run", sort: null },
      yOffset: { field: "label", sort: ["storage", "update", "compression"] },
      x: { field: "rate", type: "quantitative", title: "checkpoint rate", scale: { domain: [0, 1] },
        axis: { format: ".0%" } },
      color: { field: "label", type: "nominal", title: "RMBench label",
        scale: { domain: ["storage", "update", "compression"], range: ["#4c78a8", "#f58518", "#54a24b"] } },
    },
  } as TopLevelSpec;
}

/** Writes compare.md, compare.html and their PNGs into `outDir`; a plot that fails is logged and left out. */
export async function writeComparison(runs: readonly ReportRun[], outDir: string): Promise<void> {
  mkdirSync(outDir, { recursive: true });
  const figures: Array<{ title: string; png: string; svg: string }> = [];
  const notes: string[] = [];
  const plots = [
    ["compare-success", "success rate per run", successSpec],
    ["compare-checkpoints", "checkpoint rates per run", checkpointRatesSpec],
  ] as const;
  for (const [id, title, spec] of plots) {
    try {
      const svg = await svgOf(spec(runs));
      writeFileSync(join(outDir, `${id}.png`), await pngOfSvg(svg));
      figures.push({ title, png: `${id}.png`, svg });
    } catch (err) {
      notes.push(`${title}: ${(err as Error).message}`);
      process.stderr.write(`[report] plot ${title} not drawn: ${(err as Error).message}\n`);
    }
  }
  const rows = comparisonRows(runs);
  const md = [
    `# Runs compared (${runs.length})`, "",
    `| ${HEADER.join(" | ")} |`, `| ${HEADER.map(() => "---").join(" | ")} |`,
    ...rows.map((r) => `| ${r.join(" | ")} |`), "",
    ...runs.map((r) => `- ${r.name}: ${r.dir}`), "",
    ...figures.flatMap((f) => [`![${f.title}](${f.png})`, ""]),
    ...(notes.length === 0 ? [] : ["## Not drawn", "", ...notes.map((n) => `- ${n}`), ""]),
  ].join("\n");
  const table = `<table><tr>${HEADER.map((h) => `<th>${esc(h)}</th>`).join("")}</tr>`
    + rows.map((r) => `<tr>${r.map((c) => `<td>${esc(c)}</td>`).join("")}</tr>`).join("") + "</table>";
  const html = htmlPage(`Runs compared (${runs.length})`, [
    `<h1>Runs compared (${runs.length})</h1>`, table,
    `<ul>${runs.map((r) => `<li>${esc(r.name)}: ${esc(r.dir)}</li>`).join("")}</ul>`,
    ...figures.map((f) => `<figure>${f.svg}<figcaption>${esc(f.title)}</figcaption></figure>`),
    ...(notes.length === 0 ? [] : [`<h2>Not drawn</h2><ul>${notes.map((n) => `<li>${esc(n)}</li>`).join("")}</ul>`]),
  ].join("\n"));
  writeFileSync(join(outDir, "compare.md"), md);
  writeFileSync(join(outDir, "compare.html"), html);
}
