/**
 * Forward kinematics of a whole robot from its profile: each arm's DH chain (the model
 * `kinematics.model` names, the profile's joint limits) mounted at its declared base, answering in
 * `kinematics.frame` (the workspace frame). What the safety filter boxes and pose holds command.
 */
import type { RobotProfile } from "../types.js";
import { armChains } from "./armChains.js";
import type { DhChain } from "./DhChain.js";
import { compose, translationOf, type Transform, type Vec3 } from "./transform.js";

/** One arm's end-effector frame in the kinematics frame. */
export interface EndEffectorPose {
  /** Profile arm name. */
  arm: string;
  /** The frame this pose is of (the arm's ee_frame). */
  frame: string;
  /** Origin, m. */
  xyz: Vec3;
  /** The whole pose (rotation and origin). */
  transform: Transform;
}

/**
 * Roll, pitch, yaw (rad) of a transform's rotation, ROS convention (R = Rz(yaw) · Ry(pitch) ·
 * Rx(roll), tf2 `getRPY`): pitch in [-π/2, π/2], roll and yaw in (-π, π].
 */
export function rpyOf(t: Transform): Vec3 {
  const sinPitch = -t[8]!;
  const pitch = Math.asin(sinPitch > 1 ? 1 : sinPitch < -1 ? -1 : sinPitch);
  return [Math.atan2(t[9]!, t[10]!), pitch, Math.atan2(t[4]!, t[0]!)];
}

/** Joint positions by joint name (rad); a joint left out reads as NaN, so its arm's pose is NaN. */
export type JointMap = Readonly<Record<string, number>>;

/** The FK of one robot. */
export interface RobotKinematics {
  /** Frame every pose is in (kinematics.frame = safety.workspace.frame). */
  readonly frame: string;
  /** Every arm's end-effector pose for `positions`, in profile arm order. */
  endEffectors(positions: JointMap): EndEffectorPose[];
  /** One arm's end-effector pose; throws naming the arm when the profile has no such arm. */
  endEffector(arm: string, positions: JointMap): EndEffectorPose;
}

interface ArmChain { arm: string; frame: string; joints: string[]; chain: DhChain; flangeToEe: Transform }

/**
 * The profile's forward kinematics, or null when it declares no `kinematics`. Throws (config edge)
 * as armChains does.
 */
export function robotKinematics(profile: RobotProfile): RobotKinematics | null {
  const spec = profile.kinematics;
  if (!spec) return null;
  const where = `[robot=${profile.name}]`;
  const chains: ArmChain[] = armChains(profile, "workspace").map((c, i) => ({
    arm: c.arm, frame: profile.arms[i]!.ee_frame, joints: c.joints, chain: c.chain, flangeToEe: c.model.flangeToEe,
  }));
  const poseOf = (c: ArmChain, positions: JointMap): EndEffectorPose => {
    const q = c.joints.map((n) => positions[n] ?? Number.NaN);
    const transform = compose(c.chain.fk(q).flange, c.flangeToEe);
    return { arm: c.arm, frame: c.frame, xyz: translationOf(transform), transform };
  };
  return {
    frame: spec.frame,
    endEffectors: (positions) => chains.map((c) => poseOf(c, positions)),
    endEffector: (arm, positions) => {
      const c = chains.find((x) => x.arm === arm);
      if (!c) throw new Error(`no arm "${arm}" (arms: ${chains.map((x) => x.arm).join(", ")}) ${where}`);
      return poseOf(c, positions);
    },
  };
}
