/**
 * Kinematic models of the simulated robots, looked up by the profile's name. Adding a robot:
 * a model file here and one entry in MODELS (see STYLE.md "Adding a robot").
 */
import type { RobotProfile } from "../../robot/types.js";
import { translation, type Transform } from "../kinematics/transform.js";
import { limitsFor, type ArmModel } from "./ArmModel.js";
import { pandaArm } from "./panda.js";
import { xOneArm } from "./xOne.js";

export type { ArmModel } from "./ArmModel.js";
export { PANDA_DH, PANDA_FLANGE, PANDA_READY, PANDA_TCP_OFFSET_M } from "./panda.js";
export { X_ONE_DH, X_ONE_FLANGE, X_ONE_TCP_OFFSET_M } from "./xOne.js";

/** Height of the table top, where base_link sits (world z). */
export const BASE_LINK_Z = 0.75;

/** Base frames of the arms in the world (conventions in src/sim/world/types.ts). */
export const BASE_FRAMES: Record<string, Transform> = {
  base_link: translation(0, 0, BASE_LINK_Z),
  panda_link0: translation(0, 0, BASE_LINK_Z),
  left_base: translation(0, 0.3, BASE_LINK_Z),
  right_base: translation(0, -0.3, BASE_LINK_Z),
  world: translation(0, 0, 0),
};

type ArmFactory = (name: string, lower: number[], upper: number[], base: Transform) => ArmModel;

const MODELS: { match: RegExp; arm: ArmFactory }[] = [
  { match: /x[-_]?one/i, arm: xOneArm },
  { match: /franka|panda/i, arm: pandaArm },
];

/** The names of the robots the sim can model (profile name patterns). */
export function knownRobotModels(): string[] {
  return MODELS.map((m) => m.match.source);
}

/** Builds the arm models for a profile, in the profile's arm order. Throws naming the profile and what is unknown. */
export function armModelsFor(profile: RobotProfile): ArmModel[] {
  const model = MODELS.find((m) => m.match.test(profile.name));
  if (!model) throw new Error(`sim: no kinematic model for robot "${profile.name}" (known: ${knownRobotModels().join(", ")})`);
  return profile.arms.map((arm) => {
    const base = BASE_FRAMES[arm.base_frame];
    if (!base) throw new Error(`sim: robot "${profile.name}" arm "${arm.name}" base_frame "${arm.base_frame}" is unknown (known: ${Object.keys(BASE_FRAMES).join(", ")})`);
    if (arm.joints.length !== 7) throw new Error(`sim: robot "${profile.name}" arm "${arm.name}" has ${arm.joints.length} joints, expected 7`);
    const { lower, upper } = limitsFor(arm.joints, profile.joints);
    return model.arm(arm.name, lower, upper, base);
  });
}
