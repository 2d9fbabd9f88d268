/** The world as render meshes: table, arm link cylinders, palms, fingers and every object. */
import { boxMesh, cylinderMesh, meshFromShape } from "../render/meshes.js";
import { armPartPoses, type ArmBodies } from "./armBodies.js";
import type { ObjectStore } from "./objects.js";
import type { RenderMesh } from "./types.js";
import { TABLE } from "./table.js";

const FINGER_COLOR: [number, number, number] = [60, 60, 66];

/** Builds the meshes of one world state (world frame). */
export function worldMeshes(arms: { arm: ArmBodies; widthM: number }[], objects: ObjectStore): RenderMesh[] {
  const out: RenderMesh[] = [];
  const [tx, ty, tz] = TABLE.center;
  out.push(boxMesh(TABLE.halfExtents, { position: [tx, ty, tz - TABLE.halfExtents[2]], quaternion: [0, 0, 0, 1] }, TABLE.color));
  for (const { arm, widthM } of arms) {
    const parts = armPartPoses(arm, widthM);
    for (const c of parts.cylinders) out.push(cylinderMesh(arm.model.linkRadius, c.halfHeight, c.pose, arm.model.color, 12));
    parts.boxes.forEach((b, i) => out.push(boxMesh(b.halfExtents, b.pose, i === 0 ? arm.model.color : FINGER_COLOR)));
  }
  for (const id of objects.ids()) {
    const spec = objects.spec(id);
    out.push(meshFromShape(spec.shape, objects.pose(id), spec.color));
  }
  return out;
}
