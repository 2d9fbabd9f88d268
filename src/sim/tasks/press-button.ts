/**
 * Press Button (RMBench, M(n)): two digits n1, n2 are shown on the table as seven-segment bars
 * behind the left and middle buttons. Press the left button n1 times, the middle button n2 times,
 * then the confirm (right) button. Every press is the same subtask text, so progress must be
 * counted from memory. n1, n2 ∈ 1..3 to keep episodes short.
 */
import type { SimWorldApi } from "../world/types.js";
import { PlanExpert, type PlannedSubtask } from "../expert/PlanExpert.js";
import { armFor, gripWidths, pressOps } from "../expert/primitives.js";
import { COLORS, addButton, addDigit, updateButton, type Button } from "./props.js";
import { pressLetGo } from "./progress.js";
import type { TaskDefinition, TaskScene } from "./types.js";

/** Scene state of Press Button. */
export interface PressButtonScene extends TaskScene {
  n1: number;
  n2: number;
  left: Button;
  middle: Button;
  confirm: Button;
  /** Counts of the left and middle buttons when confirm was first pressed, or null before that. */
  countsAtConfirm: { left: number; middle: number } | null;
}

const LEFT_TEXT = "press the left button";
const MIDDLE_TEXT = "press the middle button";
const CONFIRM_TEXT = "press the confirm button";

function confirmedCorrect(s: PressButtonScene): boolean {
  return s.countsAtConfirm !== null && s.countsAtConfirm.left === s.n1 && s.countsAtConfirm.middle === s.n2;
}

/** The Press Button task definition. */
export const pressButton: TaskDefinition<PressButtonScene> = {
  id: "press-button",
  tmc: "Mn",
  robots: ["x-one", "franka-droid"],
  timeLimitS: 45,
  instruction: () =>
    "Press the left button as many times as the left digit shows, then the middle button as many times as the middle digit shows, then press the confirm button.",

  createScene(world, rng, robot) {
    const dx = rng.uniform(-0.02, 0.02), dy = rng.uniform(-0.02, 0.02);
    const n1 = rng.int(1, 3), n2 = rng.int(1, 3);
    const bx = 0.42 + dx;
    const left = addButton(world, "left_button", bx, 0.17 + dy, COLORS.red);
    const middle = addButton(world, "middle_button", bx, dy, COLORS.green);
    const confirm = addButton(world, "confirm_button", bx, -0.17 + dy, COLORS.blue);
    addDigit(world, "left_digit", n1, bx + 0.17, 0.17 + dy);
    addDigit(world, "middle_digit", n2, bx + 0.17, dy);
    return { taskId: "press-button", robot, step: 0, n1, n2, left, middle, confirm, countsAtConfirm: null };
  },

  subtasks: (s) => [...Array(s.n1).fill(LEFT_TEXT), ...Array(s.n2).fill(MIDDLE_TEXT), CONFIRM_TEXT],

  // Press k of a button is done once the button has counted k presses and the hand has let go of it.
  subtaskDone(world, s, index) {
    if (index < s.n1) return s.left.count > index && pressLetGo(world, s.left);
    if (index < s.n1 + s.n2) return s.middle.count > index - s.n1 && pressLetGo(world, s.middle);
    return index === s.n1 + s.n2 && s.countsAtConfirm !== null && pressLetGo(world, s.confirm);
  },

  update(world, s) {
    const step = s.step++;
    updateButton(world, s.left, step);
    updateButton(world, s.middle, step);
    if (updateButton(world, s.confirm, step) && s.countsAtConfirm === null) {
      s.countsAtConfirm = { left: s.left.count, middle: s.middle.count };
    }
  },

  success: (_w, s) => confirmedCorrect(s),

  checkpoints: [
    { id: "left-count-reached", label: "storage", description: "the left button has been pressed n1 times",
      predicate: (_w, s) => s.left.count === s.n1 && s.countsAtConfirm === null },
    { id: "middle-count-reached", label: "update", description: "with n1 left presses, the middle button has been pressed n2 times",
      predicate: (_w, s) => s.left.count === s.n1 && s.middle.count === s.n2 && s.countsAtConfirm === null },
    { id: "confirmed-correct", label: "compression", description: "confirm pressed with exactly n1 left and n2 middle presses",
      predicate: (_w, s) => confirmedCorrect(s) },
  ],

  expert(world: SimWorldApi, s, robot) {
    const widths = gripWidths(world, robot);
    const press = (text: string, button: Button): PlannedSubtask =>
      ({ text, ops: () => pressOps(armFor(world, button.capTop[1]), button, widths) });
    const plan: PlannedSubtask[] = [
      ...Array.from({ length: s.n1 }, () => press(LEFT_TEXT, s.left)),
      ...Array.from({ length: s.n2 }, () => press(MIDDLE_TEXT, s.middle)),
      press(CONFIRM_TEXT, s.confirm),
    ];
    return new PlanExpert(world, plan, { controlHz: robot.control_hz });
  },
};
