/**
 * The sim side of a task: an RMBench task's spec (src/task/) with what only the twin has: its
 * scene, success check, checkpoint predicates and experts. One file per task in this folder exports
 * a `TaskDefinition` built by `defineTask`; the registry (index.ts) lists them. Tasks add their
 * objects to a SimWorldApi, track their own state in the scene (button presses, events) from
 * `update`, and judge success and MEMOBench-style checkpoints from privileged sim state.
 */
import type { RobotProfile } from "../../robot/types.js";
import type { CheckpointSpec, TaskMemoryClass, TaskRobot, TaskSpec } from "../../task/index.js";
import type { Rng } from "../../task/rng.js";
import type { SimWorldApi } from "../world/types.js";
import type { ReactiveExpert, ScriptedExpert } from "../expert/types.js";

export type { CheckpointLabel, TaskMemoryClass, TaskRobot } from "../../task/index.js";
export { stepLimit } from "../../task/index.js";

/** State every scene carries; each task extends it with its own objects and event state. */
export interface TaskScene {
  taskId: string;
  robot: TaskRobot;
  /** Control steps seen by `update` so far (the step index of the next update). */
  step: number;
}

/** Whether a checkpoint holds now, from privileged sim state. */
export type CheckpointPredicate<S extends TaskScene> = (world: SimWorldApi, scene: S) => boolean;

/** An executable checkpoint: latched the first control step its predicate holds. */
export interface CheckpointDef<S extends TaskScene = TaskScene> extends CheckpointSpec {
  predicate(world: SimWorldApi, scene: S): boolean;
}

/** What a task file adds to its spec. Methods (not arrow properties) so a registry of mixed scene types typechecks. */
export interface SimTaskParts<S extends TaskScene> {
  /** Adds the task's objects to a freshly reset world, randomized from `rng` (same seed, same scene). */
  createScene(world: SimWorldApi, rng: Rng, robot: TaskRobot): S;
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
  /** One predicate per checkpoint of the spec, by checkpoint id. */
  predicates: Record<string, CheckpointPredicate<S>>;
  /**
   * RoboMME's video tasks: the scripted demonstration a motion planner performs in this scene before
   * execution (the video the policy is shown). Made right after `createScene`, driven from control
   * step 0 until it reports `done`; it leaves the scene in its execution-start state (arm at home).
   * `update`, checkpoints, success and subtask progress start after it (see sim/node/TaskEpisode.ts).
   */
  demonstration?(this: TaskDefinition<S>, world: SimWorldApi, scene: S, robot: RobotProfile): ScriptedExpert;
  /** A scripted expert for this scene (the execution phase, after any demonstration). */
  expert(this: TaskDefinition<S>, world: SimWorldApi, scene: S, robot: RobotProfile): ScriptedExpert;
  /** An expert that decides from the current ground truth (labels any state; DAgger), where the task has one. */
  reactiveExpert?(this: TaskDefinition<S>, world: SimWorldApi, scene: S, robot: RobotProfile): ReactiveExpert;
}

/** One RMBench task in the twin: its spec's facts, read from the spec, and the sim's parts. */
export interface TaskDefinition<S extends TaskScene = TaskScene> {
  readonly spec: TaskSpec;
  readonly id: string;
  readonly tmc: TaskMemoryClass;
  readonly robots: readonly TaskRobot[];
  /** The spec's time limit, s (see stepLimit). */
  readonly timeLimitS: number;
  /** Global task instruction shown to the policy / planner. */
  instruction(scene: S): string;
  createScene(world: SimWorldApi, rng: Rng, robot: TaskRobot): S;
  /** The spec's subtask list for this scene, in order. */
  subtasks(scene: S): string[];
  subtaskDone(world: SimWorldApi, scene: S, index: number): boolean;
  update(world: SimWorldApi, scene: S): void;
  success(world: SimWorldApi, scene: S): boolean;
  /** The spec's checkpoints, in its order, each with its predicate. */
  checkpoints: CheckpointDef<S>[];
  /** The scripted demonstration (SimTaskParts.demonstration), where the task has one. */
  demonstration?(world: SimWorldApi, scene: S, robot: RobotProfile): ScriptedExpert;
  expert(world: SimWorldApi, scene: S, robot: RobotProfile): ScriptedExpert;
  reactiveExpert?(world: SimWorldApi, scene: S, robot: RobotProfile): ReactiveExpert;
}

/** A spec whose subtask list (and instruction, if it varies) can be read from scene `S`. */
interface SubtasksOf<S> { subtasks(scene: S): string[]; instructionFor?(scene: S): string }

/**
 * A task definition from its spec and the sim's parts: id, memory class, robots, time limit,
 * instruction, subtasks and checkpoint labels all come from `spec`. Throws naming the task when
 * the predicates do not match the spec's checkpoints one to one.
 */
export function defineTask<S extends TaskScene>(
  spec: TaskSpec & SubtasksOf<S>, parts: SimTaskParts<S>,
): TaskDefinition<S> {
  const ids = spec.checkpoints.map((c) => c.id);
  const extra = Object.keys(parts.predicates).filter((id) => !ids.includes(id));
  const missing = ids.filter((id) => !Object.hasOwn(parts.predicates, id));
  if (extra.length > 0 || missing.length > 0) {
    throw new Error(`task "${spec.id}": checkpoint predicates do not match its spec `
      + `(missing: ${missing.join(", ") || "none"}; not in the spec: ${extra.join(", ") || "none"})`);
  }
  const { predicates, ...rest } = parts;
  return {
    spec,
    id: spec.id, tmc: spec.tmc, robots: spec.robots, timeLimitS: spec.timeLimitS,
    instruction: (scene: S) => spec.instructionFor?.(scene) ?? spec.instruction,
    subtasks: (scene: S) => spec.subtasks(scene),
    checkpoints: spec.checkpoints.map((c) => ({ ...c, predicate: predicates[c.id]! })),
    ...rest,
  };
}
