/** Rearrange Blocks (RMBench, M(1)): two blocks onto their squares, a press, then back to their starting mats. */
import type { TaskSpec } from "./types.js";

/** The Rearrange Blocks spec. */
export const REARRANGE_BLOCKS = {
  id: "rearrange-blocks",
  tmc: "M1",
  robots: ["x-one"],
  timeLimitS: 70,
  instruction: "Move the red block onto the red square and the green block onto the green square, press the button, "
    + "then put both blocks back on the mats they started on.",
  subtasks: () => [
    "move the red block onto the red square",
    "move the green block onto the green square",
    "press the button",
    "put the red block back on its original mat",
    "put the green block back on its original mat",
  ],
  checkpoints: [
    { id: "blocks-in-squares", label: "storage",
      description: "both blocks rest on their coloured squares (starting mats must be stored)" },
    { id: "pressed-after-squares", label: "update",
      description: "the button was pressed after both blocks reached their squares" },
    { id: "blocks-restored", label: "compression",
      description: "after the press, both blocks rest on their starting mats" },
  ],
} as const satisfies TaskSpec;
