/**
 * Video Unmask (RoboMME, Permanence): the demonstration video shows three cubes of different colours
 * being covered by three identical containers; then pick up the container hiding a named cube (and,
 * in half of the scenes, put it back and finally pick up the one hiding a second cube).
 */
import type { Rng } from "./rng.js";
import type { TaskSpec } from "./types.js";

/** The cubes' colours (one cube each). */
export const UNMASK_COLOURS = ["red", "green", "blue"] as const;
/** A cube colour. */
export type UnmaskColour = (typeof UNMASK_COLOURS)[number];

/** What the instruction and subtasks name: the cube to unmask, and the second one where there is one. */
export interface VideoUnmaskGoal { c0: UnmaskColour; c1: UnmaskColour | null }

/** A scene's draws: the layout's offset (m), the colours of the cubes left (+y) to right, the goal. */
export interface VideoUnmaskDraw extends VideoUnmaskGoal { dx: number; dy: number; order: UnmaskColour[] }

/** The subtask texts of Video Unmask. */
export const UNMASK_TEXTS = {
  pick: (c: UnmaskColour): string => `pick up the container hiding the ${c} cube`,
  putBack: "put the container back down",
} as const;

/** The Video Unmask spec. */
export const VIDEO_UNMASK = {
  id: "video-unmask",
  tmc: "M1",
  robots: ["franka-droid"],
  timeLimitS: 30,
  instruction: "watch the video carefully, then pick up the container hiding the {c0} cube[, finally pick up the "
    + "container hiding the {c1} cube]",
  instructionFor: ({ c0, c1 }: VideoUnmaskGoal): string => `watch the video carefully, then ${UNMASK_TEXTS.pick(c0)}`
    + (c1 === null ? "" : `, finally ${UNMASK_TEXTS.pick(c1)}`),
  draw(rng: Rng): VideoUnmaskDraw {
    const dx = rng.uniform(-0.02, 0.02), dy = rng.uniform(-0.02, 0.02);
    const order = rng.shuffle(UNMASK_COLOURS);
    const [c0, c1] = rng.shuffle(UNMASK_COLOURS) as [UnmaskColour, UnmaskColour];
    return { dx, dy, order, c0, c1: rng.next() < 0.5 ? null : c1 };
  },
  subtasks: ({ c0, c1 }: VideoUnmaskGoal): string[] =>
    c1 === null ? [UNMASK_TEXTS.pick(c0)] : [UNMASK_TEXTS.pick(c0), UNMASK_TEXTS.putBack, UNMASK_TEXTS.pick(c1)],
  checkpoints: [
    { id: "first-unmasked", label: "storage",
      description: "after the video, the first container lifted is the one hiding the first named cube" },
    { id: "last-unmasked", label: "update",
      description: "the container hiding the last named cube was lifted after the earlier one, no other lifted" },
    { id: "held-up", label: "compression",
      description: "every named container lifted in order and the last one held up clear of the table (success)" },
  ],
} as const satisfies TaskSpec<VideoUnmaskGoal, VideoUnmaskDraw>;
