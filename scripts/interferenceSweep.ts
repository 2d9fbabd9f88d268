/**
 * The RoboMME-Interference sweep: memory strategies x k distractor sessions, plus the no-history
 * baseline, per task, each cell one `engram run` (its own run folder, so `--jobs`, `--shard` and
 * `engram merge` work per cell as for any run). Writes <out>/grid.md and grid.json (success with
 * Wilson 95 % per cell, per task and averaged over the tasks) and <out>/compare/ (`engram report
 * --out`: the cells side by side with plots).
 *
 *   npx tsx scripts/interferenceSweep.ts --config launch/sim-franka-video.yaml --policy policies/<bundle> \
 *     --tasks video-place-order,video-unmask,move-cube --strategies framesamp,retrieval --k 0,1,3,7 \
 *     --pool runs/pool --episodes 50 --seed 1000 --jobs 2 --out runs/sweep \
 *     [--pool-config launch/sim-franka.yaml --pool-tasks put-back-block,observe-and-pick-up --pool-episodes 6]
 *
 * The pool is a history store of other tasks' sessions, stored by the same bundle (a pool of another
 * encoder's features is refused). With --pool-tasks and no store at --pool yet, the sweep first stores
 * one: --pool-episodes episodes (seeds 0..N-1) of each pool task on --pool-config, `engram run --history`,
 * into <pool>.partial, renamed to --pool once every task is stored (a failed one is stored again).
 * Extra flags after `--` go to every `engram run` (e.g. `-- --max-steps 200 --no-record`).
 * A cell that finished with the same `engram run` arguments (its sweep-cell.json) is kept, so a stopped
 * sweep resumes where it stopped; any other is run again.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { wilsonInterval } from "../src/trial/summary.js";

const argv = process.argv.slice(2);
const dash = argv.indexOf("--");
const passThrough = dash < 0 ? [] : argv.slice(dash + 1);
const own = dash < 0 ? argv : argv.slice(0, dash);
const opt = (name: string, fallback?: string): string => {
  const i = own.indexOf(`--${name}`);
  const v = i < 0 ? fallback : own[i + 1];
  if (v === undefined) throw new Error(`interferenceSweep: --${name} is required`);
  return v;
};
const list = (v: string) => v.split(",").map((x) => x.trim()).filter(Boolean);
const FLAGS = ["config", "policy", "pool", "out", "tasks", "strategies", "k", "episodes", "seed", "jobs",
  "pool-tasks", "pool-config", "pool-episodes"];
own.forEach((a, i) => {
  if (i % 2 === 0 && !FLAGS.includes(a.replace(/^--/, ""))) {
    throw new Error(`interferenceSweep: ${a}: expected one of --${FLAGS.join(", --")} `
      + "(flags for engram run go after --)");
  }
});

const config = opt("config"), policy = opt("policy"), pool = resolve(opt("pool")), out = resolve(opt("out"));
const tasks = list(opt("tasks")), strategies = list(opt("strategies", "framesamp,retrieval"));
const ks = list(opt("k", "0,1,3,7")).map(Number);
const episodes = opt("episodes", "50"), seed = opt("seed", "1000"), jobs = opt("jobs", "1");

const poolTasks = list(opt("pool-tasks", ""));
const poolConfig = opt("pool-config", "launch/sim-franka.yaml"), poolEpisodes = opt("pool-episodes", "6");

/** `engram run` with `args`; throws naming `what` when it fails. */
function engramRun(what: string, args: string[]): void {
  process.stderr.write(`sweep: ${what}\n`);
  const r = spawnSync(process.execPath, ["--import", "tsx", "src/cli.ts", "run", ...args], {
    stdio: ["ignore", "ignore", "inherit"],
  });
  if (r.status !== 0) throw new Error(`sweep: ${what} failed (exit ${r.status})`);
}

if (poolTasks.length > 0 && !existsSync(join(pool, "sessions"))) {
  const partial = `${pool}.partial`;
  rmSync(partial, { recursive: true, force: true });
  for (const task of poolTasks) {
    engramRun(`pool ${task}`, [
      poolConfig, "--policy", policy, "--task", task, "--episodes", poolEpisodes, "--seed", "0",
      "--history", partial, "--out", join(out, "pool", task), ...passThrough,
      ...(passThrough.includes("--no-record") ? [] : ["--no-record"]),
    ]);
  }
  rmSync(pool, { recursive: true, force: true });
  renameSync(partial, pool);
}

