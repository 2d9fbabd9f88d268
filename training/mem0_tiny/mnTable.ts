/**
 * The M(n) table of policies/mem0-tiny-mn/README.md from the runs evaluate.sh made (`<out>/mn-<row>-<task>/`):
 * per task and row, successes with Wilson 95 %, the classifier's precision / recall / mean offset against the
 * twin's ends (+-5 steps, scored again from episodes.jsonl so that every folder is scored alike), what went wrong
 * first in each failed episode, the planner's accuracy and calls per episode, and MEMOBench's checkpoint rates.
 *
 * A failed episode's first wrong end is the earliest of its missed true ends and extra declared ends: "missed"
 * (the classifier let a finished subtask run on), "extra" (it declared an end the twin did not make), or
 * "none" (every end right: the execution failed, or the planner named a wrong subtask).
 *
 * A planner call is right when its answer is the twin's next subtask at that step: the scene's subtask list
 * (the twin's, from the seed) at the count of true ends so far, or "done" (a `planner_failure` of a finished
 * plan) once all have ended.
 *
 *   npx tsx training/mem0_tiny/mnTable.ts runs/eval
 */
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { LocalBus } from "../../src/bus/local.js";
import { SimClock } from "../../src/bus/clock.js";
import { loadRobotProfile } from "../../src/robot/index.js";
import { SimNode } from "../../src/sim/node/SimNode.js";
import { getTask } from "../../src/sim/tasks/index.js";
import { classifierScores, episodeEndMatch, type RunSummary } from "../../src/trial/summary.js";

export const MN_TASKS = ["press-button", "cover-blocks", "blocks-ranking-try", "battery-try"];
export const MN_ROWS: Record<string, string> = {
  full: "full (learned classifier + learned planner)",
  "no-key": "w/o key memory",
  "gt-classifier": "GT classifier (`classifier: oracle`)",
  "oracle-planner": "oracle planner (`planner.kind: oracle`)",
  "oracle-list": "oracle list (`planner.kind: oracle-list`)",
};

interface EpisodeLine { episode: number; seed: number; outcome: string; steps: number; declared_ends: number[]; true_ends: number[] | null }
interface EventLine { event: string; episode?: number; step?: number; answer?: string; reason?: string }

const jsonl = <T>(path: string): T[] => readFileSync(path, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as T);

/** Planner calls right / made in one run folder; `plans(seed)` is the twin's subtask list for the seed. */
function plannerAccuracy(lines: readonly EpisodeLine[], dir: string, plans: (seed: number) => string[]): [number, number] {
  const episodes = new Map(lines.map((e) => [e.episode, e]));
  let right = 0, made = 0;
  for (const e of jsonl<EventLine>(join(dir, "events.jsonl"))) {
    const done = e.event === "planner_failure" && /answered done/.test(e.reason ?? ""); // the learned planner's "done"
    if (e.event !== "planner_call" && !done) continue;
    const ep = episodes.get(e.episode ?? -1);
    if (!ep) continue;
    const plan = plans(ep.seed);
    const ended = (ep.true_ends ?? []).filter((s) => s <= e.step!).length;
    const truth = ended < plan.length ? plan[ended] : "done";
    made++;
    if ((done ? "done" : e.answer) === truth) right++;
  }
  return [right, made];
}

/** Failed episodes by their first wrong end: missed / extra / none (the module note). */
function firstWrongEnds(episodes: readonly EpisodeLine[]): string {
  const counts = { missed: 0, extra: 0, none: 0 };
  for (const e of episodes) {
    if (e.outcome === "success" || e.true_ends === null) continue;
    const { missed, extra } = episodeEndMatch(e);
    const firstMissed = Math.min(...missed), firstExtra = Math.min(...extra);
    counts[firstMissed === Infinity && firstExtra === Infinity ? "none" : firstMissed < firstExtra ? "missed" : "extra"]++;
  }
  return `${counts.missed} / ${counts.extra} / ${counts.none}`;
}

const f2 = (x: number | null | undefined): string => (x === null || x === undefined ? "-" : x.toFixed(2));

async function main(out: string): Promise<void> {
  const bus = new LocalBus({ clock: new SimClock(0n) });
  const node = await SimNode.create({ bus, robot: loadRobotProfile(resolve("robots/x-one.yaml")), cameras: false, log: () => {} });
  const lines = [
    "| task | row | successes | Wilson 95 % | classifier P / R / offset | failed: first wrong end missed / extra / none | planner right | calls / episode | storage / update / compression |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
  ];
  try {
    for (const taskId of MN_TASKS) {
      const task = getTask(taskId);
      const cache = new Map<number, string[]>();
      const plans = (seed: number): string[] => {
        if (!cache.has(seed)) cache.set(seed, task.subtasks(node.reset({ task, seed })!.scene));
        return cache.get(seed)!;
      };
      for (const [row, label] of Object.entries(MN_ROWS)) {
        const dir = join(out, `mn-${row}-${taskId}`);
        if (!existsSync(join(dir, "summary.json"))) continue;
        const s = JSON.parse(readFileSync(join(dir, "summary.json"), "utf8")) as RunSummary;
        const episodes = jsonl<EpisodeLine>(join(dir, "episodes.jsonl"));
        const [right, made] = plannerAccuracy(episodes, dir, plans);
        const w = s.wilson95 ?? [null, null], c = classifierScores(episodes), k = s.checkpoint_rates;
        lines.push(`| ${taskId} | ${label} | ${s.successes}/${s.episodes} | [${f2(w[0])}, ${f2(w[1])}] | `
          + `${f2(c.precision)} / ${f2(c.recall)} / ${f2(c.mean_offset_steps)} | ${firstWrongEnds(episodes)} | `
          + `${made ? `${right}/${made}` : "-"} | `
          + `${(s.planner.calls / s.episodes).toFixed(1)} | ${f2(k.storage)} / ${f2(k.update)} / ${f2(k.compression)} |`);
      }
    }
  } finally {
    node.close();
    await bus.close();
  }
  if (lines.length === 2) throw new Error(`no run folders mn-<row>-<task>/ with a summary.json under ${out}`);
  process.stdout.write(lines.join("\n") + "\n");
}

main(resolve(process.argv[2] ?? "runs/eval")).catch((err) => {
  process.stderr.write(`mnTable: ${(err as Error).message}\n`);
  process.exit(1);
});
