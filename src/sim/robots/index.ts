/**
 * The simulated arms: each profile arm's chain from the robot layer (the kinematic model the
 * profile declares, src/robot/kinematics), stood where `kinematics.world` says, with the sim's
 * collision and render geometry for that model. Adding an arm: its kinematic model there, its sim
 * geometry in a file here and one entry in GEOMETRY (see STYLE.md "Adding a robot").
 */
import { armChains, baseFrames } from "../../robot/kinematics/armChains.js";
import { translation, type Transform } from "../../robot/kinematics/transform.js";
import type { RobotProfile } from "../../robot/types.js";
import type { ArmModel } from "./ArmModel.js";
import { pandaArm } from "./panda.js";
import { xOneArm } from "./xOne.js";

export type { ArmModel } from "./ArmModel.js";
export { PANDA_DH, PANDA_FLANGE, PANDA_READY, PANDA_TCP_OFFSET_M } from "./panda.js";
export { X_ONE_DH, X_ONE_FLANGE, X_ONE_TCP_OFFSET_M } from "./xOne.js";

/** Height of the table top, where base_link sits (world z). */
export const BASE_LINK_Z = 0.75;

type ArmFactory = (name: string, lower: number[], upper: number[], base: Transform) => ArmModel;

/** Sim geometry per kinematic model id. */
const GEOMETRY: Readonly<Record<string, ArmFactory>> = {
  "x-one-arm": xOneArm,
  "franka-panda": pandaArm,
};

/** The kinematic model ids the sim can simulate. */
export function knownRobotModels(): string[] {
  return Object.keys(GEOMETRY);
}

function checkSimulated(profile: RobotProfile): { factory: ArmFactory } {
  const id = profile.kinematics?.model;
  const factory = id !== undefined && Object.hasOwn(GEOMETRY, id) ? GEOMETRY[id] : undefined;
  if (!factory) {
    const declared = id === undefined ? "declares no kinematics.model" : `declares kinematics.model "${id}"`;
    throw new Error(`sim: robot "${profile.name}" ${declared} (known: ${knownRobotModels().join(", ")})`);
  }
  if (!profile.kinematics?.world) {
    const want = `expected kinematics.world (where the twin stands kinematics.frame; table top z = ${BASE_LINK_Z})`;
    throw new Error(`sim: robot "${profile.name}" declares no kinematics.world: ${want}`);
  }
  return { factory };
}

/**
 * The world poses of the frames nothing moves: "world", "base_link" (the table-top origin every
 * camera calibration may name) and the frames the profile's kinematics places (its frame, the arm
 * bases). Throws as armModelsFor does.
 */
export function fixedFrames(profile: RobotProfile): Record<string, Transform> {
  checkSimulated(profile);
  return { world: translation(0, 0, 0), base_link: translation(0, 0, BASE_LINK_Z), ...baseFrames(profile, "world") };
}

/** Builds the arm models for a profile, in the profile's arm order. Throws naming the profile and what is unknown. */
export function armModelsFor(profile: RobotProfile): ArmModel[] {
  const { factory } = checkSimulated(profile);
  return armChains(profile, "world").map((c) => factory(c.arm, c.chain.spec.lower, c.chain.spec.upper, c.chain.base));
}
