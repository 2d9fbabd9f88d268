/** Planner contract (DESIGN.md §3): called at episode start (M(n) tasks) and on declared subtask ends only. */

/** A finished subtask and the camera image (JPEG) at its end. */
export interface FinishedSubtask {
  subtask: string;
  endImageJpeg: Uint8Array;
}

/** What the planner sees. With key memory off, `finished` is empty (see plannerContext). */
export interface PlannerContext {
  globalTask: string;
  initialImageJpeg: Uint8Array;
  finished: FinishedSubtask[];
}

/** The planner's answer and how long it took (ms, wall clock). */
export interface PlannerAnswer {
  subtask: string;
  latencyMs: number;
}

/** A planner: returns the next subtask, or rejects with a PlannerFailure. */
export interface Planner {
  next(ctx: PlannerContext): Promise<PlannerAnswer>;
}

/**
 * Why a planner gave up; the loop turns it into hold + a `planner_failure` event. `complete`: the
 * plan has no subtask left (the policy declared more ends than it has), which ends the episode as
 * a failure; every other kind aborts the episode and the run.
 */
export type PlannerFailureKind = "timeout" | "http" | "network" | "garbage" | "exhausted" | "complete";

/** Typed planner failure (callers branch on it: hold the robot, log, end or retry the episode). */
export class PlannerFailure extends Error {
  constructor(readonly kind: PlannerFailureKind, message: string, readonly attempts: number, readonly latencyMs: number) {
    super(message);
    this.name = "PlannerFailure";
  }
}
