/**
 * Move Cube (RoboMME, Imitation): the demonstration video moves the cube to the target in one of
 * two manners (carried through the air, or pushed along the table) and carries it back; then move
 * it to the target again, the same way. The scene looks the same whatever the manner.
 */
import type { Rng } from "./rng.js";
import type { TaskSpec } from "./types.js";

/** How the cube travels: picked and carried through the air, or slid along the table by the open fingers. */
export const MOVE_MANNERS = ["pick-and-place", "push"] as const;
/** One manner. */
export type MoveManner = (typeof MOVE_MANNERS)[number];

/** A scene's draws: the layout's offset (m) and the demonstrated manner. */
export interface MoveCubeDraw { dx: number; dy: number; manner: MoveManner }

/** The Move Cube spec (one instruction for every scene: the manner is only in the video). */
export const MOVE_CUBE = {
  id: "move-cube",
  tmc: "M1",
  robots: ["franka-droid"],
  timeLimitS: 30,
  instruction: "watch the video carefully, then move the cube to the target in the same manner as before",
  draw(rng: Rng): MoveCubeDraw {
    const dx = rng.uniform(-0.02, 0.02), dy = rng.uniform(-0.08, 0.08);
    return { dx, dy, manner: MOVE_MANNERS[rng.int(0, MOVE_MANNERS.length - 1)]! };
  },
  subtasks: (): string[] => ["move the cube to the target in the same manner as before"],
  checkpoints: [
    { id: "moved-in-manner", label: "storage",
      description: "after the video the cube has left its start in the demonstrated manner (lifted, or slid)" },
    { id: "halfway-in-manner", label: "update", description: "the cube is halfway to the target, the manner kept" },
    { id: "at-target-in-manner", label: "compression",
      description: "the cube rests on the target, let go, the manner kept" },
  ],
} as const satisfies TaskSpec<object, MoveCubeDraw>;
