/**
 * A run folder's report as written at the end of a run: report.md in words a person reads, PNG
 * plots, key frames from the episode recordings, a self-contained report.html, and a report that
 * is still written when one of its parts fails.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import sharp from "sharp";
import { rebuildReport, writeReport } from "../../../src/trial/report.js";
import type { RunSummary } from "../../../src/trial/summary.js";
import { EPISODES, frameLevel, writeReportRun } from "./reportRun.js";

const dirs: string[] = [];
after(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });
const folder = async (opts?: { lockstep?: boolean }) => { const d = await writeReportRun(opts); dirs.push(d); return d; };
const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47]);

test("report.md: success as 1/2 (50 %), each metric with what it counts, lock-step time explained", async () => {
  const dir = await folder();
  await rebuildReport(dir);
  const md = readFileSync(join(dir, "report.md"), "utf8");
  assert.match(md, /Success rate 1\/2 \(50 %\), Wilson 95 % \[9\.5 %, 90\.6 %\]/);
  assert.match(md, /\| safety interventions \| 4 \| commands the safety filter changed/);
  assert.match(md, /\| real-time factor \| 2\.5x \| simulated seconds per wall-clock second/);
  assert.match(md, /The sim ran in lock-step: .* \(2 here\) slows the run, not the robot, and is never late/);
  assert.match(md, /1 of 1 declared ends lie within 5 steps of one of 3 true ends \(an extra end in an episode's last 5 steps is not counted/);
  assert.match(md, /storage 100 % \(block-left-original\); update n\/a; compression 50 % \(block-returned\)/);
  assert.match(md, /\| planner calls \/ latency p50 \| 4 \/ 95 ms \| calls to the high-level planner \(oracle-list planner, a privileged oracle, not a planner\)/);
  for (const png of ["outcomes", "tick-latency", "tick-timeline", "checkpoints", "planner", "safety", "classifier-episode-0", "classifier-episode-1"]) {
    assert.ok(md.includes(`(${png}.png)`), `report.md shows ${png}.png`);
    assert.deepEqual(readFileSync(join(dir, `${png}.png`)).subarray(0, 4), PNG_MAGIC, `${png}.png is a PNG`);
  }
  assert.doesNotMatch(md, /Not drawn/);
});

test("a real clock: late ticks are what counts, not lock-step", async () => {
  const dir = await folder({ lockstep: false });
  await rebuildReport(dir);
  assert.match(readFileSync(join(dir, "report.md"), "utf8"), /The clock is real: a tick that finishes after the next tick's time counts as late/);
});

test("key frames: the anchor, each declared and true end, the last frame of a failure, from the head camera", async () => {
  const dir = await folder();
  await rebuildReport(dir);
  const md = readFileSync(join(dir, "report.md"), "utf8");
  assert.match(md, /step 0: anchor \(first frame after reset\) · step 8: true end · step 9: declared end · step 15: true end/);
  assert.match(md, /step 0: anchor \(first frame after reset\) · step 10: true end · step 23: last frame \(failure\)/);
  for (const [episode, step] of [[0, 0], [0, 8], [0, 9], [0, 15], [1, 0], [1, 10], [1, 23]] as const) {
    const file = join(dir, "frames", `episode-${episode}-step-${step}.jpg`);
    const stats = await sharp(readFileSync(file)).stats();
    // A flat grey frame: the JPEG's mean is the frame's level (the frame the tick of that step read).
    assert.ok(Math.abs(stats.channels[0]!.mean - frameLevel(step)) < 3, `${file}: mean ${stats.channels[0]!.mean}, frame level ${frameLevel(step)}`);
  }
});

test("report.html is self-contained: plots as inline SVG, thumbnails as data: URIs, nothing fetched", async () => {
  const dir = await folder();
  await rebuildReport(dir);
  const html = readFileSync(join(dir, "report.html"), "utf8");
  assert.equal(html.match(/<svg /g)?.length, 8, "eight plots");
  assert.equal(html.match(/<img [^>]*src="data:image\/jpeg;base64,/g)?.length, 7, "seven key frames");
  assert.doesNotMatch(html, /<script|<link|(src|href)="(https?:|\/\/)/);
  for (const title of ["tick compute time (ms)", "control step", "classifier logit", "control period 100 ms", "ep 1 · seed 1001 · failure"]) {
    assert.ok(html.includes(title), `report.html holds "${title}"`);
  }
});

test("a part that fails is named and logged; the rest of the report is written", async () => {
  const dir = await folder();
  writeFileSync(join(dir, "logits-episode-1.json"), JSON.stringify({ logits: "not a list", declared: [], truth: null }));
  writeFileSync(join(dir, "episodes", "0.mcap"), "not an MCAP");
  const summary = JSON.parse(readFileSync(join(dir, "summary.json"), "utf8")) as RunSummary;
  await writeReport(dir, summary, EPISODES, []);
  const md = readFileSync(join(dir, "report.md"), "utf8");
  assert.match(md, /## Not drawn\n\n- plot classifier logit, episode 1: .*\n- key frames, episode 0: .*0\.mcap/);
  assert.ok(md.includes("(classifier-episode-0.png)") && md.includes("(outcomes.png)"));
  assert.ok(existsSync(join(dir, "frames", "episode-1-step-23.jpg")), "episode 1's key frames are still there");
  assert.match(readFileSync(join(dir, "report.html"), "utf8"), /<h2>Not drawn<\/h2>/);
});

test("a run without recordings (--no-record) says why it has no key frames", async () => {
  const dir = await folder();
  rmSync(join(dir, "episodes"), { recursive: true });
  await rebuildReport(dir);
  const md = readFileSync(join(dir, "report.md"), "utf8");
  assert.match(md, /- key frames: the run folder holds no episode recordings \(run with --no-record\?\)/);
  assert.doesNotMatch(md, /## Key frames/);
});
