/**
 * The `oracle` planner, a privileged oracle for ablations only: answers with the sim's ground-truth
 * current subtask (the latest /sim/subtask std_msgs/String value, handed in by whoever subscribes
 * to the bus). Never a run config's default; reports flag it.
 */
import { PlannerFailure, type Planner, type PlannerAnswer, type PlannerContext } from "./types.js";

/** Holds the latest /sim/subtask value; `next()` returns it. */
export class OraclePlanner implements Planner {
  private current: string | undefined;

  /** Called with each /sim/subtask message's text. */
  update(subtask: string): void {
    this.current = subtask;
  }

  async next(_ctx: PlannerContext): Promise<PlannerAnswer> {
    const t0 = performance.now();
    if (this.current === undefined || this.current === "") {
      throw new PlannerFailure("exhausted", "oracle planner: no /sim/subtask value received yet", 1, performance.now() - t0);
    }
    return { subtask: this.current, latencyMs: performance.now() - t0 };
  }
}
