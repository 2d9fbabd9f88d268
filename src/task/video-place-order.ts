/**
 * Video Place Order (RoboMME, Reference): the demonstration video shows one cube placed on three of
 * four identical targets in turn and brought back to its start; then place it on the target it
 * visited at a given ordinal. Only the video tells which target that was.
 */
import type { Rng } from "./rng.js";
import type { TaskSpec } from "./types.js";

/** The cube colours a scene draws from. */
export const PLACE_ORDER_COLOURS = ["red", "green", "blue", "yellow"] as const;
/** The ordinals of RoboMME's goal string, by visit index. */
export const ORDINALS = ["first", "second", "third"] as const;

/** What the instruction and subtasks name: the cube's colour and the visit asked for (0-based). */
export interface VideoPlaceOrderGoal { colour: (typeof PLACE_ORDER_COLOURS)[number]; ordinal: number }

/** A scene's draws: the layout's offset (m), the cube's colour, the visited targets in order (0..3), the ordinal. */
export interface VideoPlaceOrderDraw extends VideoPlaceOrderGoal { dx: number; dy: number; visits: number[] }

function goal({ colour, ordinal }: VideoPlaceOrderGoal): string {
  return `place the ${colour} cube on the ${ORDINALS[ordinal]!} target it was previously placed on`;
}

/** The Video Place Order spec. */
export const VIDEO_PLACE_ORDER = {
  id: "video-place-order",
  tmc: "M1",
  robots: ["franka-droid"],
  timeLimitS: 30,
  instruction: "watch the video carefully, then place the {color} cube on the {ordinal} target it was previously "
    + "placed on",
  instructionFor: (g: VideoPlaceOrderGoal): string => `watch the video carefully, then ${goal(g)}`,
  draw(rng: Rng): VideoPlaceOrderDraw {
    const dx = rng.uniform(-0.02, 0.02), dy = rng.uniform(-0.02, 0.02);
    const colour = PLACE_ORDER_COLOURS[rng.int(0, PLACE_ORDER_COLOURS.length - 1)]!;
    const visits = rng.shuffle([0, 1, 2, 3]).slice(0, 3);
    const ordinal = rng.int(0, ORDINALS.length - 1);
    return { dx, dy, colour, visits, ordinal };
  },
  subtasks: (g: VideoPlaceOrderGoal): string[] => [goal(g)],
  checkpoints: [
    { id: "cube-picked", label: "storage",
      description: "after the video the cube is lifted off its start (the visit order must have been stored)" },
    { id: "over-recalled-target", label: "update",
      description: "the held cube was carried over the target of the asked visit" },
    { id: "placed-on-recalled", label: "compression",
      description: "the cube rests, let go, on the target of the asked visit" },
  ],
} as const satisfies TaskSpec<VideoPlaceOrderGoal, VideoPlaceOrderDraw>;
