/**
 * End-effector commands (Franka ee_7d through the `pose` interface): a PoseStamped target of the
 * arm's ee_frame (e.g. panda_hand) in header.frame_id, solved by the world's IK into arm joint
 * targets; a Float32 gripper opening width. Rejected whole with a reason when the frame is
 * unknown, a value is not finite, the quaternion is degenerate, or the pose is out of reach.
 */
import type { Float32Msg, PoseStamped } from "../../msgs/types.js";
import type { ArmSpec, JointSpec } from "../../robot/types.js";
import { compose, fromPose, invert, toPose } from "../../robot/kinematics/transform.js";
import type { SimWorld } from "../world/SimWorld.js";
import { LIMIT_TOLERANCE, type CommandVerdict, type ValidTargets } from "./commands.js";

/** Frame assumed when header.frame_id is empty. */
export const DEFAULT_POSE_FRAME = "base_link";

/** Turns a PoseStamped of `arm.ee_frame` into the arm's 7 joint targets through IK. */
export function poseToTargets(msg: PoseStamped, arm: ArmSpec, world: SimWorld, where = "PoseStamped"): CommandVerdict<ValidTargets> {
  const frameId = msg.header.frame_id || DEFAULT_POSE_FRAME;
  const frame = world.framePose(frameId);
  if (!frame) return { kind: "reject", reason: `${where}: unknown frame_id "${frameId}"` };
  const { position: p, orientation: q } = msg.pose;
  const values = [p.x, p.y, p.z, q.x, q.y, q.z, q.w];
  if (values.some((v) => !Number.isFinite(v))) return { kind: "reject", reason: `${where}: non-finite value in pose ${JSON.stringify(msg.pose)}` };
  const norm = Math.hypot(q.x, q.y, q.z, q.w);
  if (Math.abs(norm - 1) > 0.01) return { kind: "reject", reason: `${where}: orientation quaternion norm ${norm.toFixed(4)}, expected 1` };
  const eeInFrame = fromPose({ position: [p.x, p.y, p.z], quaternion: [q.x, q.y, q.z, q.w] });
  const eeWorld = compose(fromPose(frame), eeInFrame);
  // ee → grasp frame offset is fixed by the arm's geometry; read it from the current FK.
  const eeNow = world.framePose(arm.ee_frame);
  if (!eeNow) return { kind: "reject", reason: `${where}: the sim has no frame "${arm.ee_frame}" (arm "${arm.name}" ee_frame)` };
  const eeToTcp = compose(invert(fromPose(eeNow)), fromPose(world.graspPose(arm.name)));
  const ik = world.solveIk(arm.name, toPose(compose(eeWorld, eeToTcp)));
  if (!ik.ok) {
    return { kind: "reject", reason: `${where}: pose out of reach for arm "${arm.name}" (IK residual ${(ik.positionErrorM * 1000).toFixed(1)} mm, ${ik.rotationErrorRad.toFixed(3)} rad)` };
  }
  return { kind: "accept", value: { indices: world.armJointIndices(arm.name).joints, positions: ik.positions } };
}

/** Validates a gripper opening width command against the gripper joint's limits. */
export function gripperToTarget(msg: Float32Msg, gripper: JointSpec, index: number, where = "gripper"): CommandVerdict<ValidTargets> {
  const v = msg.data;
  if (!Number.isFinite(v)) return { kind: "reject", reason: `${where}: width ${v} is not finite` };
  if (v < gripper.lower - LIMIT_TOLERANCE || v > gripper.upper + 1e-6) {
    return { kind: "reject", reason: `${where}: width ${v.toFixed(4)} m outside "${gripper.name}" limits [${gripper.lower}, ${gripper.upper}]` };
  }
  return { kind: "accept", value: { indices: [index], positions: Float64Array.of(Math.min(gripper.upper, Math.max(gripper.lower, v))) } };
}
