/**
 * The rapier bodies of one arm: a kinematic body per link (a cylinder from its origin to the
 * next link's origin), a kinematic hand body at the tool frame carrying the palm box and the two
 * finger boxes (moved along the tool y axis as the gripper opens). Posed each step from forward
 * kinematics of the measured joints.
 */
import type RAPIER_NS from "@dimforge/rapier3d-compat";
import { DhChain, type FkResult } from "../../robot/kinematics/DhChain.js";
import { compose, dhModified, quatOf, toPose, translationOf, type Transform } from "../../robot/kinematics/transform.js";
import type { ArmModel } from "../robots/ArmModel.js";
import type { Pose3, Vec3 } from "../world/types.js";

type Rapier = typeof RAPIER_NS;

/** A link segment: a cylinder along its local z, fixed in one link's frame. */
export interface Segment {
  /** Index into fk links (0..6), or -1 for the arm base. */
  link: number;
  /** Pose of the cylinder in the link frame (z along the segment). */
  local: Transform;
  halfHeight: number;
}

/** One arm's bodies and live state inside a SimWorld. */
export interface ArmBodies {
  model: ArmModel;
  chain: DhChain;
  /** Indices of the arm joints and the gripper in the robot joint vector. */
  jointIdx: number[];
  gripperIdx: number;
  segments: Segment[];
  links: RAPIER_NS.RigidBody[];
  hand: RAPIER_NS.RigidBody;
  fingers: [RAPIER_NS.Collider, RAPIER_NS.Collider];
  /** FK of the measured joints, updated each step. */
  fk: FkResult;
  /** The arm joints the bodies were last posed at (NaN until first posed). */
  posedAt: Float64Array;
}

/** Rotation taking local z onto `dir` (unit), as a transform with translation `mid`. */
function alongZ(dir: Vec3, mid: Vec3): Transform {
  const [x, y, z] = dir;
  // Rotation axis z × dir, angle acos(z·dir).
  const c = z, ax = -y, ay = x; // (0,0,1) × (x,y,z) = (-y, x, 0)
  const s = Math.hypot(ax, ay);
  let r: number[];
  if (s < 1e-12) r = c > 0 ? [1, 0, 0, 0, 1, 0, 0, 0, 1] : [1, 0, 0, 0, -1, 0, 0, 0, -1];
  else {
    const kx = ax / s, ky = ay / s, t = 1 - c;
    r = [
      c + kx * kx * t, kx * ky * t, ky * s,
      kx * ky * t, c + ky * ky * t, -kx * s,
      -ky * s, kx * s, c,
    ];
  }
  return [r[0]!, r[1]!, r[2]!, mid[0], r[3]!, r[4]!, r[5]!, mid[1], r[6]!, r[7]!, r[8]!, mid[2]];
}

/** The constant cylinders between consecutive link origins (zero-length ones skipped). */
function armSegments(model: ArmModel): Segment[] {
  const rows = [...model.kinematics.joints, model.kinematics.flange];
  const out: Segment[] = [];
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!;
    // Origin of frame i+1 expressed in frame i (theta does not move the origin in modified DH).
    const o = translationOf(dhModified(r.a, r.d, r.alpha, 0));
    const len = Math.hypot(...o);
    if (len < 1e-6) continue;
    out.push({ link: i - 1, local: alongZ([o[0] / len, o[1] / len, o[2] / len], [o[0] / 2, o[1] / 2, o[2] / 2]), halfHeight: len / 2 });
  }
  return out;
}

function setPose(body: RAPIER_NS.RigidBody, t: Transform): void {
  const p = translationOf(t), q = quatOf(t);
  // NOTE: keep the quaternion on the current one's hemisphere: rapier derives the kinematic body's
  // angular velocity from the quaternion change, and a sign flip (same rotation, w ≈ 0) would read
  // as a full turn in one step and fling whatever the hand touches.
  const c = body.rotation();
  const s = c.x * q[0] + c.y * q[1] + c.z * q[2] + c.w * q[3] < 0 ? -1 : 1;
  body.setNextKinematicTranslation({ x: p[0], y: p[1], z: p[2] });
  body.setNextKinematicRotation({ x: s * q[0], y: s * q[1], z: s * q[2], w: s * q[3] });
}

function placeBody(R: Rapier, world: RAPIER_NS.World, t: Transform): RAPIER_NS.RigidBody {
  const p = translationOf(t), q = quatOf(t);
  return world.createRigidBody(R.RigidBodyDesc.kinematicPositionBased().setTranslation(p[0], p[1], p[2]).setRotation({ x: q[0], y: q[1], z: q[2], w: q[3] }));
}

