/**
 * Policy action chunk → robot layout (pure), on the robot layer's layout functions: joint layouts
 * come out in `robotOrder` (e.g. the profile's joint order), end-effector layouts keep their dims.
 */
import { fromPolicyVector, layoutNames } from "../../robot/layout.js";
import type { LayoutSpec } from "../../robot/types.js";

/** A chunk with its column names. */
export interface NamedChunk {
  jointNames: string[];
  /** Row-major [horizon, jointNames.length]. */
  actions: Float64Array;
}

/**
 * Reorders each row of a row-major [horizon, dim] block from layout order into `robotOrder`
 * (joint layouts; must name exactly the layout's joints). Throws naming the mismatch.
 */
export function chunkToRobotOrder(layout: LayoutSpec, actions: Float64Array, horizon: number, robotOrder?: readonly string[]): NamedChunk {
  const names = layoutNames(layout);
  const dim = names.length;
  if (actions.length !== horizon * dim) throw new Error(`chunkToRobotOrder: ${actions.length} values, expected H=${horizon} x D=${dim}`);
  if (layout.kind === "end_effector" || !robotOrder) return { jointNames: names, actions: Float64Array.from(actions) };
  const out = new Float64Array(actions.length);
  let jointNames: string[] = names;
  for (let r = 0; r < horizon; r++) {
    const row = fromPolicyVector(layout, actions.subarray(r * dim, (r + 1) * dim), robotOrder);
    out.set(row.positions, r * dim);
    jointNames = row.jointNames;
  }
  return { jointNames, actions: out };
}

/**
 * X-One `bimanual_16d` names in policy order, as robots/x-one.yaml declares them (Mem-0/RMBench:
 * [L j1..j7, R j1..j7, L grip, R grip]); used by the test bundle, benches and tests.
 */
export const BIMANUAL_16D = [
  ...["left", "right"].flatMap((arm) => Array.from({ length: 7 }, (_, i) => `${arm}_joint${i + 1}`)),
  "left_gripper", "right_gripper",
];
