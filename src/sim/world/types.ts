/**
 * The sim world contract shared by the world/robots code (src/sim/world, src/sim/robots), the
 * renderer (src/sim/render), and the tasks + scripted experts (src/sim/tasks, src/sim/expert).
 *
 * Conventions (the calibration files in calibration/ use the same ones):
 * - World frame "world", z up, metres, floor at z = 0.
 * - Table: top surface at z = 0.75, centre (0.45, 0, 0.75), size 0.9 (x) x 1.2 (y). Task objects
 *   live in x ∈ [0.2, 0.75], y ∈ [-0.5, 0.5] on the table top.
 * - Robot frame "base_link" at world (0, 0, 0.75), identity orientation, facing +x over the table.
 *   X-One: left arm base "left_base" at base_link + (0, +0.3, 0), right arm "right_base" at
 *   base_link + (0, -0.3, 0). Franka: "panda_link0" = base_link.
 * - Arm flange frames (left_link7, right_link7, panda_link8/panda_hand): z axis is the approach
 *   direction (out of the flange toward the fingertips), as in the Panda DH convention.
 * - Quaternions are [x, y, z, w].
 */

export type Vec3 = [number, number, number];
export type Quat = [number, number, number, number];

export interface Pose3 { position: Vec3; quaternion: Quat }

export type ShapeSpec =
  | { kind: "box"; halfExtents: Vec3 }
  | { kind: "cylinder"; radius: number; halfHeight: number }   // axis along local z
  | { kind: "sphere"; radius: number };

export interface ObjectSpec {
  name: string;
  shape: ShapeSpec;
  /** Flat colour, 0..255 RGB. */
  color: Vec3;
  pose: Pose3;
  /** dynamic: simulated and graspable (never sleeps); fixed: static collider; visual: rendered only, no collision. */
  body: "dynamic" | "fixed" | "visual";
  massKg?: number;
  friction?: number;
  /**
   * Further pieces rigidly attached to the object (a T-block's bar, a battery's cap), each offset
   * in the object's frame and with its own colour; they collide (unless the object is visual),
   * are grasped and rendered as part of it, and share its pose.
   */
  parts?: ObjectPart[];
}

/** A piece of a compound object: a shape at `offset` (object frame, m, no rotation) and its colour. */
export interface ObjectPart { shape: ShapeSpec; offset: Vec3; color: Vec3 }

export type ObjectId = number;

/** A triangle mesh in world coordinates with one flat colour, what the rasterizer draws. */
export interface RenderMesh {
  /** xyz triples, world frame. */
  positions: Float32Array;
  /** Triangle vertex indices. */
  indices: Uint32Array;
  color: Vec3;
  /**
   * True when only an explicit change to the world moves or recolours the mesh (the table, fixed and
   * visual objects), never physics or the arms: a camera that does not move keeps such meshes drawn
   * between frames (render/StaticLayer.ts), and redraws them when they change.
   */
  fixed?: boolean;
}

/** What tasks and the expert see and do. Implemented by SimWorld (src/sim/world/SimWorld.ts). */
export interface SimWorldApi {
  /** Sim time since the episode reset, ns. */
  readonly timeNs: bigint;
  /** Physics steps since reset. */
  readonly stepCount: number;
  readonly armNames: string[];

  addObject(spec: ObjectSpec): ObjectId;
  removeObject(id: ObjectId): void;
  objectPose(id: ObjectId): Pose3;
  setObjectPose(id: ObjectId, pose: Pose3): void;
  objectSpec(id: ObjectId): ObjectSpec;
  setObjectColor(id: ObjectId, color: Vec3): void;

  /** Measured joint positions, robot joint order (profile.joints), grippers as opening width in m. */
  jointPositions(): Float64Array;
  jointNames(): string[];
  /** Current joint position targets (robot order), what was last commanded. */
  jointTargets(): Float64Array;
  /** Sets joint position targets (robot order, full vector); the joint controller tracks them within velocity limits. */
  setJointTargets(targets: Float64Array): void;

  /** Flange pose of an arm in the world frame (forward kinematics of the measured joints). */
  flangePose(arm: string): Pose3;
  /** Point between the fingertips in the world frame (where a grasp centres). */
  graspPoint(arm: string): Vec3;
  /**
   * Pose of the arm's grasp frame in the world frame: origin at the grasp point, z = approach
   * (flange z), y = the axis along which the fingers open. A top-down grasp with yaw ψ is the
   * quaternion of Rz(ψ)·Rx(π), i.e. [cos(ψ/2), sin(ψ/2), 0, 0] in [x, y, z, w].
   */
  graspPose(arm: string): Pose3;
  /** Indices into jointPositions()/setJointTargets() of the arm's 7 joints and of its gripper. */
  armJointIndices(arm: string): { joints: number[]; gripper: number };
  /**
   * Damped-least-squares IK for the arm's grasp frame (see graspPose) to reach `target` (world
   * frame), joint limits respected, seeded from the current joints. Returns the 7 arm joint positions.
   */
  /** IK from the arm's measured joints, or from `seed` (the arm's joints, its joint order) when given. */
  solveIk(arm: string, target: Pose3, seed?: ArrayLike<number>): { ok: boolean; positions: Float64Array; positionErrorM: number; rotationErrorRad: number };
  /** Object held by the arm's gripper, if any. */
  heldObject(arm: string): ObjectId | null;
}
