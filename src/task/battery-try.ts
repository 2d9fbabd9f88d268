/**
 * Battery Try (RMBench, M(n)): insert two batteries, then flip them one at a time through
 * RMBench's order of polarity combinations until the lamp lights. The right combination comes from
 * the seed, so the number of flips does.
 */
import type { Rng } from "./rng.js";
import type { TaskSpec } from "./types.js";

/** Polarity of the left and right battery: 0 = cap towards +x (positive), 1 = flipped. */
export type Combination = [number, number];
/** The order the combinations are tried in (RMBench's). */
export const TRIAL_ORDER: Combination[] = [[0, 0], [1, 0], [1, 1], [0, 1]];
const SIDES = ["left", "right"] as const;

/** True when two combinations are the same. */
export const sameCombination = (a: Combination, b: Combination): boolean => a[0] === b[0] && a[1] === b[1];

/** The battery (0 left, 1 right) flipped to go from TRIAL_ORDER[k - 1] to TRIAL_ORDER[k]. */
export function flippedBattery(k: number): 0 | 1 {
  return TRIAL_ORDER[k]![0] !== TRIAL_ORDER[k - 1]![0] ? 0 : 1;
}

/** What Battery Try's subtasks depend on: the combination that lights the lamp (never both positive). */
export interface BatteryTryTarget { correct: Combination }

/** A Battery Try scene's draws: the holder's offset (m), the batteries' yaws (rad, left, right), the target. */
export interface BatteryTryDraw extends BatteryTryTarget { dx: number; dy: number; yawsRad: [number, number] }

/** The Battery Try spec. */
export const BATTERY_TRY = {
  id: "battery-try",
  tmc: "Mn",
  robots: ["x-one"],
  timeLimitS: 60,
  instruction: "Put both batteries into the holder, then flip them one at a time, trying each polarity combination "
    + "once, until the lamp turns green.",
  draw(rng: Rng): BatteryTryDraw {
    const dx = rng.int(-2, 2) / 100, dy = rng.int(-2, 2) / 100;
    const yawsRad: [number, number] = [rng.uniform(-0.25, 0.25), rng.uniform(-0.25, 0.25)];
    return { dx, dy, yawsRad, correct: TRIAL_ORDER[rng.int(1, 3)]! };
  },
  /** Insert both, then one flip per combination tried until the right one. */
  subtasks({ correct }: BatteryTryTarget): string[] {
    const last = TRIAL_ORDER.findIndex((c) => sameCombination(c, correct));
    const flips = TRIAL_ORDER.slice(1, last + 1).map((_c, j) => `flip the ${SIDES[flippedBattery(j + 1)]} battery`);
    return ["put both batteries into the holder", ...flips];
  },
  checkpoints: [
    { id: "first-attempt-failed", label: "storage",
      description: "a first combination was tried and the lamp stayed off (it must be stored)" },
    { id: "new-attempt", label: "update", description: "a second, different combination was tried" },
    { id: "lamp-on-no-repeat", label: "compression", description: "the lamp lit with no combination tried twice" },
  ],
} as const satisfies TaskSpec<BatteryTryTarget, BatteryTryDraw>;
