/**
 * Press Button (RMBench, M(n)): press the left button as often as the left digit shows, the middle
 * one as often as the middle digit, then confirm. The digits come from the seed, so the subtasks do.
 */
import type { Rng } from "./rng.js";
import type { TaskSpec } from "./types.js";

/** What Press Button's subtasks depend on: the left and middle digits (1..3). */
export interface PressButtonCounts { n1: number; n2: number }

/** A Press Button scene's draws: the buttons' offset on the table (m), then the digits. */
export interface PressButtonDraw extends PressButtonCounts { dx: number; dy: number }

/** The subtask texts of Press Button: every press of a button is the same text. */
export const PRESS_TEXTS = {
  left: "press the left button", middle: "press the middle button", confirm: "press the confirm button",
} as const;

/** The Press Button spec. */
export const PRESS_BUTTON = {
  id: "press-button",
  tmc: "Mn",
  robots: ["x-one", "franka-droid"],
  timeLimitS: 45,
  instruction: "Press the left button as many times as the left digit shows, then the middle button as many times "
    + "as the middle digit shows, then press the confirm button.",
  draw(rng: Rng): PressButtonDraw {
    const dx = rng.uniform(-0.02, 0.02), dy = rng.uniform(-0.02, 0.02);
    const n1 = rng.int(1, 3), n2 = rng.int(1, 3);
    return { dx, dy, n1, n2 };
  },
  subtasks: ({ n1, n2 }: PressButtonCounts): string[] =>
    [...Array<string>(n1).fill(PRESS_TEXTS.left), ...Array<string>(n2).fill(PRESS_TEXTS.middle), PRESS_TEXTS.confirm],
  checkpoints: [
    { id: "left-count-reached", label: "storage", description: "the left button has been pressed n1 times" },
    { id: "middle-count-reached", label: "update",
      description: "with n1 left presses, the middle button has been pressed n2 times" },
    { id: "confirmed-correct", label: "compression",
      description: "confirm pressed with exactly n1 left and n2 middle presses" },
  ],
} as const satisfies TaskSpec<PressButtonCounts, PressButtonDraw>;
