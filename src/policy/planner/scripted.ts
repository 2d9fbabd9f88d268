/** Scripted planner: the next subtask is the task's list entry after the ones already finished. */
import { PlannerFailure, type Planner, type PlannerAnswer, type PlannerContext } from "./types.js";

/** Walks `subtasks` in order by the finished count; past the end it fails with kind "complete". */
export class ScriptedPlanner implements Planner {
  constructor(private readonly subtasks: readonly string[]) {}

  async next(ctx: PlannerContext): Promise<PlannerAnswer> {
    const t0 = performance.now();
    const n = ctx.finished.length;
    const subtask = this.subtasks[n];
    if (subtask === undefined) {
      throw new PlannerFailure("complete", `scripted planner: ${n} subtasks finished, the list has ${this.subtasks.length} [${this.subtasks.join(" | ")}]`, 1, performance.now() - t0);
    }
    return { subtask, latencyMs: performance.now() - t0 };
  }
}