interface Cell { task: string; strategy: string; k: number; dir: string; successes: number; episodes: number }

/** One cell: `engram run` into its folder; its summary's successes and episode count. */
function runCell(task: string, strategy: string, k: number): Cell {
  const dir = join(out, task, strategy, `k${k}`), record = join(dir, "sweep-cell.json");
  const interference = k > 0 ? ["--interference", String(k), "--distractor-pool", pool] : [];
  const args = [
    config, "--policy", resolve(policy), "--task", task, "--memory", strategy,
    "--episodes", episodes, "--seed", seed, "--jobs", jobs, "--out", dir, ...interference, ...passThrough,
  ];
  const kept = existsSync(record)
    && JSON.stringify(JSON.parse(readFileSync(record, "utf8")).args) === JSON.stringify(args);
  if (kept) {
    process.stderr.write(`sweep: ${task} ${strategy} k=${k}: kept (${dir} finished with these arguments)\n`);
  } else {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    engramRun(`${task} ${strategy} k=${k} (${dir})`, args);
    writeFileSync(record, JSON.stringify({ args }, null, 2));
  }
  const summary = JSON.parse(readFileSync(join(dir, "summary.json"), "utf8")) as {
    successes: number;
    episodes: number;
  };
  return { task, strategy, k, dir, successes: summary.successes, episodes: summary.episodes };
}

const cells: Cell[] = [];
for (const task of tasks) {
  cells.push(runCell(task, "none", 0));
  for (const strategy of strategies) for (const k of ks) cells.push(runCell(task, strategy, k));
}

const pct = (x: number) => `${Math.round(x * 1000) / 10} %`;
const text = (successes: number, n: number) => {
  const w = wilsonInterval(successes, n);
  return `${successes}/${n} (${w ? `${pct(w[0])}-${pct(w[1])}` : "n/a"})`;
};
const rows = [{ strategy: "none", ks: [0] }, ...strategies.map((strategy) => ({ strategy, ks }))];
const table = (pick: (strategy: string, k: number) => Cell[]) => [
  `| strategy | ${ks.map((k) => `k = ${k}`).join(" | ")} |`, `| --- | ${ks.map(() => "---").join(" | ")} |`,
  ...rows.map(({ strategy, ks: own }) => `| ${strategy === "none" ? "no history" : strategy} | ${ks.map((k) => {
    if (!own.includes(k)) return "";
    const c = pick(strategy, k);
    return text(c.reduce((a, x) => a + x.successes, 0), c.reduce((a, x) => a + x.episodes, 0));
  }).join(" | ")} |`),
];
const lines = [
  "# RoboMME-Interference sweep", "",
  `Policy ${policy}, ${episodes} episodes per cell from seed ${seed}, distractors from ${pool}.`
    + ` Success (Wilson 95 %).`,
  "",
  ...tasks.flatMap((task) => [
    `## ${task}`,
    "",
    ...table((s, k) => cells.filter((c) => c.task === task && c.strategy === s && c.k === k)),
    "",
  ]),
  "## All tasks", "", ...table((s, k) => cells.filter((c) => c.strategy === s && c.k === k)), "",
];
writeFileSync(join(out, "grid.md"), lines.join("\n"));
writeFileSync(
  join(out, "grid.json"),
  JSON.stringify({ policy, episodes: Number(episodes), seed: Number(seed), cells }, null, 2),
);
const report = spawnSync(
  process.execPath,
  ["--import", "tsx", "src/cli.ts", "report", "--out", join(out, "compare"), ...cells.map((c) => c.dir)],
  { stdio: ["ignore", "ignore", "inherit"] },
);
if (report.status !== 0) {
  throw new Error(`sweep: engram report --out ${join(out, "compare")} failed (exit ${report.status})`);
}
process.stdout.write(`${join(out, "grid.md")}\n`);
