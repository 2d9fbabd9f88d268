/**
 * The robot profile model. Its types are defined beside the zod schemas that validate
 * `robots/<name>.yaml` and the calibration files (src/config/schemas/robotTypes.ts), so the config
 * layer needs nothing from this one; the robot layer builds on them.
 */
export type {
  ArmSpec, CameraCalibration, CameraSpec, CommandSpec, JointSpec, KinematicsSpec, LayoutSpec, RobotProfile, SafetySpec,
} from "../config/schemas/robotTypes.js";
