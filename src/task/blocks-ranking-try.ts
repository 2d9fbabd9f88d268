/**
 * Blocks Ranking Try (RMBench, M(n)): find the right order of three blocks by trial, pressing the
 * button to check and swapping two blocks after each failed check, in RMBench's fixed swap
 * sequence. The starting order comes from the seed, so the number of swaps does.
 */
import type { Rng } from "./rng.js";
import type { TaskSpec } from "./types.js";

/** The three spots, left (+y) to right. */
export const POSITIONS = ["left", "middle", "right"] as const;
/** One spot. */
export type Position = (typeof POSITIONS)[number];
/** RMBench's swap sequence: from any start it visits all six arrangements. */
export const SWAPS: [Position, Position][] = [
  ["middle", "right"], ["left", "right"], ["left", "middle"], ["middle", "right"], ["left", "right"],
];
/** The wrong starting orders (ranks left to right) a scene draws from. */
const STARTS = [[0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]];

/** The arrangement after applying `swap` to `ranks` (ranks left to right). */
function swapped(ranks: number[], [a, b]: [Position, Position]): number[] {
  const out = ranks.slice(), i = POSITIONS.indexOf(a), j = POSITIONS.indexOf(b);
  [out[i], out[j]] = [out[j]!, out[i]!];
  return out;
}

/** Arrangements from `start` through the swap sequence until the right order: [start, after swap 1, ...]. */
export function arrangements(start: number[]): number[][] {
  const seq = [start];
  for (const swap of SWAPS) {
    if (seq[seq.length - 1]!.join("") === "012") break;
    seq.push(swapped(seq[seq.length - 1]!, swap));
  }
  return seq;
}

/** What Blocks Ranking Try's subtasks depend on: the swaps until the order is right. */
export interface BlocksRankingSwaps { swapsNeeded: number }

/**
 * A Blocks Ranking Try scene's draws: the row's offset (m), the first hue (a 1/12 grid, so colour
 * sets repeat across seeds; RMBench draws it uniformly) and the starting order (rank on each spot).
 */
export interface BlocksRankingDraw extends BlocksRankingSwaps { dx: number; dy: number; h0: number; start: number[] }

/** The Blocks Ranking Try spec. */
export const BLOCKS_RANKING_TRY = {
  id: "blocks-ranking-try",
  tmc: "Mn",
  robots: ["x-one", "franka-droid"],
  timeLimitS: 150,
  instruction: "Find the right order of the three blocks by trial: press the button to check the order, "
    + "and swap two blocks after each failed check.",
  draw(rng: Rng): BlocksRankingDraw {
    const dx = rng.int(-2, 2) / 100, dy = rng.int(-2, 2) / 100;
    const h0 = rng.int(0, 11) / 12;
    const start = STARTS[rng.int(0, STARTS.length - 1)]!;
    return { dx, dy, h0, start, swapsNeeded: arrangements(start).length - 1 };
  },
  /** A check, then a swap and a check for each swap needed. */
  subtasks: ({ swapsNeeded }: BlocksRankingSwaps): string[] => [
    "press the button",
    ...SWAPS.slice(0, swapsNeeded).flatMap(([a, b]) => [`swap the ${a} block and the ${b} block`, "press the button"]),
  ],
  checkpoints: [
    { id: "first-check-failed", label: "storage",
      description: "the first check found a wrong order (the tried arrangement must be stored)" },
    { id: "new-arrangement-checked", label: "update", description: "a second, different arrangement was checked" },
    { id: "right-order-no-repeat", label: "compression",
      description: "the right order was confirmed with no arrangement checked twice" },
  ],
} as const satisfies TaskSpec<BlocksRankingSwaps, BlocksRankingDraw>;
