/**
 * The task registry: every RMBench task of the sim twin, by id. Adding a task: its id in
 * src/task/index.ts, its file and one entry here.
 */
import { batteryTry } from "./battery-try.js";
import { blocksRankingTry } from "./blocks-ranking-try.js";
import { coverBlocks } from "./cover-blocks.js";
import { observeAndPickUp } from "./observe-and-pick-up.js";
import { pressButton } from "./press-button.js";
import { putBackBlock } from "./put-back-block.js";
import { rearrangeBlocks } from "./rearrange-blocks.js";
import { swapBlocks } from "./swap-blocks.js";
import { swapT } from "./swap-t.js";
import type { TaskDefinition, TaskRobot, TaskScene } from "./types.js";
import { TASK_IDS, type TaskId } from "../../task/index.js";

export type { CheckpointDef, CheckpointLabel, TaskDefinition, TaskMemoryClass, TaskRobot, TaskScene } from "./types.js";
export { stepLimit } from "./types.js";
export { mulberry32, type Rng } from "./rng.js";
export { CheckpointTracker, type CheckpointReached } from "./checkpoints.js";
export { SubtaskProgress, handsClear, letGo, pressLetGo, released, WITHDRAWN_Z, CLEAR_XY_M, BUTTON_WITHDRAWN_M, type ProgressSource, type SubtaskEnd } from "./progress.js";

// Keyed by the task layer's ids, so a run config accepts exactly the tasks this registry has.
const BY_ID: Record<TaskId, TaskDefinition<TaskScene>> = {
  "put-back-block": putBackBlock, "rearrange-blocks": rearrangeBlocks, "swap-blocks": swapBlocks,
  "cover-blocks": coverBlocks, "press-button": pressButton, "observe-and-pick-up": observeAndPickUp,
  "swap-t": swapT, "battery-try": batteryTry, "blocks-ranking-try": blocksRankingTry,
};
const TASKS: TaskDefinition<TaskScene>[] = TASK_IDS.map((id) => BY_ID[id]);

/** All tasks: the first five in the order they were added, then the other four RMBench tasks. */
export function listTasks(): TaskDefinition<TaskScene>[] {
  return TASKS.slice();
}

/** The task with this id; throws naming the known ids when there is none. */
export function getTask(id: string): TaskDefinition<TaskScene> {
  const task = TASKS.find((t) => t.id === id);
  if (!task) throw new Error(`unknown task "${id}" (known: ${TASKS.map((t) => t.id).join(", ")})`);
  return task;
}

/** The robot kinds some task supports (what a profile's `task_robot` may name). */
export function knownTaskRobots(): TaskRobot[] {
  return [...new Set(TASKS.flatMap((t) => t.robots))];
}

/**
 * The robot kind a profile declares (`task_robot`); throws naming the profile and the known kinds if
 * none. Takes the two fields it reads, so the task registry needs nothing from the robot layer.
 */
export function taskRobotOf(profile: { name: string; task_robot?: string }): TaskRobot {
  const robot = profile.task_robot;
  if (robot === undefined) {
    const known = knownTaskRobots().join(", ");
    const why = `it declares no task_robot (kinds the tasks know: ${known})`;
    throw new Error(`robot profile "${profile.name}" is not a task robot: ${why}`);
  }
  return robot;
}
