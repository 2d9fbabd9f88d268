/**
 * The ids of every task Engram knows, below config/ and sim/ so a run config's `task:` field, the
 * task specs (registry.ts) and the sim's task registry (src/sim/tasks/index.ts) share one list.
 */

/**
 * Task ids in registry order: the first five RMBench tasks added, then the other four, then
 * RoboMME's video tasks on the Franka (DESIGN.md §5).
 */
export const TASK_IDS = [
  "put-back-block", "rearrange-blocks", "swap-blocks", "cover-blocks", "press-button",
  "observe-and-pick-up", "swap-t", "battery-try", "blocks-ranking-try",
  "video-place-order", "video-unmask", "move-cube",
] as const;

/** One task id. */
export type TaskId = (typeof TASK_IDS)[number];
