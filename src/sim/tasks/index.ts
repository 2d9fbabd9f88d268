/**
 * The task registry: every RMBench task of the sim twin, by id. Adding a task: its spec in
 * src/task/ (see src/task/index.ts), its file here and one entry below.
 */
import { batteryTry } from "./battery-try.js";
import { blocksRankingTry } from "./blocks-ranking-try.js";
import { coverBlocks } from "./cover-blocks.js";
import { moveCube } from "./move-cube.js";
import { observeAndPickUp } from "./observe-and-pick-up.js";
import { pressButton } from "./press-button.js";
import { putBackBlock } from "./put-back-block.js";
import { rearrangeBlocks } from "./rearrange-blocks.js";
import { swapBlocks } from "./swap-blocks.js";
import { swapT } from "./swap-t.js";
import type { TaskDefinition, TaskScene } from "./types.js";
import { videoPlaceOrder } from "./video-place-order.js";
import { videoUnmask } from "./video-unmask.js";
import { TASK_IDS, type TaskId } from "../../task/index.js";

export { taskRobotOf } from "../../task/index.js";

export type { CheckpointDef, CheckpointLabel, TaskDefinition, TaskMemoryClass, TaskRobot, TaskScene } from "./types.js";
export { stepLimit } from "./types.js";
export { mulberry32, type Rng } from "../../task/rng.js";
export { CheckpointTracker, type CheckpointReached } from "./checkpoints.js";
export { SubtaskProgress, handsClear, letGo, pressLetGo, released, WITHDRAWN_Z, CLEAR_XY_M, BUTTON_WITHDRAWN_M, type ProgressSource, type SubtaskEnd } from "./progress.js";

// Keyed by the task layer's ids, so a run config accepts exactly the tasks this registry has.
const BY_ID: Record<TaskId, TaskDefinition<TaskScene>> = {
  "put-back-block": putBackBlock, "rearrange-blocks": rearrangeBlocks, "swap-blocks": swapBlocks,
  "cover-blocks": coverBlocks, "press-button": pressButton, "observe-and-pick-up": observeAndPickUp,
  "swap-t": swapT, "battery-try": batteryTry, "blocks-ranking-try": blocksRankingTry,
  "video-place-order": videoPlaceOrder, "video-unmask": videoUnmask,
  "move-cube": moveCube,
};
const TASKS: TaskDefinition<TaskScene>[] = TASK_IDS.map((id) => BY_ID[id]);

/** All tasks: the first five in the order they were added, the other four RMBench tasks, then RoboMME's video tasks. */
export function listTasks(): TaskDefinition<TaskScene>[] {
  return TASKS.slice();
}

/** The task with this id; throws naming the known ids when there is none. */
export function getTask(id: string): TaskDefinition<TaskScene> {
  const task = TASKS.find((t) => t.id === id);
  if (!task) throw new Error(`unknown task "${id}" (known: ${TASKS.map((t) => t.id).join(", ")})`);
  return task;
}
