/**
 * X-One arms. NOTE: the X-One's exact kinematics are not published; each arm is modelled as a
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
import type { DhRow } from "../kinematics/DhChain.js";
import { translation, type Transform } from "../kinematics/transform.js";
import type { ArmModel } from "./ArmModel.js";

const H = Math.PI / 2;

/** X-One arm DH rows, joints 1..7 (Craig convention, approximate). */
export const X_ONE_DH: DhRow[] = [
  { a: 0, d: 0.30, alpha: 0 },
  { a: 0, d: 0, alpha: -H, thetaOffset: -0.5 },
  { a: 0, d: 0.36, alpha: H },
  { a: 0.08, d: 0, alpha: H, thetaOffset: -0.9 },
  { a: -0.08, d: 0.42, alpha: -H },
  { a: 0, d: 0, alpha: H, thetaOffset: 1.6 },
  { a: 0.088, d: 0.10, alpha: H },
];

/**
 * Link 7 → flange: identity. The 0.10 m flange length sits in joint 7's d, so the frame
 * "<arm>_link7" is the flange frame, as the profile (ee_frame) and the wrist calibration use it.
 */
export const X_ONE_FLANGE: DhRow = { a: 0, d: 0, alpha: 0 };

/** Flange → fingertip centre, m. */
export const X_ONE_TCP_OFFSET_M = 0.11;

/** One X-One arm model; `lower`/`upper` come from the profile. */
export function xOneArm(name: string, lower: number[], upper: number[], baseInWorld: Transform): ArmModel {
  return {
    name,
    kinematics: { joints: X_ONE_DH, flange: X_ONE_FLANGE, flangeToTcp: translation(0, 0, X_ONE_TCP_OFFSET_M), lower, upper },
    baseInWorld,
    framePrefix: `${name}_`,
    flangeToHand: translation(0, 0, 0),
    linkRadius: 0.045,
    // Palm right at the flange (tool z -0.11..-0.07), fingers from the palm to the tips (z 0.007).
    hand: { halfExtents: [0.015, 0.09, 0.02], center: [0, 0, -0.09] },
    finger: { halfExtents: [0.01, 0.008, 0.0385], centerZ: -0.0315 },
    color: name === "left" ? [200, 200, 210] : [210, 200, 200],
  };
}
