/**
 * `engram merge`: one run folder from slices of a run (shards, `--jobs` workers). Checks that the
 * slices are of one run (run.json) and hold every episode once, then recomputes summary.json and
 * report.md from their episodes.jsonl and ticks.jsonl exactly as one sequential run computes them
 * (same records in episode order, same per-tick figures), and writes the merged episodes.jsonl
 * (MCAP paths relative to the merged folder), ticks.jsonl, events.jsonl and run.json.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { finishRun } from "./report.js";
import { manifestDifference, readRunManifest, writeRunManifest, type RunManifest } from "./runManifest.js";
import type { EpisodeRecord, RunAbort, RunSummary } from "./summary.js";

type Line = EpisodeRecord & { mcap: string | null };
interface TickLine { episode: number; tick_ms: number[]; late: number }
interface Slice { dir: string; manifest: RunManifest; summary: RunSummary; episodes: Line[]; ticks: Map<number, TickLine> }

/** Merges the slices in `dirs` into `outDir` (created; must not hold a run) and returns the merged summary. */
export async function mergeRuns(dirs: readonly string[], outDir: string): Promise<RunSummary> {
  if (dirs.length === 0) throw new Error("merge: no run folders given");
  const out = resolve(outDir);
  for (const d of dirs) if (resolve(d) === out) throw new Error(`merge: the output folder ${outDir} is one of the inputs`);
  if (existsSync(join(out, "episodes.jsonl"))) throw new Error(`merge: ${join(outDir, "episodes.jsonl")} exists; refusing to overwrite a run folder`);
  const slices = dirs.map(readSlice);
  const first = slices[0]!;
  for (const s of slices.slice(1)) {
    const diff = manifestDifference(first.manifest, s.manifest);
    if (diff) throw new Error(`merge: ${s.dir} is not a slice of the same run as ${first.dir}: they differ in ${diff}`);
    if (s.summary.policy !== first.summary.policy) throw new Error(`merge: ${s.dir} ran policy "${s.summary.policy}", ${first.dir} ran "${first.summary.policy}"`);
  }
  const byEpisode = new Map<number, { slice: Slice; line: Line }>();
  for (const s of slices) {
    for (const line of s.episodes) {
      const seen = byEpisode.get(line.episode);
      if (seen) throw new Error(`merge: episode ${line.episode} is in both ${seen.slice.dir} and ${s.dir}`);
      byEpisode.set(line.episode, { slice: s, line });
    }
  }
  checkCoverage(slices, byEpisode, first.manifest.episodes);

  mkdirSync(out, { recursive: true });
  const order = [...byEpisode.keys()].sort((a, b) => a - b);
  const records = order.map((k) => byEpisode.get(k)!.line);
  const tickMs: number[] = [];
  let late = 0;
  for (const k of order) {
    const t = byEpisode.get(k)!.slice.ticks.get(k)!;
    tickMs.push(...t.tick_ms);
    late += t.late;
  }
  writeLines(join(out, "episodes.jsonl"), order.map((k) => {
    const { slice, line } = byEpisode.get(k)!;
    return { ...line, mcap: line.mcap === null ? null : relative(out, join(slice.dir, line.mcap)) };
  }));
  writeLines(join(out, "ticks.jsonl"), order.map((k) => byEpisode.get(k)!.slice.ticks.get(k)!));
  writeLines(join(out, "events.jsonl"), mergedEvents(slices));
  for (const k of order) {
    const logits = `logits-episode-${k}.json`;
    const from = join(byEpisode.get(k)!.slice.dir, logits);
    if (existsSync(from)) copyFileSync(from, join(out, logits));
  }
  // A merge of one shard's jobs is that shard; a merge of shards is the whole run.
  const shard = slices.every((s) => JSON.stringify(s.manifest.shard) === JSON.stringify(first.manifest.shard)) ? first.manifest.shard : null;
  writeRunManifest(out, { ...first.manifest, shard, job: null, episode_indices: order });
  const aborts = slices.map((s) => s.summary.aborted).filter((a): a is RunAbort => a !== null && a !== undefined);
  const aborted = aborts.sort((a, b) => a.episode - b.episode)[0] ?? null;
  const { planner, classifier } = first.summary; // slices of one run share its config (run.json)
  const parts = { planner: { kind: planner.kind ?? null, privileged: planner.privileged ?? null },
    classifier: { kind: classifier.kind ?? null, privileged: classifier.privileged ?? null } };
  const { task, policy } = first.summary;
  return finishRun(out, { task, policy, episodes: records, tickMs, lateTicks: late, aborted, parts });
}

