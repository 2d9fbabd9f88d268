/**
 * What the sim needs to know about one arm beyond the profile: its kinematic chain (DH), where
 * its base sits in the world, and simple collision/render geometry for links, hand and fingers.
 */
import type { ArmKinematics } from "../../robot/kinematics/DhChain.js";
import type { Transform } from "../../robot/kinematics/transform.js";
import type { Vec3 } from "../world/types.js";

/** Geometry and kinematics of one simulated arm. Lengths in m. */
export interface ArmModel {
  /** Profile arm name ("left", "right", "arm"). */
  name: string;
  /** DH chain with joint limits already taken from the profile. */
  kinematics: ArmKinematics;
  /** The arm's base frame in the world frame. */
  baseInWorld: Transform;
  /** Frame name prefix: "left_", "right_", "panda_". Frames: <prefix>link0..8, <prefix>hand, <prefix>tcp. */
  framePrefix: string;
  /** Flange → hand frame (Panda: -π/4 about z); the tool frame is the hand frame moved out along z. */
  flangeToHand: Transform;
  /** Radius of the cylinder drawn between consecutive link origins. */
  linkRadius: number;
  /** Hand (palm) box, in the grasp (tool) frame: half extents and centre. */
  hand: { halfExtents: Vec3; center: Vec3 };
  /** Each finger is a box; its centre is at (0, ±(width/2 + halfExtents[1]), centerZ) in the tool frame. */
  finger: { halfExtents: Vec3; centerZ: number };
  /** Link colours for rendering. */
  color: Vec3;
}
