/**
 * Policy-facing layouts: map a robot joint vector (names + positions, any order) to the policy's
 * vector and back. Joint order always travels with joint names; these functions refuse a mismatch
 * (unknown, missing or duplicated names, wrong lengths) with an Error naming it, so callers at an
 * edge reject the input whole (inside the control loop, catch and hold).
 */
import type { LayoutSpec, RobotProfile } from "./types.js";

/** Joint names plus positions in the same order (rad for revolute joints, m for grippers). */
export interface JointVector {
  jointNames: string[];
  positions: Float64Array;
}

/** Length of the policy vector of a layout (joint: number of names; end_effector: 7). */
export function layoutDim(layout: LayoutSpec): number {
  return layout.kind === "joint" ? layout.names.length : layout.dims.length;
}

/** Names of a layout's vector dims in order: joint names, or `<arm>.<dim>` for end_effector (e.g. `arm.x`). */
export function layoutNames(layout: LayoutSpec): string[] {
  switch (layout.kind) {
    case "joint": return [...layout.names];
    case "end_effector": return layout.dims.map((d) => `${layout.arm}.${d}`);
  }
}

/** The layout named `name` in a profile; throws naming the known layouts when absent. */
export function getLayout(profile: RobotProfile, name: string): LayoutSpec {
  const layout = profile.layouts[name];
  if (!layout) throw new Error(`robot "${profile.name}" has no layout "${name}" (known: ${Object.keys(profile.layouts).join(", ")})`);
  return layout;
}

function requireJointLayout(layout: LayoutSpec, fn: string): Extract<LayoutSpec, { kind: "joint" }> {
  if (layout.kind !== "joint") {
    throw new Error(`${fn}: layout is end_effector (arm "${layout.arm}", frame "${layout.frame}"); its vector [x y z roll pitch yaw gripper] needs kinematics, not a joint selection`);
  }
  return layout;
}

function indexByName(names: readonly string[], what: string): Map<string, number> {
  const index = new Map<string, number>();
  names.forEach((n, i) => {
    if (index.has(n)) throw new Error(`${what}: joint "${n}" appears twice (indices ${index.get(n)} and ${i})`);
    index.set(n, i);
  });
  return index;
}

/**
 * Picks the layout's joints out of a robot vector, in layout order. `jointNames[i]` names
 * `positions[i]` (e.g. a JointState). Extra joints are ignored; a missing one is an error.
 */
export function toPolicyVector(layout: LayoutSpec, jointNames: readonly string[], positions: ArrayLike<number>): Float64Array {
  const joint = requireJointLayout(layout, "toPolicyVector");
  if (jointNames.length !== positions.length) {
    throw new Error(`toPolicyVector: ${jointNames.length} joint names but ${positions.length} positions`);
  }
  const index = indexByName(jointNames, "toPolicyVector");
  const out = new Float64Array(joint.names.length);
  const missing: string[] = [];
  joint.names.forEach((n, k) => {
    const i = index.get(n);
    if (i === undefined) missing.push(n);
    else out[k] = positions[i]!;
  });
  if (missing.length > 0) {
    throw new Error(`toPolicyVector: layout needs joint(s) ${missing.map((m) => `"${m}"`).join(", ")} missing from the input names [${jointNames.join(", ")}]`);
  }
  return out;
}

/**
 * Maps a policy vector back to named joints. Without `robotOrder` the names come in layout order;
 * with it they come in that order (e.g. profile.command.joint_order), which must name exactly the
 * layout's joints.
 */
export function fromPolicyVector(layout: LayoutSpec, vector: ArrayLike<number>, robotOrder?: readonly string[]): JointVector {
  const joint = requireJointLayout(layout, "fromPolicyVector");
  if (vector.length !== joint.names.length) {
    throw new Error(`fromPolicyVector: vector has ${vector.length} values, layout [${joint.names.join(", ")}] expects ${joint.names.length}`);
  }
  if (!robotOrder) return { jointNames: [...joint.names], positions: Float64Array.from(vector) };
  const index = indexByName(joint.names, "fromPolicyVector layout");
  indexByName(robotOrder, "fromPolicyVector robotOrder");
  const extra = robotOrder.filter((n) => !index.has(n));
  const absent = joint.names.filter((n) => !robotOrder.includes(n));
  if (extra.length > 0 || absent.length > 0) {
    throw new Error(`fromPolicyVector: robotOrder must name exactly the layout's joints` +
      (extra.length ? `; not in layout: ${extra.join(", ")}` : "") + (absent.length ? `; missing from robotOrder: ${absent.join(", ")}` : ""));
  }
  const positions = new Float64Array(robotOrder.length);
  robotOrder.forEach((n, i) => { positions[i] = vector[index.get(n)!]!; });
  return { jointNames: [...robotOrder], positions };
}
