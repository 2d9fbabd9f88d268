/**
 * The task contract: an RMBench task in the sim twin. One file per task in this folder exports a
 * `TaskDefinition`; the registry (index.ts) lists them. Tasks add their objects to a SimWorldApi,
 * track their own state in the scene (button presses, events) from `update`, and judge success and
 * MEMOBench-style checkpoints from privileged sim state.
 */
import type { RobotProfile } from "../../robot/types.js";
import type { SimWorldApi } from "../world/types.js";
import type { ReactiveExpert, ScriptedExpert } from "../expert/types.js";
import type { Rng } from "./rng.js";

/**
 * A robot kind a task lays its scene and experts out for: what a profile declares as `task_robot`
 * (robots/*.yaml; "x-one", "franka-droid" today). A task lists the kinds it supports.
 */
export type TaskRobot = string;

/** RMBench's task memory complexity: M(1) single global instruction, M(n) planner-driven subtasks. */
export type TaskMemoryClass = "M1" | "Mn";

/** MEMOBench checkpoint labels. */
export type CheckpointLabel = "storage" | "update" | "compression";

/** State every scene carries; each task extends it with its own objects and event state. */
export interface TaskScene {
  taskId: string;
  robot: TaskRobot;
  /** Control steps seen by `update` so far (the step index of the next update). */
  step: number;
}

/** An executable checkpoint: latched the first control step its predicate holds. */
export interface CheckpointDef<S extends TaskScene = TaskScene> {
  id: string;
  label: CheckpointLabel;
  description: string;
  predicate(world: SimWorldApi, scene: S): boolean;
}

/** One RMBench task. Methods (not arrow properties) so a registry of mixed scene types typechecks. */
export interface TaskDefinition<S extends TaskScene = TaskScene> {
  id: string;
  tmc: TaskMemoryClass;
  robots: TaskRobot[];
  /**
   * Sim seconds before the episode is cut off as a failure; the step limit at a profile's rate is
   * `stepLimit(task, control_hz)` (a rate-free number, as profiles differ in control_hz).
   */
  timeLimitS: number;
  /** Global task instruction shown to the policy / planner. */
  instruction(scene: S): string;
  /** Adds the task's objects to a freshly reset world, randomized from `rng` (same seed, same scene). */
  createScene(world: SimWorldApi, rng: Rng, robot: TaskRobot): S;
  /** The subtask list, in order, worded like RMBench annotations. */
  subtasks(scene: S): string[];
  /**
   * Ground truth, whoever drives: is subtask `index` of `subtasks(scene)` done now? Asked once per
   * control step after `update`, only for the first unfinished subtask (SubtaskProgress latches the
   * earlier ones), so a predicate may assume its predecessors are done. Done = the effect holds in
   * the world and the hand has let go and withdrawn (see progress.ts).
   */
  subtaskDone(world: SimWorldApi, scene: S, index: number): boolean;
  /** Called once per control step, after physics: tracks presses, placements, events. Increments scene.step. */
  update(world: SimWorldApi, scene: S): void;
  /** True when the task is accomplished (tolerances in the task file). */
  success(world: SimWorldApi, scene: S): boolean;
  checkpoints: CheckpointDef<S>[];
  /** A scripted expert for this scene. */
  expert(world: SimWorldApi, scene: S, robot: RobotProfile): ScriptedExpert;
  /** An expert that decides from the current ground truth (labels any state; DAgger), where the task has one. */
  reactiveExpert?(world: SimWorldApi, scene: S, robot: RobotProfile): ReactiveExpert;
}

/** Control steps (at `controlHz`) before an episode of `task` is cut off as a failure. */
export function stepLimit(task: { timeLimitS: number }, controlHz: number): number {
  return Math.ceil(task.timeLimitS * controlHz);
}
