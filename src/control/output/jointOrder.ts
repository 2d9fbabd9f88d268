import type { RobotProfile } from "../../robot/types.js";
import type { JointPositions } from "../types.js";

/**
 * Maps command vectors (in a policy layout's joint order) to the driver's joint order
 * (profile.command.joint_order). Driver joints the layout lacks are filled from the measured
 * position (they hold still); layout joints the driver lacks are returned by `extra` so the caller
 * can route them (a gripper to its own topic) or reject the layout.
 */
export class JointOrderMap {
  /** For each driver joint: index into the command vector, or -1 = fill from measured. */
  private readonly index: Int32Array;
  /** Command joints that are not in the driver's order. */
  readonly extra: string[];

  constructor(readonly commandNames: readonly string[], readonly driverOrder: readonly string[]) {
    const at = new Map(commandNames.map((n, i) => [n, i]));
    this.index = Int32Array.from(driverOrder, (n) => at.get(n) ?? -1);
    const driver = new Set(driverOrder);
    this.extra = commandNames.filter((n) => !driver.has(n));
  }

  /** True when every driver joint comes from the command (no measured fill needed). */
  get complete(): boolean {
    return this.index.every((i) => i >= 0);
  }

  /**
   * The command values in driver order. Throws naming the joint when a fill is needed and
   * `measured` lacks it (the joint-state topic does not carry a joint the driver expects).
   */
  permute(values: ArrayLike<number>, measured?: JointPositions): Float64Array {
    const out = new Float64Array(this.driverOrder.length);
    for (let j = 0; j < out.length; j++) {
      const i = this.index[j]!;
      if (i >= 0) { out[j] = values[i]!; continue; }
      const name = this.driverOrder[j]!;
      const m = measured?.[name];
      if (m === undefined) {
        throw new Error(`driver joint "${name}" is not in the command (${this.commandNames.join(", ")}) and no measured position for it was given`);
      }
      out[j] = m;
    }
    return out;
  }
}

/** How a layout's joints reach the driver: the joint map, plus an optional gripper on its own topic. */
export interface JointRouting {
  map: JointOrderMap;
  /** A layout gripper joint not in joint_order, published as std_msgs/Float32 on command.gripper_topic. */
  gripper?: { index: number; joint: string; topic: string };
}

/**
 * Routes `names` (a joint layout) to the profile's driver order. A layout joint outside
 * command.joint_order is allowed only when it is the one gripper and command.gripper_topic is set;
 * anything else throws naming the joint and the profile (a config error, caught at start).
 */
export function routeJoints(profile: RobotProfile, names: readonly string[]): JointRouting {
  const map = new JointOrderMap(names, profile.command.joint_order);
  if (map.extra.length === 0) return { map };
  const gripperJoint = map.extra[0]!;
  const spec = profile.joints.find((j) => j.name === gripperJoint);
  const topic = profile.command.gripper_topic;
  if (map.extra.length > 1 || spec?.kind !== "gripper" || topic === undefined) {
    throw new Error(
      `layout joints ${map.extra.map((n) => `"${n}"`).join(", ")} are not in command.joint_order (${profile.command.joint_order.join(", ")}); ` +
      `only a single gripper joint may be left out, and then command.gripper_topic must be set [robot=${profile.name}]`,
    );
  }
  return { map, gripper: { index: names.indexOf(gripperJoint), joint: gripperJoint, topic } };
}
