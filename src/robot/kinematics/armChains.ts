/**
 * Each profile arm's DH chain: the model `kinematics.model` declares, the profile's joint limits,
 * mounted at the arm's declared base. One builder for everything that runs a robot's kinematics:
 * the safety filter (in the workspace frame), the sim twin's arms, keyboard jog and the HDF5
 * export's end poses (in the world frame).
 */
import type { RobotProfile } from "../types.js";
import { DhChain } from "./DhChain.js";
import { kinematicModel, type ArmKinematicModel } from "./models.js";
import { translation, type Transform } from "./transform.js";

/** Which frame the chains answer in: `kinematics.frame`, or the world it stands in (`kinematics.world`). */
export type ChainFrame = "workspace" | "world";

/** One profile arm's kinematics. */
export interface ArmChain {
  /** Profile arm name. */
  arm: string;
  /** The arm's revolute joints, proximal to distal (the chain's joint order). */
  joints: string[];
  /** The DH chain with the profile's limits, based at the arm's base frame. */
  chain: DhChain;
  /** The declared model (flange → end-effector and tool frames). */
  model: ArmKinematicModel;
}

/**
 * The origin of `kinematics.frame` in the world frame, m: what the twin stands the robot at and
 * RoboTwin's end poses are in. Absent in the profile: the world is the workspace frame.
 */
export function worldOrigin(profile: RobotProfile): [number, number, number] {
  return profile.kinematics?.world ?? [0, 0, 0];
}

/**
 * The fixed frames the profile's kinematics places: `kinematics.frame` and every arm base frame,
 * each as a pose in `frame` ("world": shifted by worldOrigin). Throws naming the robot when the
 * profile declares no kinematics.
 */
export function baseFrames(profile: RobotProfile, frame: ChainFrame): Record<string, Transform> {
  const spec = profile.kinematics;
  if (!spec) throw new Error(`robot "${profile.name}" declares no kinematics (model, frame, bases)`);
  const o = frame === "world" ? worldOrigin(profile) : [0, 0, 0];
  const out: Record<string, Transform> = { [spec.frame]: translation(o[0]!, o[1]!, o[2]!) };
  for (const [name, b] of Object.entries(spec.bases)) out[name] = translation(o[0]! + b[0], o[1]! + b[1], o[2]! + b[2]);
  return out;
}

/**
 * Every arm's chain, in profile arm order. Throws (config edge) naming the robot when it declares
 * no kinematics, the model is unknown, an arm's joint count differs from the model's, an arm's
 * base has no entry in kinematics.bases, or an arm joint is not in joints[].
 */
export function armChains(profile: RobotProfile, frame: ChainFrame): ArmChain[] {
  const bases = baseFrames(profile, frame);
  const spec = profile.kinematics!;
  const where = `[robot=${profile.name}]`;
  const model = kinematicModel(spec.model, profile.name);
  const limits = new Map(profile.joints.map((j) => [j.name, j]));
  return profile.arms.map((arm) => {
    if (arm.joints.length !== model.joints.length) {
      const has = `${arm.joints.length} joints; kinematics.model "${spec.model}" has ${model.joints.length}`;
      throw new Error(`arm "${arm.name}" has ${has} ${where}`);
    }
    const base = Object.hasOwn(spec.bases, arm.base_frame) ? bases[arm.base_frame] : undefined;
    if (!base) {
      throw new Error(`kinematics.bases has no entry for arm "${arm.name}" base_frame "${arm.base_frame}" ${where}`);
    }
    const joint = (n: string) => {
      const j = limits.get(n);
      if (!j) throw new Error(`arm "${arm.name}" joint "${n}" is not in joints[] ${where}`);
      return j;
    };
    const lower = arm.joints.map((n) => joint(n).lower);
    const upper = arm.joints.map((n) => joint(n).upper);
    const { joints, flange, flangeToTcp } = model;
    const chain = new DhChain({ joints, flange, flangeToTcp, lower, upper }, base);
    return { arm: arm.name, joints: arm.joints, chain, model };
  });
}
