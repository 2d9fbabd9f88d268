/** Swap T (RMBench, M(1)): swap two T-blocks' poses, position and orientation. */
import type { TaskSpec } from "./types.js";

/** The Swap T spec. */
export const SWAP_T = {
  id: "swap-t",
  tmc: "M1",
  robots: ["x-one"],
  timeLimitS: 45,
  instruction: "Swap the poses of the red and blue T-blocks, both position and orientation.",
  subtasks: () => [
    "pick up both T-blocks",
    "place the red T-block at the initial pose of the blue T-block",
    "place the blue T-block at the initial pose of the red T-block",
  ],
  checkpoints: [
    { id: "both-lifted", label: "storage",
      description: "both T-blocks are held off the table (their starting poses must be stored)" },
    { id: "red-at-blue-pose", label: "update", description: "the red T-block rests at the blue one's starting pose" },
    { id: "swapped", label: "compression", description: "both T-blocks rest at each other's starting poses" },
  ],
} as const satisfies TaskSpec;
