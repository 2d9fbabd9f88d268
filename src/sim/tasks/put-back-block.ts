/**
 * Put Back Block (RMBench, M(1)): four identical mats; a block starts on one of them. Move the block
 * to the centre, press the button, then return the block to the mat it started on. The mats look
 * the same, so the original mat must be remembered across the press.
 */
import type { ObjectId, SimWorldApi, Vec3 } from "../world/types.js";
import { PlanExpert } from "../expert/PlanExpert.js";
import { ReactivePutBackBlockExpert } from "../expert/ReactivePutBackBlockExpert.js";
import { armFor, gripWidths, moveObjectOps, pressOps } from "../expert/primitives.js";
import { TABLE_Z, distXy } from "./geometry.js";
import { BLOCK_HALF, COLORS, addBlock, addButton, addPatch, restsAt, updateButton, type Button } from "./props.js";
import { letGo, pressLetGo } from "./progress.js";
import { PUT_BACK_BLOCK } from "../../task/put-back-block.js";
import { defineTask, type TaskDefinition, type TaskScene } from "./types.js";

/** Block on a mat: centre within this of the mat centre, m. */
const ON_MAT_TOL_M = 0.03;
/** Block at the centre: within this of the centre mark, m. */
const AT_CENTRE_TOL_M = 0.04;
const REST_Z = TABLE_Z + BLOCK_HALF;

/** Scene state of Put Back Block. */
export interface PutBackBlockScene extends TaskScene {
  mats: Vec3[];
  /** Index into mats of the block's starting mat. */
  originalMat: number;
  centre: Vec3;
  block: ObjectId;
  button: Button;
  /** Step at which the block first left its original mat (lifted or moved), or null. */
  leftOriginalStep: number | null;
  /** Step at which the block first rested at the centre, or null. */
  atCentreStep: number | null;
  /** Step of the first button press after the block rested at the centre, or null. */
  pressedAfterCentreStep: number | null;
}

function blockOnOriginal(world: SimWorldApi, s: PutBackBlockScene): boolean {
  return restsAt(world, s.block, s.mats[s.originalMat]!, ON_MAT_TOL_M, REST_Z) && world.armNames.every((a) => world.heldObject(a) !== s.block);
}

/** The Put Back Block task definition. */
export const putBackBlock = defineTask<PutBackBlockScene>(PUT_BACK_BLOCK, {
  createScene(world, rng, robot) {
    const dx = rng.uniform(-0.02, 0.02), dy = rng.uniform(-0.02, 0.02);
    const mats: Vec3[] = [[0.40, 0.2], [0.62, 0.2], [0.40, -0.2], [0.62, -0.2]].map(([x, y]) => [x! + dx, y! + dy, REST_Z]);
    mats.forEach((m, i) => addPatch(world, `mat_${i}`, m[0], m[1], 0.045, COLORS.mat));
    const centre: Vec3 = [0.52 + dx, dy, REST_Z];
    addPatch(world, "centre", centre[0], centre[1], 0.03, COLORS.centre);
    const button = addButton(world, "button", 0.32 + dx, dy, COLORS.red);
    const originalMat = rng.int(0, 3);
    const start = mats[originalMat]!;
    const block = addBlock(world, "block", start[0], start[1], COLORS.blue, rng.uniform(-0.3, 0.3));
    return {
      taskId: "put-back-block", robot, step: 0, mats, originalMat, centre, block, button,
      leftOriginalStep: null, atCentreStep: null, pressedAfterCentreStep: null,
    };
  },

  subtaskDone(world, s, index) {
    switch (index) {
      case 0: return restsAt(world, s.block, s.centre, AT_CENTRE_TOL_M, REST_Z) && letGo(world, s.block);
      case 1: return s.pressedAfterCentreStep !== null && pressLetGo(world, s.button);
      case 2: return blockOnOriginal(world, s) && letGo(world, s.block);
      default: return false;
    }
  },

  update(world, s) {
    const step = s.step++;
    const pressed = updateButton(world, s.button, step);
    const p = world.objectPose(s.block).position;
    if (s.leftOriginalStep === null && (distXy(p, s.mats[s.originalMat]!) > ON_MAT_TOL_M || p[2] > REST_Z + 0.02)) s.leftOriginalStep = step;
    if (s.atCentreStep === null && restsAt(world, s.block, s.centre, AT_CENTRE_TOL_M, REST_Z)) s.atCentreStep = step;
    if (pressed && s.atCentreStep !== null && s.pressedAfterCentreStep === null) s.pressedAfterCentreStep = step;
  },

  success: (world, s) => s.pressedAfterCentreStep !== null && blockOnOriginal(world, s),

  predicates: {
    "block-left-original": (_w, s) => s.leftOriginalStep !== null,
    "pressed-after-centre": (_w, s) => s.pressedAfterCentreStep !== null,
    "block-returned": (w, s) => s.pressedAfterCentreStep !== null && blockOnOriginal(w, s),
  },

  expert(world, s, robot) {
    const widths = gripWidths(world, robot);
    const original = s.mats[s.originalMat]!;
    const arm = armFor(world, original[1]);
    const [text1, text2, text3] = this.subtasks(s) as [string, string, string];
    return new PlanExpert(world, [
      { text: text1, ops: (w) => moveObjectOps(w, arm, s.block, s.centre, widths) },
      { text: text2, ops: () => pressOps(arm, s.button, widths) },
      { text: text3, ops: (w) => moveObjectOps(w, arm, s.block, original, widths) },
    ], { controlHz: robot.control_hz });
  },

  reactiveExpert(world, s, robot) {
    return new ReactivePutBackBlockExpert(world, s, this.subtasks(s), robot, { controlHz: robot.control_hz });
  },
});
