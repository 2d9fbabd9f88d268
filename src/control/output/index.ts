import type { LayoutSpec, RobotProfile } from "../../robot/types.js";
import { streamOutput, trajectoryOutput, type JointOutputOptions } from "./jointOutputs.js";
import { poseOutput, type PoseOutputOptions } from "./pose.js";
import type { OutputAdapter } from "./types.js";

export type { OutputAdapter, Outgoing, Publish } from "./types.js";
export { publishAll } from "./types.js";
export { trajectoryOutput, streamOutput, pointTime, type JointOutputOptions } from "./jointOutputs.js";
export { poseOutput, type PoseOutputOptions, type MeasuredPose } from "./pose.js";
export { quaternionFromRpy, rpyFromQuaternion } from "./rotation.js";
export { JointOrderMap, routeJoints } from "./jointOrder.js";

/**
 * The output adapter the profile's command.interface names, for chunks in `layout`. Throws at
 * start when the layout and the interface do not fit (joint layout for pose, or the reverse).
 */
export function createOutput(profile: RobotProfile, layout: LayoutSpec, opts: JointOutputOptions & PoseOutputOptions = {}): OutputAdapter {
  const iface = profile.command.interface;
  switch (iface) {
    case "pose":
      return poseOutput(profile, layout, opts);
    case "trajectory":
    case "stream":
      if (layout.kind !== "joint") throw new Error(`command.interface "${iface}" needs a joint layout, got "${layout.kind}" [robot=${profile.name}]`);
      return iface === "trajectory" ? trajectoryOutput(profile, layout.names, opts) : streamOutput(profile, layout.names, opts);
  }
}
