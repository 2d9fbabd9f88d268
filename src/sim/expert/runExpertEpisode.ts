/**
 * Lock-step expert rollout, free of the bus: seeds the scene, then per control tick asks the
 * expert for targets, steps physics, updates the task, latches checkpoints and checks success.
 * A task with a demonstration (RoboMME's video tasks) runs it first, as the twin's node does.
 */
import type { RobotProfile } from "../../robot/types.js";
import type { SimWorldApi } from "../world/types.js";
import { CheckpointTracker, type CheckpointReached } from "../tasks/checkpoints.js";
import { taskRobotOf } from "../tasks/index.js";
import { mulberry32 } from "../../task/rng.js";
import { stepLimit, type TaskDefinition, type TaskScene } from "../tasks/types.js";
import type { ReactiveExpert, SubtaskAnnotation } from "./types.js";

/** A world the runner can advance (SimWorld): the contract plus one physics step of 1/physicsHz s. */
export interface SteppableWorld extends SimWorldApi {
  readonly physicsHz: number;
  step(): void;
}

/** What the runner reports after each control tick. */
export interface ExpertTick {
  step: number;
  targets: Float64Array;
  subtask?: string;
  subtaskEnded?: string;
  checkpoints: CheckpointReached[];
  success: boolean;
}

/** Options of a rollout. */
export interface ExpertEpisodeOptions {
  profile: RobotProfile;
  /** Control rate, Hz; defaults to profile.control_hz. */
  controlHz?: number;
  /** Called after every control tick (after physics and the task update). */
  onStep?: (tick: ExpertTick, world: SteppableWorld, scene: TaskScene) => void;
  /** "plan" (default): the task's PlanExpert; "reactive": its expert that decides from the current ground truth. */
  expert?: "plan" | "reactive";
  /** Replaces the expert's targets before they are applied (disturbances in tests: a shove, a drop). */
  override?: (step: number, targets: Float64Array, world: SteppableWorld, scene: TaskScene) => Float64Array;
}

/** The outcome of a rollout. */
export interface ExpertEpisodeResult {
  task: string;
  seed: number;
  instruction: string;
  success: boolean;
  steps: number;
  checkpoints: CheckpointReached[];
  annotations: SubtaskAnnotation[];
  /** Ground-truth subtask ends: the control step each subtask ended. */
  subtaskEnds: { text: string; step: number }[];
  /** Control steps of the demonstration run before execution (0 for a task without one). */
  demonstrationSteps: number;
}

/**
 * Runs one expert episode on a freshly reset world (robot at home, no task objects). Ends when the
 * expert is done and the task succeeded (or half a second after the expert is done), or at the
 * task's step limit. Throws when the task does not support the robot or the rates do not divide.
 */
export function runExpertEpisode(world: SteppableWorld, task: TaskDefinition<TaskScene>, seed: number, options: ExpertEpisodeOptions): ExpertEpisodeResult {
  const controlHz = options.controlHz ?? options.profile.control_hz;
  const physicsHz = world.physicsHz;
  const substeps = Math.round(physicsHz / controlHz);
  if (substeps < 1 || Math.abs(substeps * controlHz - physicsHz) > 1e-6) {
    throw new Error(`expert episode: world physicsHz ${physicsHz} is not a whole multiple of controlHz ${controlHz} [task=${task.id}]`);
  }
  const robot = taskRobotOf(options.profile);
  if (!task.robots.includes(robot)) throw new Error(`task "${task.id}" does not run on robot "${robot}" (supported: ${task.robots.join(", ")})`);

  const scene = task.createScene(world, mulberry32(seed), robot);
  const demonstrationSteps = task.demonstration ? runDemonstration(world, task, scene, options.profile, substeps) : 0;
  const expert = options.expert === "reactive" ? reactiveExpertOf(task, world, scene, options.profile) : task.expert(world, scene, options.profile);
  const tracker = new CheckpointTracker(task.checkpoints);
  const limit = stepLimit(task, controlHz);
  const settleTicks = Math.ceil(controlHz / 2);
  const subtaskEnds: { text: string; step: number }[] = [];
  let success = false, steps = 0, doneTicks = 0;
  for (let step = 0; step < limit; step++) {
    const out = expert.next(world, step);
    world.setJointTargets(options.override ? options.override(step, out.targets, world, scene) : out.targets);
    for (let k = 0; k < substeps; k++) world.step();
    task.update(world, scene);
    const checkpoints = tracker.evaluate(world, scene, step);
    success = task.success(world, scene);
    if (out.subtaskEnded !== undefined) subtaskEnds.push({ text: out.subtaskEnded, step });
    const tick: ExpertTick = { step, targets: out.targets, checkpoints, success };
    if (out.subtask !== undefined) tick.subtask = out.subtask;
    if (out.subtaskEnded !== undefined) tick.subtaskEnded = out.subtaskEnded;
    options.onStep?.(tick, world, scene);
    steps = step + 1;
    if (out.done && (success || ++doneTicks >= settleTicks)) break;
  }
  return {
    task: task.id, seed, instruction: task.instruction(scene), success, steps,
    checkpoints: tracker.reached(), annotations: expert.annotations(), subtaskEnds, demonstrationSteps,
  };
}

/** Demonstration control steps allowed before a rollout gives up on it, as a multiple of the task's step limit. */
const DEMO_LIMIT_FACTOR = 2;

/**
 * Drives the task's demonstration to its end (the scene's execution-start state), without the task's
 * update, checkpoints or success (as TaskEpisode's demonstration phase); returns its control steps.
 * Throws naming the task when it does not finish within DEMO_LIMIT_FACTOR step limits.
 */
function runDemonstration(
  world: SteppableWorld, task: TaskDefinition<TaskScene>, scene: TaskScene, profile: RobotProfile, substeps: number,
): number {
  const demo = task.demonstration!(world, scene, profile);
  const limit = DEMO_LIMIT_FACTOR * stepLimit(task, world.physicsHz / substeps);
  for (let step = 0; step < limit; step++) {
    const out = demo.next(world, step);
    world.setJointTargets(out.targets);
    for (let k = 0; k < substeps; k++) world.step();
    if (out.done) return step + 1;
  }
  throw new Error(`task "${task.id}": its demonstration did not finish within ${limit} control steps`);
}

/** The task's reactive expert; throws naming the task when it has none. */
export function reactiveExpertOf(task: TaskDefinition<TaskScene>, world: SimWorldApi, scene: TaskScene, profile: RobotProfile): ReactiveExpert {
  if (!task.reactiveExpert) throw new Error(`task "${task.id}" has no reactive expert (its src/sim/tasks/ file defines no reactiveExpert)`);
  return task.reactiveExpert(world, scene, profile);
}
