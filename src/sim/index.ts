/**
 * The sim twin's public surface: the rapier world (SimWorldApi for tasks and experts), the arms'
 * sim geometry (their kinematics are the robot layer's, src/robot/kinematics), and the SimNode
 * that plays the robot on a Bus (see src/sim/README.md).
 */
export type { ObjectId, ObjectSpec, Pose3, Quat, RenderMesh, ShapeSpec, SimWorldApi, Vec3 } from "./world/types.js";
export { SimWorld, initPhysics, type SimWorldOptions } from "./world/SimWorld.js";
export { TABLE } from "./world/table.js";
export { armModelsFor, fixedFrames, knownRobotModels, BASE_LINK_Z, type ArmModel } from "./robots/index.js";
export { SimNode, type SimNodeOptions } from "./node/SimNode.js";
export { TaskEpisode, type EpisodeTick } from "./node/TaskEpisode.js";
export { runExpertEpisodes, type ExpertEpisodeDetail, type ExpertRunOptions, type ExpertSummary } from "./node/expertEpisodes.js";
export { TrajectoryFollower, validateJointTargets, validateTrajectory, type CommandVerdict, type ValidTargets, type ValidTrajectory } from "./node/commands.js";
export { gripperToTarget, poseToTargets } from "./node/poseCommand.js";
export { SensorPublishers, type CameraShot } from "./node/sensors.js";
export { SIM_SENSOR_QOS } from "../msgs/qos.js";
export { RenderPool } from "./node/renderPool.js";
