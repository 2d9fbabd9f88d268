/**
 * The task specs by id, and what a run reads from them without a simulator: the spec of an id
 * (an unknown id names the known ones) and a seed's nominal instruction and subtasks.
 */
import { BATTERY_TRY } from "./battery-try.js";
import { BLOCKS_RANKING_TRY } from "./blocks-ranking-try.js";
import { COVER_BLOCKS } from "./cover-blocks.js";
import { MOVE_CUBE } from "./move-cube.js";
import { TASK_IDS, type TaskId } from "./ids.js";
import { OBSERVE_AND_PICK_UP } from "./observe-and-pick-up.js";
import { PRESS_BUTTON } from "./press-button.js";
import { PUT_BACK_BLOCK } from "./put-back-block.js";
import { REARRANGE_BLOCKS } from "./rearrange-blocks.js";
import { mulberry32 } from "./rng.js";
import { SWAP_BLOCKS } from "./swap-blocks.js";
import { SWAP_T } from "./swap-t.js";
import type { TaskSpec } from "./types.js";
import { VIDEO_PLACE_ORDER } from "./video-place-order.js";
import { VIDEO_UNMASK } from "./video-unmask.js";

const BY_ID: Record<TaskId, TaskSpec> = {
  "put-back-block": PUT_BACK_BLOCK, "rearrange-blocks": REARRANGE_BLOCKS, "swap-blocks": SWAP_BLOCKS,
  "cover-blocks": COVER_BLOCKS, "press-button": PRESS_BUTTON, "observe-and-pick-up": OBSERVE_AND_PICK_UP,
  "swap-t": SWAP_T, "battery-try": BATTERY_TRY, "blocks-ranking-try": BLOCKS_RANKING_TRY,
  "video-place-order": VIDEO_PLACE_ORDER, "video-unmask": VIDEO_UNMASK,
  "move-cube": MOVE_CUBE,
};

/** True when `id` names a task. */
export function isTaskId(id: string): id is TaskId {
  return (TASK_IDS as readonly string[]).includes(id);
}

/** Every task spec, in TASK_IDS order. */
export function listTaskSpecs(): TaskSpec[] {
  return TASK_IDS.map((id) => BY_ID[id]);
}

/** The spec of task `id`; throws naming the known ids when there is none. */
export function getTaskSpec(id: string): TaskSpec {
  if (!isTaskId(id)) throw new Error(`unknown task "${id}" (known: ${TASK_IDS.join(", ")})`);
  return BY_ID[id];
}

/** The texts a policy and a planner are given for one scene. */
export interface TaskTexts { instruction: string; subtasks: string[] }

/**
 * A task's instruction and subtask list for `seed` (the sim twin's scene for that seed has the
 * same): what a hardware trial tells the policy and the oracle-list planner when no instruction is
 * given. NOTE: on hardware the real scene is whatever the operator set up; pass the instruction
 * explicitly when it differs from the seed's nominal scene (e.g. other block colours).
 */
export function nominalTexts(spec: TaskSpec, seed: number): TaskTexts {
  const drawn = spec.draw ? spec.draw(mulberry32(seed)) : {};
  return { instruction: spec.instructionFor?.(drawn) ?? spec.instruction, subtasks: spec.subtasks(drawn) };
}
