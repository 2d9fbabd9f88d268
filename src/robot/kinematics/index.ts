/** Robot kinematics: rigid transforms, DH chains, the models profiles declare, and a robot's FK. */
export {
  DhChain, type ArmKinematics, type DhRow, type FkResult, type IkOptions, type IkResult,
} from "./DhChain.js";
export { KINEMATIC_MODELS, kinematicModel, knownKinematicModels, type ArmKinematicModel } from "./models.js";
export { armChains, baseFrames, worldOrigin, type ArmChain, type ChainFrame } from "./armChains.js";
export {
  robotKinematics, rpyOf, type EndEffectorPose, type JointMap, type RobotKinematics,
} from "./robotKinematics.js";
export { quatOf, translationOf, type Pose3, type Quat, type Transform, type Vec3 } from "./transform.js";
