/**
 * The simulated Franka Emika Panda: the robot layer's "franka-panda" kinematic model (published
 * modified DH, flange d = 0.107 m, Franka Hand rotated -45° about the flange z with the fingertip
 * centre 0.1034 m along z) with the sim's collision and render geometry.
 */
import { KINEMATIC_MODELS, PANDA_DH, PANDA_FLANGE } from "../../robot/kinematics/models.js";
import type { Transform } from "../../robot/kinematics/transform.js";
import type { ArmModel } from "./ArmModel.js";

export { PANDA_DH, PANDA_FLANGE, PANDA_TCP_OFFSET_M } from "../../robot/kinematics/models.js";

const PANDA = KINEMATIC_MODELS["franka-panda"]!;

/** Panda "ready" configuration from libfranka's examples, rad. */
export const PANDA_READY = [0, -Math.PI / 4, 0, -3 * Math.PI / 4, 0, Math.PI / 2, Math.PI / 4];

/** The Panda arm model; `lower`/`upper` come from the profile. */
export function pandaArm(name: string, lower: number[], upper: number[], baseInWorld: Transform): ArmModel {
  return {
    name,
    kinematics: { joints: PANDA_DH, flange: PANDA_FLANGE, flangeToTcp: PANDA.flangeToTcp, lower, upper },
    baseInWorld,
    framePrefix: "panda_",
    flangeToHand: PANDA.flangeToEe,
    linkRadius: 0.055,
    // Franka Hand: palm from the flange (tool z -0.1034) to -0.057, fingers from there to the tips.
    hand: { halfExtents: [0.02, 0.1, 0.023], center: [0, 0, -0.080] },
    finger: { halfExtents: [0.01, 0.008, 0.032], centerZ: -0.025 },
    color: [235, 235, 235],
  };
}
