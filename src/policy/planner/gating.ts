/**
 * When the planner runs (pure): M(n) tasks call it once at episode start and once per declared
 * subtask end; M(1) tasks never call it (the policy runs on the global instruction).
 */
import type { FinishedSubtask, PlannerContext } from "./types.js";

/** RMBench memory complexity of a task. */
export type MemoryComplexity = "M(1)" | "M(n)";

/** A task's memory class (`tmc: M1 | Mn` in its spec, src/task/) as the runtime names it. */
export function complexityOf(tmc: "M1" | "Mn"): MemoryComplexity {
  return tmc === "M1" ? "M(1)" : "M(n)";
}

/** Tick-level trigger seen by the loop. */
export type PlannerTrigger = { kind: "episode_start" } | { kind: "tick"; subtaskEnded: boolean };

/** True when the planner must be called for this trigger. */
export function shouldCallPlanner(complexity: MemoryComplexity, trigger: PlannerTrigger): boolean {
  if (complexity === "M(1)") return false;
  switch (trigger.kind) {
    case "episode_start":
      return true;
    case "tick":
      return trigger.subtaskEnded;
  }
}

/** Planner input for the current state; key memory off hides the finished subtasks (ablation). */
export function plannerContext(globalTask: string, initialImageJpeg: Uint8Array, finished: FinishedSubtask[], keyMemory: boolean): PlannerContext {
  return { globalTask, initialImageJpeg, finished: keyMemory ? [...finished] : [] };
}
