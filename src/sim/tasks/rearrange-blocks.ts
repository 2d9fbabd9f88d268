/**
 * Rearrange Blocks (RMBench, M(1)): four identical mats; a red and a green block start on two of
 * them. Move each block onto the square of its colour, press the button, then put each block back
 * on the mat it started on. Both starting mats must be remembered across the press.
 */
import type { ObjectId, SimWorldApi, Vec3 } from "../world/types.js";
import { PlanExpert } from "../expert/PlanExpert.js";
import { armFor, gripWidths, moveObjectOps, pressOps } from "../expert/primitives.js";
import { TABLE_Z } from "./geometry.js";
import { BLOCK_HALF, COLORS, addBlock, addButton, addPatch, restsAt, updateButton, type Button } from "./props.js";
import { letGo, pressLetGo } from "./progress.js";
import { REARRANGE_BLOCKS } from "../../task/rearrange-blocks.js";
import { defineTask, type TaskDefinition, type TaskScene } from "./types.js";

const ON_MAT_TOL_M = 0.03;
const REST_Z = TABLE_Z + BLOCK_HALF;

/** Scene state of Rearrange Blocks. */
export interface RearrangeBlocksScene extends TaskScene {
  mats: Vec3[];
  squares: { red: Vec3; green: Vec3 };
  red: ObjectId;
  green: ObjectId;
  redStart: number;
  greenStart: number;
  button: Button;
  inSquaresStep: number | null;
  pressedAfterSquaresStep: number | null;
}

function rests(world: SimWorldApi, id: ObjectId, at: Vec3): boolean {
  return restsAt(world, id, at, ON_MAT_TOL_M, REST_Z) && world.armNames.every((a) => world.heldObject(a) !== id);
}

function restored(world: SimWorldApi, s: RearrangeBlocksScene): boolean {
  return rests(world, s.red, s.mats[s.redStart]!) && rests(world, s.green, s.mats[s.greenStart]!);
}

/** The Rearrange Blocks task definition. */
export const rearrangeBlocks = defineTask<RearrangeBlocksScene>(REARRANGE_BLOCKS, {
  createScene(world, rng, robot) {
    const dx = rng.uniform(-0.02, 0.02), dy = rng.uniform(-0.02, 0.02);
    const mats: Vec3[] = [[0.47, 0.19], [0.65, 0.19], [0.47, -0.19], [0.65, -0.19]].map(([x, y]) => [x! + dx, y! + dy, REST_Z]);
    mats.forEach((m, i) => addPatch(world, `mat_${i}`, m[0], m[1], 0.045, COLORS.mat));
    const squares = { red: [0.33 + dx, 0.15 + dy, REST_Z] as Vec3, green: [0.33 + dx, -0.15 + dy, REST_Z] as Vec3 };
    addPatch(world, "red_square", squares.red[0], squares.red[1], 0.035, COLORS.red);
    addPatch(world, "green_square", squares.green[0], squares.green[1], 0.035, COLORS.green);
    const button = addButton(world, "button", 0.56 + dx, dy, COLORS.yellow);
    const [redStart, greenStart] = rng.shuffle([0, 1, 2, 3]) as [number, number];
    const red = addBlock(world, "red_block", mats[redStart]![0], mats[redStart]![1], COLORS.red, rng.uniform(-0.3, 0.3));
    const green = addBlock(world, "green_block", mats[greenStart]![0], mats[greenStart]![1], COLORS.green, rng.uniform(-0.3, 0.3));
    return {
      taskId: "rearrange-blocks", robot, step: 0, mats, squares, red, green, redStart, greenStart, button,
      inSquaresStep: null, pressedAfterSquaresStep: null,
    };
  },

  subtaskDone(world, s, index) {
    const placed = (id: ObjectId, at: Vec3) => rests(world, id, at) && letGo(world, id);
    switch (index) {
      case 0: return placed(s.red, s.squares.red);
      case 1: return placed(s.green, s.squares.green);
      case 2: return s.pressedAfterSquaresStep !== null && pressLetGo(world, s.button);
      case 3: return placed(s.red, s.mats[s.redStart]!);
      case 4: return placed(s.green, s.mats[s.greenStart]!);
      default: return false;
    }
  },

  update(world, s) {
    const step = s.step++;
    const pressed = updateButton(world, s.button, step);
    if (s.inSquaresStep === null && rests(world, s.red, s.squares.red) && rests(world, s.green, s.squares.green)) s.inSquaresStep = step;
    if (pressed && s.inSquaresStep !== null && s.pressedAfterSquaresStep === null) s.pressedAfterSquaresStep = step;
  },

  success: (world, s) => s.pressedAfterSquaresStep !== null && restored(world, s),

  predicates: {
    "blocks-in-squares": (_w, s) => s.inSquaresStep !== null,
    "pressed-after-squares": (_w, s) => s.pressedAfterSquaresStep !== null,
    "blocks-restored": (w, s) => s.pressedAfterSquaresStep !== null && restored(w, s),
  },

  expert(world, s, robot) {
    const widths = gripWidths(world, robot);
    const [t1, t2, t3, t4, t5] = this.subtasks(s) as [string, string, string, string, string];
    const move = (id: ObjectId, from: Vec3, to: Vec3) => (w: SimWorldApi) =>
      moveObjectOps(w, armFor(w, (from[1] + to[1]) / 2), id, to, widths);
    const redMat = s.mats[s.redStart]!, greenMat = s.mats[s.greenStart]!;
    return new PlanExpert(world, [
      { text: t1, ops: move(s.red, redMat, s.squares.red) },
      { text: t2, ops: move(s.green, greenMat, s.squares.green) },
      { text: t3, ops: (w) => pressOps(armFor(w, s.button.capTop[1]), s.button, widths) },
      { text: t4, ops: move(s.red, s.squares.red, redMat) },
      { text: t5, ops: move(s.green, s.squares.green, greenMat) },
    ], { controlHz: robot.control_hz });
  },
});
