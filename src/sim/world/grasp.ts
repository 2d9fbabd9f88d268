/**
 * Grasping: when an arm's gripper is closing (commanded below its width, or moving inward as it
 * does under a trajectory follower whose target the width keeps up with) and both fingers touch the same dynamic object, a
 * fixed impulse joint is made between the hand body and the object at their current relative
 * pose (contacts between them disabled) and the gripper stops at that width; the joint is
 * removed as soon as the gripper is commanded open past the grasp width.
 */
import type RAPIER_NS from "@dimforge/rapier3d-compat";
import type { ArmBodies } from "./armBodies.js";
import type { ObjectStore } from "./objects.js";
import type { ObjectId } from "./types.js";

type Rapier = typeof RAPIER_NS;

/** Contact distance (m) under which a finger counts as touching. */
const TOUCH_DIST_M = 1e-3;
/** Opening beyond the grasp width (m) that releases the object. */
const RELEASE_MARGIN_M = 1e-3;

interface Held { object: ObjectId; joint: RAPIER_NS.ImpulseJoint; widthM: number }

/** Makes and breaks grasps for every arm of one world. */
export class GraspManager {
  private readonly held_ = new Map<ArmBodies, Held>();

  constructor(private readonly R: Rapier, private readonly world: RAPIER_NS.World, private readonly objects: ObjectStore) {}

  /** Object held by `arm`, or null. */
  held(arm: ArmBodies): ObjectId | null { return this.held_.get(arm)?.object ?? null; }

  /** Gripper width at which `arm` holds its object (the controller's floor), or null. */
  heldWidth(arm: ArmBodies): number | null { return this.held_.get(arm)?.widthM ?? null; }

  /** Drops any grasp on `id` (before the object is removed or teleported). */
  forget(id: ObjectId): void {
    for (const [arm, h] of this.held_) if (h.object === id) this.release(arm, h);
  }

  private release(arm: ArmBodies, h: Held): void {
    if (this.world.getImpulseJoint(h.joint.handle)) this.world.removeImpulseJoint(h.joint, true);
    this.held_.delete(arm);
  }

  /** Objects one finger touches (dynamic only), in collider-handle order for determinism. */
  private touching(finger: RAPIER_NS.Collider): ObjectId[] {
    const out: ObjectId[] = [];
    this.world.contactPairsWith(finger, (other) => {
      const id = this.objects.byColliderHandle(other.handle);
      if (id === undefined || !this.objects.dynamicBody(id)) return;
      let touch = false;
      this.world.contactPair(finger, other, (m) => {
        for (let i = 0; i < m.numContacts(); i++) if (m.contactDist(i) < TOUCH_DIST_M || m.contactImpulse(i) > 0) touch = true;
      });
      if (touch) out.push(id);
    });
    return out.sort((a, b) => a - b);
  }

  /** Called after each physics step with the arm's measured and commanded gripper widths and its width rate (m/s). */
  update(arm: ArmBodies, widthM: number, targetWidthM: number, widthRateMps: number): void {
    const h = this.held_.get(arm);
    if (h) {
      if (targetWidthM > h.widthM + RELEASE_MARGIN_M) this.release(arm, h);
      return;
    }
    if (!(targetWidthM < widthM - 1e-6 || widthRateMps < 0)) return; // not closing
    const a = this.touching(arm.fingers[0]);
    if (a.length === 0) return;
    const b = new Set(this.touching(arm.fingers[1]));
    const id = a.find((x) => b.has(x));
    if (id === undefined) return;
    for (const other of this.held_.values()) if (other.object === id) return; // the other hand has it
    const body = this.objects.dynamicBody(id)!;
    const hp = arm.hand.translation(), hq = arm.hand.rotation();
    const op = body.translation(), oq = body.rotation();
    // Object pose in the hand frame: anchor = R_hᵀ (p_o - p_h), frame = q_h⁻¹ q_o.
    const inv = { x: -hq.x, y: -hq.y, z: -hq.z, w: hq.w };
    const anchor = rotate(inv, { x: op.x - hp.x, y: op.y - hp.y, z: op.z - hp.z });
    const rel = mul(inv, oq);
    const data = this.R.JointData.fixed(anchor, rel, { x: 0, y: 0, z: 0 }, { x: 0, y: 0, z: 0, w: 1 });
    const joint = this.world.createImpulseJoint(data, arm.hand, body, true);
    joint.setContactsEnabled(false);
    this.held_.set(arm, { object: id, joint, widthM });
  }
}

type Q = { x: number; y: number; z: number; w: number };
type V = { x: number; y: number; z: number };

function mul(a: Q, b: Q): Q {
  return {
    w: a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
    x: a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
    y: a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
    z: a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
  };
}

function rotate(q: Q, v: V): V {
  const r = mul(mul(q, { x: v.x, y: v.y, z: v.z, w: 0 }), { x: -q.x, y: -q.y, z: -q.z, w: q.w });
  return { x: r.x, y: r.y, z: r.z };
}
