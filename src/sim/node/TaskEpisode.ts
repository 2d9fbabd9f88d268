/**
 * One task episode inside the sim: the seeded scene, the control-step counter, latched
 * checkpoints, success, and the ground-truth subtask stream. When the scripted expert drives, its
 * annotations are the subtask stream (they are the training labels) and the progress-based ends
 * (the task's `subtaskDone`, see tasks/progress.ts) are kept beside them; when anything else drives
 * (a learned policy, teleop), the progress-based ends are the stream. The node calls `tick` once
 * per control step after physics; what it returns is what goes on the /sim/* topics.
 *
 * A task with a `demonstration` (RoboMME's video tasks) starts in a demonstration phase: the
 * demonstration expert drives, whoever else would, and the task's update, checkpoints, success,
 * progress and step limit wait; once it is done the execution phase starts at step 0. A definition
 * whose `expert` is its `demonstration` (`{ ...task, expert: task.demonstration }`) has no such
 * phase: the demonstration is then the episode.
 */
import type { RobotProfile } from "../../robot/types.js";
import type { ScriptedExpert } from "../expert/types.js";
import { CheckpointTracker, type CheckpointReached } from "../tasks/checkpoints.js";
import { taskRobotOf } from "../tasks/index.js";
import { SubtaskProgress, type SubtaskEnd } from "../tasks/progress.js";
import { mulberry32 } from "../../task/rng.js";
import { stepLimit, type TaskDefinition, type TaskScene } from "../tasks/types.js";
import type { SimWorldApi } from "../world/types.js";

/** What happened on one control step. */
export interface EpisodeTick {
  step: number;
  /** Subtask text that ended on this step (the expert's annotation, or ground-truth progress without an expert). */
  subtaskEnded?: string;
  /** Subtask in progress after this step, when it changed. */
  subtaskChanged?: string;
  checkpoints: CheckpointReached[];
  success: boolean;
  /** True on the step the episode ends (success after the expert is done, success without an expert, or the step limit). */
  done: boolean;
  /** True on the control steps of the demonstration phase (`step` counts them from 0, as execution's do). */
  demonstration?: boolean;
}

/** The task side of an episode. */
export class TaskEpisode {
  readonly scene: TaskScene;
  readonly limit: number;
  readonly instruction: string;
  readonly expert: ScriptedExpert | null;
  private readonly tracker: CheckpointTracker<TaskScene>;
  private steps = 0;
  private succeeded = false;
  private finished = false;
  private subtask: string | undefined;
  private readonly subtaskEnds: SubtaskEnd[] = [];
  private readonly progress: SubtaskProgress<TaskScene>;
  private doneTicks = 0;
  /** The demonstration expert while its phase runs; null once execution has started (or without one). */
  private demo: ScriptedExpert | null;
  private demoSteps = 0;
  private demoFinished = false;

  /** Creates the scene for `seed` in a freshly reset world; with `withExpert` the scripted expert drives. */
  constructor(readonly task: TaskDefinition<TaskScene>, readonly seed: number, world: SimWorldApi, profile: RobotProfile, readonly controlHz: number, withExpert: boolean) {
    const robot = taskRobotOf(profile);
    if (!task.robots.includes(robot)) throw new Error(`task "${task.id}" does not run on robot "${robot}" (supported: ${task.robots.join(", ")})`);
    this.scene = task.createScene(world, mulberry32(seed), robot);
    this.instruction = task.instruction(this.scene);
    this.limit = stepLimit(task, controlHz);
    this.tracker = new CheckpointTracker(task.checkpoints);
    // No phase when the demonstration is itself the episode's expert (a twin that only records the video).
    const demonstrates = task.demonstration !== undefined && task.expert !== task.demonstration;
    this.demo = demonstrates ? task.demonstration!(world, this.scene, profile) : null;
    this.expert = withExpert ? task.expert(world, this.scene, profile) : null;
    this.progress = new SubtaskProgress(task, this.scene);
    this.subtask = this.progress.current;
  }

  /** True while the demonstration phase runs (its expert drives the robot). */
  get inDemonstration(): boolean { return this.demo !== null; }
  /** Control steps the demonstration took (so far, while it runs). */
  get demonstrationSteps(): number { return this.demoSteps; }
  /** True when an expert's targets drive the robot on the next control step: the demonstration's or the expert's. */
  get expertDrives(): boolean { return this.demo !== null || this.expert !== null; }

  /** Control steps of the execution phase run so far. */
  get stepCount(): number { return this.steps; }
  get success(): boolean { return this.succeeded; }
  get done(): boolean { return this.finished; }
  /** Current subtask text (expert-driven: the expert's; otherwise the first subtask not yet done); undefined once all are done. */
  get currentSubtask(): string | undefined { return this.subtask; }
  checkpoints(): CheckpointReached[] { return this.tracker.reached(); }
  /** Ground-truth subtask ends so far: the expert's annotated ends when it drives, else progressEnds(). */
  ends(): SubtaskEnd[] { return this.subtaskEnds.map((e) => ({ ...e })); }
  /** Subtask ends from the task's progress predicates (privileged state), whoever drives. */
  progressEnds(): SubtaskEnd[] { return this.progress.ends(); }
  /** Subtasks done so far by the progress predicates. */
  get subtasksDone(): number { return this.progress.completed; }

  /** Expert targets for the next control step (null when no expert drives). */
  expertTargets(world: SimWorldApi): { targets: Float64Array; subtaskEnded?: string; subtask?: string; done: boolean } | null {
    // The demonstration's own subtask texts stay out of the episode's stream (only its targets drive).
    if (this.demo) {
      const out = this.demo.next(world, this.demoSteps);
      this.demoFinished = out.done;
      return { targets: out.targets, done: false };
    }
    return this.expert ? this.expert.next(world, this.steps) : null;
  }

  /** Called after the physics of one control step, with the expert's output of that step if any. */
  tick(world: SimWorldApi, expertOut: { subtaskEnded?: string; subtask?: string; done: boolean } | null): EpisodeTick {
    if (this.demo) return this.demoTick();
    const step = this.steps;
    this.task.update(world, this.scene);
    const checkpoints = this.tracker.evaluate(world, this.scene, step);
    this.succeeded = this.task.success(world, this.scene);
    const progressed = this.progress.evaluate(world, this.scene, step);
    const out: EpisodeTick = { step, checkpoints, success: this.succeeded, done: false };
    // The expert's annotations when it drives (expertOut is null on a tick without one), else progress.
    const ended = this.expert ? expertOut?.subtaskEnded : progressed?.text;
    const next = this.expert ? (expertOut ? expertOut.subtask : this.subtask) : this.progress.current;
    if (ended !== undefined) {
      out.subtaskEnded = ended;
      this.subtaskEnds.push({ text: ended, step });
    }
    if (next !== this.subtask) {
      this.subtask = next;
      if (next !== undefined) out.subtaskChanged = next;
    }
    this.steps = step + 1;
    const settleTicks = Math.ceil(this.controlHz / 2);
    const expertDone = expertOut ? expertOut.done && (this.succeeded || ++this.doneTicks >= settleTicks) : this.succeeded;
    if (!this.finished && (expertDone || this.steps >= this.limit)) { this.finished = true; out.done = true; }
    return out;
  }

  /** One control step of the demonstration phase: execution starts after the step its expert reports done. */
  private demoTick(): EpisodeTick {
    const step = this.demoSteps++;
    if (this.demoFinished) this.demo = null;
    return { step, checkpoints: [], success: false, done: false, demonstration: true };
  }
}
