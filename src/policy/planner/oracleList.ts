/**
 * The `oracle-list` planner, a privileged oracle for ablations only: the next subtask is the
 * task's own list entry after the ones already finished. On the twin that list is computed from
 * the hidden scene (Press Button's digits, the swaps Blocks Ranking Try needs), so this planner
 * knows what no camera shows; it is never a run config's default and reports flag it.
 */
import { PlannerFailure, type Planner, type PlannerAnswer, type PlannerContext } from "./types.js";

/** Walks `subtasks` in order by the finished count; past the end it fails with kind "complete". */
export class OracleListPlanner implements Planner {
  constructor(private readonly subtasks: readonly string[]) {}

  async next(ctx: PlannerContext): Promise<PlannerAnswer> {
    const t0 = performance.now();
    const n = ctx.finished.length;
    const subtask = this.subtasks[n];
    if (subtask === undefined) {
      const list = `the list has ${this.subtasks.length} [${this.subtasks.join(" | ")}]`;
      const message = `oracle-list planner: ${n} subtasks finished, ${list}`;
      throw new PlannerFailure("complete", message, 1, performance.now() - t0);
    }
    return { subtask, latencyMs: performance.now() - t0 };
  }
}
