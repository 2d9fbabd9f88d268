/**
 * Press Button (RMBench, M(n)): two digits n1, n2 are shown on the table as seven-segment bars
 * behind the left and middle buttons. Press the left button n1 times, the middle button n2 times,
 * then the confirm (right) button. Every press is the same subtask text, so progress must be
 * counted from memory. n1, n2 ∈ 1..3 to keep episodes short.
 */
import type { SimWorldApi } from "../world/types.js";
import { PlanExpert, type PlannedSubtask } from "../expert/PlanExpert.js";
import { ReactiveGoalsExpert, latchedStage, type ReactiveGoal } from "../expert/ReactiveGoalsExpert.js";
import { CENTRE_LANE_M, armFor, gripWidths, pressOps } from "../expert/primitives.js";
import { COLORS, addButton, addDigit, updateButton, type Button } from "./props.js";
import { pressLetGo } from "./progress.js";
import { PRESS_BUTTON, PRESS_TEXTS } from "../../task/press-button.js";
import { defineTask, type TaskDefinition, type TaskScene } from "./types.js";

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

function confirmedCorrect(s: PressButtonScene): boolean {
  return s.countsAtConfirm !== null && s.countsAtConfirm.left === s.n1 && s.countsAtConfirm.middle === s.n2;
}

/** The Press Button task definition. */
export const pressButton = defineTask<PressButtonScene>(PRESS_BUTTON, {
  createScene(world, rng, robot) {
    const { dx, dy, n1, n2 } = PRESS_BUTTON.draw(rng);
    const bx = 0.42 + dx;
    const left = addButton(world, "left_button", bx, 0.17 + dy, COLORS.red);
    const middle = addButton(world, "middle_button", bx, dy, COLORS.green);
    const confirm = addButton(world, "confirm_button", bx, -0.17 + dy, COLORS.blue);
    addDigit(world, "left_digit", n1, bx + 0.17, 0.17 + dy);
    addDigit(world, "middle_digit", n2, bx + 0.17, dy);
    return { taskId: "press-button", robot, step: 0, n1, n2, left, middle, confirm, countsAtConfirm: null };
  },

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

  predicates: {
    "left-count-reached": (_w, s) => s.left.count === s.n1 && s.countsAtConfirm === null,
    "middle-count-reached": (_w, s) => s.left.count === s.n1 && s.middle.count === s.n2 && s.countsAtConfirm === null,
    "confirmed-correct": (_w, s) => confirmedCorrect(s),
  },

  expert(world: SimWorldApi, s, robot) {
    const widths = gripWidths(world, robot);
    const press = (text: string, button: Button): PlannedSubtask =>
      ({ text, ops: () => pressOps(armFor(world, button.capTop[1], CENTRE_LANE_M), button, widths) });
    const plan: PlannedSubtask[] = [
      ...Array.from({ length: s.n1 }, () => press(PRESS_TEXTS.left, s.left)),
      ...Array.from({ length: s.n2 }, () => press(PRESS_TEXTS.middle, s.middle)),
      press(PRESS_TEXTS.confirm, s.confirm),
    ];
    return new PlanExpert(world, plan, { controlHz: robot.control_hz });
  },

  reactiveExpert(world, s, robot) {
    const texts = this.subtasks(s);
    // Press k of a button has counted once the button's count passed it (then the hand only rises off it).
    const goalAt = (_w: SimWorldApi, k: number): ReactiveGoal => {
      const [button, before] = k < s.n1 ? [s.left, 0] : k < s.n1 + s.n2 ? [s.middle, s.n1] : [s.confirm, s.n1 + s.n2];
      return { kind: "press", button, counted: button.count > k - before, arm: armFor(world, button.capTop[1], CENTRE_LANE_M) };
    };
    const stage = latchedStage(texts.length, (w, i) => this.subtaskDone(w, s, i));
    return new ReactiveGoalsExpert(world, robot, { arm: armFor(world, 0), texts, controlHz: robot.control_hz, goalAt, stage });
  },
});
