/** Put Back Block (RMBench, M(1)): the block goes to the centre, the button is pressed, the block goes back. */
import type { TaskSpec } from "./types.js";

/** The Put Back Block spec. */
export const PUT_BACK_BLOCK = {
  id: "put-back-block",
  tmc: "M1",
  robots: ["x-one", "franka-droid"],
  timeLimitS: 40,
  instruction: "Move the block to the center, press the button, then put the block back on the mat it started on.",
  subtasks: () => [
    "pick up the block and place it at the center",
    "press the button",
    "put the block back on its original mat",
  ],
  checkpoints: [
    { id: "block-left-original", label: "storage",
      description: "the block has left its original mat (its place must be stored)" },
    { id: "pressed-after-centre", label: "update",
      description: "the button was pressed after the block reached the centre" },
    { id: "block-returned", label: "compression", description: "after the press, the block rests on its original mat" },
  ],
} as const satisfies TaskSpec;
