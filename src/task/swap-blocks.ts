/** Swap Blocks (RMBench, M(1)): swap two blocks' trays through the empty one, then press the button. */
import type { TaskSpec } from "./types.js";

/** The Swap Blocks spec. */
export const SWAP_BLOCKS = {
  id: "swap-blocks",
  tmc: "M1",
  robots: ["x-one"],
  timeLimitS: 60,
  instruction: "Swap the positions of the red and blue blocks using the empty tray, then press the button.",
  subtasks: () => [
    "move the red block to the empty tray",
    "move the blue block to the tray where the red block was",
    "move the red block to the tray where the blue block was",
    "press the button",
  ],
  checkpoints: [
    { id: "red-on-empty-tray", label: "storage", description: "the red block rests on the tray that was empty" },
    { id: "blue-on-red-tray", label: "update", description: "the blue block rests on the red block's starting tray" },
    { id: "swapped-and-pressed", label: "compression",
      description: "the blocks are swapped and the button was pressed after that" },
  ],
} as const satisfies TaskSpec;
