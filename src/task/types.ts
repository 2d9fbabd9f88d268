/**
 * The task contract every layer reads: what a task is, apart from any robot or simulator. The
 * sim twin adds scenes, success checks and experts to these specs (src/sim/tasks/); trials,
 * recordings and `engram check` read them alone.
 */
import type { Rng } from "./rng.js";
import type { CheckpointLabel } from "../msgs/simTopics.js";
import type { TaskId } from "./ids.js";

/**
 * A robot kind a task lays its scene and experts out for: what a profile declares as `task_robot`
 * (robots/*.yaml; "x-one", "franka-droid" today). A task lists the kinds it supports.
 */
export type TaskRobot = string;

/** RMBench's task memory complexity: M(1) single global instruction, M(n) planner-driven subtasks. */
export type TaskMemoryClass = "M1" | "Mn";

/** MEMOBench checkpoint labels (storage, update, compression), as the twin's topics carry them. */
export type { CheckpointLabel } from "../msgs/simTopics.js";

/** A MEMOBench-style checkpoint as a trial reports it; the twin judges it from its own state. */
export interface CheckpointSpec {
  id: string;
  label: CheckpointLabel;
  description: string;
}

/**
 * One RMBench task. A task whose subtask list depends on its scene (how many presses, which
 * polarity is right) draws `D` from its seed, and its subtasks read the part `P` of it that the
 * twin's scene also keeps; a task with a fixed list has neither (`draw` absent, `P` unused).
 * Methods, not arrow properties, so a registry of mixed draw types typechecks.
 */
export interface TaskSpec<P extends object = object, D extends P = P> {
  id: TaskId;
  /** Memory class: M1 runs on `instruction` alone, Mn on subtasks a planner hands out. */
  tmc: TaskMemoryClass;
  robots: readonly TaskRobot[];
  /**
   * Seconds before an episode is cut off as a failure; the step limit at a profile's rate is
   * `stepLimit(task, control_hz)` (a rate-free number, as profiles differ in control_hz).
   */
  timeLimitS: number;
  /**
   * Global task instruction shown to the policy / planner: the same for every scene, or, for a task
   * with `instructionFor`, its template (RoboMME's goal strings name the scene's colours and ordinals).
   */
  instruction: string;
  /** The instruction for one scene's draws, where it names them (RoboMME's video tasks). */
  instructionFor?(drawn: P): string;
  /**
   * All of the scene's random draws, in the order the twin builds the scene from them, for a task
   * whose subtasks depend on the scene. The twin's scene and a hardware run's nominal subtasks
   * (nominalTexts) come from this one draw, so they agree for a seed.
   */
  draw?(rng: Rng): D;
  /** The subtask list, in order, worded like RMBench annotations. */
  subtasks(drawn: P): string[];
  /** Checkpoints in report order: storage, update, compression. */
  checkpoints: readonly CheckpointSpec[];
}

/** Control steps (at `controlHz`) before an episode of `task` is cut off as a failure. */
export function stepLimit(task: { timeLimitS: number }, controlHz: number): number {
  return Math.ceil(task.timeLimitS * controlHz);
}
