/** Cover Blocks (RMBench, M(n)): cover three blocks left to right, then uncover them in colour order. */
import type { TaskSpec } from "./types.js";

/** The Cover Blocks spec. */
export const COVER_BLOCKS = {
  id: "cover-blocks",
  tmc: "Mn",
  robots: ["x-one"],
  timeLimitS: 80,
  instruction: "Cover the three blocks with the lids from left to right, then uncover them in the order red, "
    + "green, blue.",
  subtasks: () => [
    "cover the left block with a lid", "cover the middle block with a lid", "cover the right block with a lid",
    "uncover the red block", "uncover the green block", "uncover the blue block",
  ],
  checkpoints: [
    { id: "all-covered", label: "storage", description: "all three blocks are covered (their colours must be stored)" },
    { id: "red-uncovered-first", label: "update",
      description: "after covering, the red block was the first uncovered" },
    { id: "uncovered-in-order", label: "compression",
      description: "all blocks uncovered in the order red, green, blue" },
  ],
} as const satisfies TaskSpec;
