/**
 * Franka Emika Panda with its published modified-DH parameters (Franka Control Interface docs,
 * "Robot and interface specifications"): a, d, alpha per joint, flange d = 0.107 m, Franka Hand
 * rotated -45° about the flange z with the fingertip centre (TCP) 0.1034 m along z.
 */
import type { DhRow } from "../kinematics/DhChain.js";
import { compose, rotZ, translation, type Transform } from "../kinematics/transform.js";
import type { ArmModel } from "./ArmModel.js";

const H = Math.PI / 2;

/** Panda DH rows, joints 1..7 (Craig convention). */
export const PANDA_DH: DhRow[] = [
  { a: 0, d: 0.333, alpha: 0 },
  { a: 0, d: 0, alpha: -H },
  { a: 0, d: 0.316, alpha: H },
  { a: 0.0825, d: 0, alpha: H },
  { a: -0.0825, d: 0.384, alpha: -H },
  { a: 0, d: 0, alpha: H },
  { a: 0.088, d: 0, alpha: H },
];

/** Link 7 → flange (panda_link8). */
export const PANDA_FLANGE: DhRow = { a: 0, d: 0.107, alpha: 0 };

/** Flange → fingertip centre: hand rotated -π/4 about z, TCP 0.1034 m out. */
export const PANDA_TCP_OFFSET_M = 0.1034;

/** Panda "ready" configuration from libfranka's examples, rad. */
export const PANDA_READY = [0, -Math.PI / 4, 0, -3 * Math.PI / 4, 0, Math.PI / 2, Math.PI / 4];

/** The Panda arm model; `lower`/`upper` come from the profile. */
export function pandaArm(name: string, lower: number[], upper: number[], baseInWorld: Transform): ArmModel {
  return {
    name,
    kinematics: {
      joints: PANDA_DH,
      flange: PANDA_FLANGE,
      flangeToTcp: compose(rotZ(-Math.PI / 4), translation(0, 0, PANDA_TCP_OFFSET_M)),
      lower,
      upper,
    },
    baseInWorld,
    framePrefix: "panda_",
    flangeToHand: rotZ(-Math.PI / 4),
    linkRadius: 0.055,
    // Franka Hand: palm from the flange (tool z -0.1034) to -0.057, fingers from there to the tips.
    hand: { halfExtents: [0.02, 0.1, 0.023], center: [0, 0, -0.080] },
    finger: { halfExtents: [0.01, 0.008, 0.032], centerZ: -0.025 },
    color: [235, 235, 235],
  };
}