function readSlice(dir: string): Slice {
  const manifest = readRunManifest(dir);
  const summaryFile = join(dir, "summary.json");
  if (!existsSync(summaryFile)) throw new Error(`merge: ${summaryFile} not found: the slice has not finished (still running, or killed before writing its summary)`);
  const summary = JSON.parse(readFileSync(summaryFile, "utf8")) as RunSummary;
  const episodes = readLines<Line>(join(dir, "episodes.jsonl"));
  const ticks = new Map(readLines<TickLine>(join(dir, "ticks.jsonl")).map((t) => [t.episode, t]));
  const held = new Set(manifest.episode_indices);
  for (const e of episodes) {
    if (!held.has(e.episode)) throw new Error(`merge: ${join(dir, "episodes.jsonl")} has episode ${e.episode}, which its run.json does not assign to it`);
    if (e.seed !== manifest.seed + e.episode) throw new Error(`merge: ${join(dir, "episodes.jsonl")} episode ${e.episode} ran seed ${e.seed}, expected ${manifest.seed + e.episode}`);
    if (ticks.has(e.episode)) continue;
    // A slice that stopped on a write failure (a full disk) may have lost this line; its summary
    // names the failure. The merged tick figures then leave this episode out.
    if (!summary.aborted || summary.aborted.interrupted) {
      throw new Error(`merge: ${join(dir, "ticks.jsonl")} has no line for episode ${e.episode}`);
    }
    ticks.set(e.episode, { episode: e.episode, tick_ms: [], late: 0 });
  }
  return { dir, manifest, summary, episodes, ticks };
}

/** Every episode of the run is in some slice, or its slice stopped early (aborted) before reaching it. */
function checkCoverage(slices: Slice[], byEpisode: Map<number, unknown>, total: number): void {
  const missing: number[] = [];
  for (let k = 0; k < total; k++) if (!byEpisode.has(k)) missing.push(k);
  if (missing.length === 0) return;
  const unexplained = missing.filter((k) => !slices.some((s) => s.summary.aborted && s.manifest.episode_indices.includes(k)));
  if (unexplained.length === 0) return;
  const assigned = new Set(slices.flatMap((s) => s.manifest.episode_indices));
  const notAssigned = unexplained.filter((k) => !assigned.has(k));
  throw new Error(notAssigned.length > 0
    ? `merge: episodes ${list(notAssigned)} of ${total} are in none of the given slices (a shard missing from the list?)`
    : `merge: episodes ${list(unexplained)} are assigned to a slice whose episodes.jsonl lacks them and whose summary records no abort`);
}

/** Events of all slices, episode by episode (each slice's own order kept); run-level lines first. */
function mergedEvents(slices: Slice[]): unknown[] {
  const events: { episode: number; n: number; e: unknown }[] = [];
  let n = 0;
  for (const s of slices) {
    const file = join(s.dir, "events.jsonl");
    if (!existsSync(file)) continue;
    // A slice that stopped on a write failure may end its log in a cut line: keep the whole ones.
    const lenient = Boolean(s.summary.aborted && !s.summary.aborted.interrupted);
    for (const e of readLines<{ episode?: number }>(file, lenient)) {
      events.push({ episode: e.episode ?? -1, n: n++, e });
    }
  }
  return events.sort((a, b) => a.episode - b.episode || a.n - b.n).map((x) => x.e);
}

/** The JSON lines of `file` ([] when absent); a line that does not parse throws naming it (skipped if `lenient`). */
function readLines<T>(file: string, lenient = false): T[] {
  if (!existsSync(file)) return [];
  const out: T[] = [];
  for (const [i, l] of readFileSync(file, "utf8").split("\n").entries()) {
    if (l.trim() === "") continue;
    try {
      out.push(JSON.parse(l) as T);
    } catch (err) {
      if (!lenient) throw new Error(`merge: ${file} line ${i + 1}: not valid JSON (${(err as Error).message})`);
    }
  }
  return out;
}

/** Writes one JSON line per item; a failure (a full disk) names the file. */
function writeLines(file: string, items: unknown[]): void {
  try {
    writeFileSync(file, items.map((x) => JSON.stringify(x) + "\n").join(""));
  } catch (err) {
    throw new Error(`merge: writing ${file}: ${(err as Error).message}`);
  }
}

function list(xs: number[]): string {
  return xs.length > 12 ? `${xs.slice(0, 12).join(", ")}, ... (${xs.length})` : xs.join(", ");
}
