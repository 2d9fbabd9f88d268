/**
 * Policy vector layout → names in robot terms (pure).
 * NOTE: a local stand-in until src/robot/ exports its layout functions; replace with those then.
 */
import type { LayoutSpec } from "../../robot/types.js";

/** Names of the dims of a layout's vector, in vector order (joint names, or `<arm>.<dim>` for end-effector). */
export function layoutNames(layout: LayoutSpec): string[] {
  switch (layout.kind) {
    case "joint":
      return [...layout.names];
    case "end_effector":
      return layout.dims.map((d) => `${layout.arm}.${d}`);
  }
}

/**
 * Reorders a row-major [rows, from.length] block whose columns follow `from` into the order of
 * `to` (every name of `to` must be in `from`). Throws naming the missing joint.
 */
export function reorderRows(x: Float64Array, from: string[], to: string[]): Float64Array {
  const index = to.map((name) => {
    const i = from.indexOf(name);
    if (i < 0) throw new Error(`layout: joint "${name}" not in [${from.join(", ")}]`);
    return i;
  });
  const rows = x.length / from.length;
  const out = new Float64Array(rows * to.length);
  for (let r = 0; r < rows; r++) {
    for (let j = 0; j < to.length; j++) out[r * to.length + j] = x[r * from.length + index[j]];
  }
  return out;
}

/** X-One bimanual 16-D names in policy order (left arm + gripper, right arm + gripper); used by benches and tests. */
export const BIMANUAL_16D = ["left", "right"].flatMap((arm) => [...Array.from({ length: 7 }, (_, i) => `${arm}_joint${i + 1}`), `${arm}_gripper`]);