/** Creates an arm's bodies in `world` at configuration `q` (arm joints) with gripper opening `widthM`. */
export function createArmBodies(R: Rapier, world: RAPIER_NS.World, model: ArmModel, jointIdx: number[], gripperIdx: number, q: ArrayLike<number>, widthM: number): ArmBodies {
  const chain = new DhChain(model.kinematics, model.baseInWorld);
  const fk = chain.fk(q);
  const segments = armSegments(model);
  const frames = [model.baseInWorld, ...fk.links];
  const links = frames.map((t) => placeBody(R, world, t));
  for (const s of segments) {
    const p = translationOf(s.local), qq = quatOf(s.local);
    world.createCollider(R.ColliderDesc.cylinder(s.halfHeight, model.linkRadius).setRotation(yToZ(qq)).setTranslation(p[0], p[1], p[2]), links[s.link + 1]);
  }
  const hand = placeBody(R, world, fk.tcp);
  const h = model.hand;
  world.createCollider(R.ColliderDesc.cuboid(...h.halfExtents).setTranslation(...h.center), hand);
  const f = model.finger;
  const mk = (sign: number) => world.createCollider(
    R.ColliderDesc.cuboid(...f.halfExtents).setTranslation(0, sign * (widthM / 2 + f.halfExtents[1]), f.centerZ).setFriction(1.0), hand);
  const posedAt = new Float64Array(chain.dof).fill(NaN);
  return { model, chain, jointIdx, gripperIdx, segments, links, hand, fingers: [mk(1), mk(-1)], fk, posedAt };
}

/** rapier cylinders run along local y; compose the segment's z-aligned rotation with Rx(π/2) (y → z). */
function yToZ(q: [number, number, number, number]): { x: number; y: number; z: number; w: number } {
  const s = Math.SQRT1_2; // quaternion of Rx(π/2): [s, 0, 0, s]
  const [x, y, z, w] = q;
  return { x: w * s + x * s, y: y * s + z * s, z: z * s - y * s, w: w * s - x * s };
}

/**
 * Poses the arm's bodies from FK of `q` and opens the fingers to `widthM` (applied by the next world
 * step). An arm still at the joints it was last posed at keeps its bodies' next pose, so the step is
 * the same without the FK and the body updates (an idle arm, most steps). The fingers are set every
 * step even so: rapier treats a collider set to where it already is as changed (skipping that
 * changed 2 of 50 mem0-tiny episodes, seeds 1018 and 1021).
 */
export function poseArm(arm: ArmBodies, q: ArrayLike<number>, widthM: number): void {
  const at = arm.posedAt;
  let same = true;
  const dof = arm.chain.dof;
  for (let i = 0; i < dof && same; i++) same = at[i] === q[i];
  if (!same) {
    for (let i = 0; i < dof; i++) at[i] = q[i]!;
    arm.fk = arm.chain.fk(q);
    for (let i = 0; i < dof; i++) setPose(arm.links[i + 1]!, arm.fk.links[i]!);
    setPose(arm.hand, arm.fk.tcp);
  }
  const f = arm.model.finger;
  arm.fingers[0].setTranslationWrtParent({ x: 0, y: widthM / 2 + f.halfExtents[1], z: f.centerZ });
  arm.fingers[1].setTranslationWrtParent({ x: 0, y: -(widthM / 2 + f.halfExtents[1]), z: f.centerZ });
}

/**
 * Named frames of an arm in the world: <prefix>link0..n (n joints), <prefix>link(n+1) / flange,
 * <prefix>hand, <prefix>tcp.
 */
export function armFrame(arm: ArmBodies, name: string): Transform | null {
  const p = arm.model.framePrefix;
  if (!name.startsWith(p)) return null;
  const rest = name.slice(p.length);
  const m = /^link(\d+)$/.exec(rest);
  if (m) {
    const k = Number(m[1]);
    if (k === 0) return arm.model.baseInWorld;
    if (k <= arm.chain.dof) return arm.fk.links[k - 1]!;
    if (k === arm.chain.dof + 1) return arm.fk.flange;
    return null;
  }
  if (rest === "flange") return arm.fk.flange;
  if (rest === "hand") return compose(arm.fk.flange, arm.model.flangeToHand);
  if (rest === "tcp" || rest === "hand_tcp") return arm.fk.tcp;
  return null;
}

/** World poses of the arm's drawable parts: link cylinders, palm and fingers (for meshes()). */
export function armPartPoses(arm: ArmBodies, widthM: number): { cylinders: { pose: Pose3; halfHeight: number }[]; boxes: { pose: Pose3; halfExtents: Vec3 }[] } {
  const frames = [arm.model.baseInWorld, ...arm.fk.links];
  const cylinders = arm.segments.map((s) => ({ pose: toPose(compose(frames[s.link + 1]!, s.local)), halfHeight: s.halfHeight }));
  const tcp = arm.fk.tcp, f = arm.model.finger, h = arm.model.hand;
  const at = (c: Vec3) => toPose(compose(tcp, [1, 0, 0, c[0], 0, 1, 0, c[1], 0, 0, 1, c[2]]));
  const off = widthM / 2 + f.halfExtents[1];
  return {
    cylinders,
    boxes: [
      { pose: at(h.center), halfExtents: h.halfExtents },
      { pose: at([0, off, f.centerZ]), halfExtents: f.halfExtents },
      { pose: at([0, -off, f.centerZ]), halfExtents: f.halfExtents },
    ],
  };
}
