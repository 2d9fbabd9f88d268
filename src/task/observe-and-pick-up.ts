/** Observe and Pick Up (RMBench, M(1)): remember the object shown on the shelf, then pick its twin from the table. */
import type { TaskSpec } from "./types.js";

/** The Observe and Pick Up spec. */
export const OBSERVE_AND_PICK_UP = {
  id: "observe-and-pick-up",
  tmc: "M1",
  robots: ["x-one", "franka-droid"],
  timeLimitS: 25,
  instruction: "Watch the object on the shelf until the screen covers it, then pick up the same object from "
    + "the table and lift it.",
  subtasks: () => ["pick up the object that was shown and lift it"],
  checkpoints: [
    { id: "target-hidden", label: "storage",
      description: "the screen covers the shelf (the shown object must be stored)" },
    { id: "target-grasped-first", label: "update",
      description: "after the screen dropped, the first object grasped is the target" },
    { id: "target-lifted", label: "compression",
      description: "the target is lifted and no other object was taken first" },
  ],
} as const satisfies TaskSpec;
