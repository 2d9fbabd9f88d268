/**
 * The simulated X-One arms: the robot layer's "x-one-arm" kinematic model with the sim's
 * collision and render geometry. NOTE: the X-One's exact kinematics are not published; each arm is modelled as a
 * Panda-like 7-DoF chain (same joint axes and offsets topology, modified DH) with its own
 * lengths: shoulder 0.30 m, upper arm 0.36 m, forearm 0.42 m, elbow offsets 0.08 m, wrist offset
 * 0.088 m, flange 0.10 m, and a parallel gripper whose fingertip centre is 0.11 m past the flange
 * (tool frame = flange frame, no hand rotation). The profile's joint zeroes differ from the
 * Panda's: joints 2, 4 and 6 carry -0.5, -0.9 and +1.6 rad offsets, so the profile's symmetric
 * limits (j4 ±2.35, j6 ±1.74) span the Panda-like elbow and wrist ranges, and the profile's home
 * pose (j2 0.6, j4 -1.6, j6 1.0) holds the hand pointing straight down 0.12 m above the table at
 * x = 0.49 in front of its shoulder (offsets chosen by a reachability sweep of top-down IK). Joint limits come from
 * the profile. Reach at the table top covers the task area (x 0.2..0.75) within about
 * |y - y_base| < 0.55 m of each arm's base.
 */
import { KINEMATIC_MODELS, X_ONE_DH, X_ONE_FLANGE } from "../../robot/kinematics/models.js";
import type { Transform } from "../../robot/kinematics/transform.js";
import type { ArmModel } from "./ArmModel.js";

export { X_ONE_DH, X_ONE_FLANGE, X_ONE_TCP_OFFSET_M } from "../../robot/kinematics/models.js";

const X_ONE = KINEMATIC_MODELS["x-one-arm"]!;

/** One X-One arm model; `lower`/`upper` come from the profile. */
export function xOneArm(name: string, lower: number[], upper: number[], baseInWorld: Transform): ArmModel {
  return {
    name,
    kinematics: { joints: X_ONE_DH, flange: X_ONE_FLANGE, flangeToTcp: X_ONE.flangeToTcp, lower, upper },
    baseInWorld,
    framePrefix: `${name}_`,
    flangeToHand: X_ONE.flangeToEe,
    linkRadius: 0.045,
    // Palm right at the flange (tool z -0.11..-0.07), fingers from the palm to the tips (z 0.007).
    hand: { halfExtents: [0.015, 0.09, 0.02], center: [0, 0, -0.09] },
    finger: { halfExtents: [0.01, 0.008, 0.0385], centerZ: -0.0315 },
    color: name === "left" ? [200, 200, 210] : [210, 200, 200],
  };
}
