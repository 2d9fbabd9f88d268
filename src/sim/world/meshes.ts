/** The world as render meshes: table, arm link cylinders, palms, fingers and every object. */
import { boxMesh, cylinderMesh, meshFromShape } from "../render/meshes.js";
import { armPartPoses, type ArmBodies } from "./armBodies.js";
import type { ObjectStore } from "./objects.js";
import type { Pose3, RenderMesh, Vec3 } from "./types.js";
import { TABLE } from "./table.js";

const FINGER_COLOR: [number, number, number] = [60, 60, 66];

/**
 * Builds the meshes of one world state (world frame). The table and the objects physics does not move
 * (fixed and visual bodies) are marked `fixed`: only the task moves or recolours them.
 */
export function worldMeshes(arms: { arm: ArmBodies; widthM: number }[], objects: ObjectStore): RenderMesh[] {
  const out: RenderMesh[] = [];
  const [tx, ty, tz] = TABLE.center;
  out.push({ ...boxMesh(TABLE.halfExtents, { position: [tx, ty, tz - TABLE.halfExtents[2]], quaternion: [0, 0, 0, 1] }, TABLE.color), fixed: true });
  for (const { arm, widthM } of arms) {
    const parts = armPartPoses(arm, widthM);
    for (const c of parts.cylinders) out.push(cylinderMesh(arm.model.linkRadius, c.halfHeight, c.pose, arm.model.color, 12));
    parts.boxes.forEach((b, i) => out.push(boxMesh(b.halfExtents, b.pose, i === 0 ? arm.model.color : FINGER_COLOR)));
  }
  for (const id of objects.ids()) {
    const spec = objects.spec(id);
    const pose = objects.pose(id);
    const fixed = spec.body !== "dynamic";
    out.push({ ...meshFromShape(spec.shape, pose, spec.color), fixed });
    for (const part of spec.parts ?? []) out.push({ ...meshFromShape(part.shape, offsetPose(pose, part.offset), part.color), fixed });
  }
  return out;
}

/** `pose` moved by `offset` given in its own frame (q v q* added to the position). */
function offsetPose(pose: Pose3, offset: Vec3): Pose3 {
  const [x, y, z, w] = pose.quaternion, [vx, vy, vz] = offset;
  // v + 2w (u x v) + 2 u x (u x v), u = (x, y, z)
  const cx = y * vz - z * vy, cy = z * vx - x * vz, cz = x * vy - y * vx;
  const p = pose.position;
  return {
    position: [p[0] + vx + 2 * (w * cx + y * cz - z * cy), p[1] + vy + 2 * (w * cy + z * cx - x * cz), p[2] + vz + 2 * (w * cz + x * cy - y * cx)],
    quaternion: pose.quaternion,
  };
}
