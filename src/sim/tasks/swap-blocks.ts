/**
 * Swap Blocks (RMBench, M(1)): three identical trays in a row, a red and a blue block on two of
 * them, one empty. Swap the two blocks using the empty tray, then press the button. Which tray
 * each block started on must be remembered while both are moved.
 */
import type { ObjectId, SimWorldApi, Vec3 } from "../world/types.js";
import { PlanExpert } from "../expert/PlanExpert.js";
import { armFor, gripWidths, moveObjectOps, pressOps } from "../expert/primitives.js";
import { TABLE_Z } from "./geometry.js";
import { BLOCK_HALF, COLORS, addBlock, addButton, addPatch, restsAt, updateButton, type Button } from "./props.js";
import { letGo, pressLetGo } from "./progress.js";
import { SWAP_BLOCKS } from "../../task/swap-blocks.js";
import { defineTask, type TaskDefinition, type TaskScene } from "./types.js";

const ON_TRAY_TOL_M = 0.03;
const REST_Z = TABLE_Z + BLOCK_HALF;

/** Scene state of Swap Blocks. */
export interface SwapBlocksScene extends TaskScene {
  trays: Vec3[];
  red: ObjectId;
  blue: ObjectId;
  /** Tray indices the red and blue blocks started on, and the empty one. */
  redStart: number;
  blueStart: number;
  emptyStart: number;
  button: Button;
  redOnEmptyStep: number | null;
  blueOnRedStep: number | null;
  swappedStep: number | null;
  pressedAfterSwapStep: number | null;
}

function free(world: SimWorldApi, id: ObjectId): boolean {
  return world.armNames.every((a) => world.heldObject(a) !== id);
}

function rests(world: SimWorldApi, id: ObjectId, tray: Vec3): boolean {
  return restsAt(world, id, tray, ON_TRAY_TOL_M, REST_Z) && free(world, id);
}

function swapped(world: SimWorldApi, s: SwapBlocksScene): boolean {
  return rests(world, s.red, s.trays[s.blueStart]!) && rests(world, s.blue, s.trays[s.redStart]!);
}

/** The Swap Blocks task definition. */
export const swapBlocks = defineTask<SwapBlocksScene>(SWAP_BLOCKS, {
  createScene(world, rng, robot) {
    const dx = rng.uniform(-0.02, 0.02), dy = rng.uniform(-0.02, 0.02);
    const trays: Vec3[] = [0.18, 0, -0.18].map((y) => [0.52 + dx, y + dy, REST_Z]);
    trays.forEach((t, i) => addPatch(world, `tray_${i}`, t[0], t[1], 0.045, COLORS.tray));
    const [redStart, blueStart, emptyStart] = rng.shuffle([0, 1, 2]) as [number, number, number];
    const red = addBlock(world, "red_block", trays[redStart]![0], trays[redStart]![1], COLORS.red, rng.uniform(-0.3, 0.3));
    const blue = addBlock(world, "blue_block", trays[blueStart]![0], trays[blueStart]![1], COLORS.blue, rng.uniform(-0.3, 0.3));
    const button = addButton(world, "button", 0.32 + dx, dy, COLORS.yellow);
    return {
      taskId: "swap-blocks", robot, step: 0, trays, red, blue, redStart, blueStart, emptyStart, button,
      redOnEmptyStep: null, blueOnRedStep: null, swappedStep: null, pressedAfterSwapStep: null,
    };
  },

  subtaskDone(world, s, index) {
    const placed = (id: ObjectId, tray: number) => rests(world, id, s.trays[tray]!) && letGo(world, id);
    switch (index) {
      case 0: return placed(s.red, s.emptyStart);
      case 1: return placed(s.blue, s.redStart);
      case 2: return placed(s.red, s.blueStart);
      case 3: return s.pressedAfterSwapStep !== null && pressLetGo(world, s.button);
      default: return false;
    }
  },

  update(world, s) {
    const step = s.step++;
    const pressed = updateButton(world, s.button, step);
    if (s.redOnEmptyStep === null && rests(world, s.red, s.trays[s.emptyStart]!)) s.redOnEmptyStep = step;
    if (s.blueOnRedStep === null && rests(world, s.blue, s.trays[s.redStart]!)) s.blueOnRedStep = step;
    if (s.swappedStep === null && swapped(world, s)) s.swappedStep = step;
    if (pressed && s.swappedStep !== null && s.pressedAfterSwapStep === null) s.pressedAfterSwapStep = step;
  },

  success: (world, s) => s.pressedAfterSwapStep !== null && swapped(world, s),

  predicates: {
    "red-on-empty-tray": (_w, s) => s.redOnEmptyStep !== null,
    "blue-on-red-tray": (_w, s) => s.blueOnRedStep !== null,
    "swapped-and-pressed": (w, s) => s.pressedAfterSwapStep !== null && swapped(w, s),
  },

  expert(world, s, robot) {
    const widths = gripWidths(world, robot);
    const [t1, t2, t3, t4] = this.subtasks(s) as [string, string, string, string];
    const transfer = (id: ObjectId, from: number, to: number) => (w: SimWorldApi) =>
      moveObjectOps(w, armFor(w, (s.trays[from]![1] + s.trays[to]![1]) / 2), id, s.trays[to]!, widths);
    return new PlanExpert(world, [
      { text: t1, ops: transfer(s.red, s.redStart, s.emptyStart) },
      { text: t2, ops: transfer(s.blue, s.blueStart, s.redStart) },
      { text: t3, ops: transfer(s.red, s.emptyStart, s.blueStart) },
      { text: t4, ops: (w) => pressOps(armFor(w, s.button.capTop[1]), s.button, widths) },
    ], { controlHz: robot.control_hz });
  },
});
