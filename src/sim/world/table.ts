/** The table every scene stands on (conventions in types.ts): top at z = 0.75, centre (0.45, 0). */
import type { Vec3 } from "./types.js";

/** Table slab: centre of the top surface, half extents of the slab, colour. */
export const TABLE = { center: [0.45, 0, 0.75] as Vec3, halfExtents: [0.45, 0.6, 0.02] as Vec3, color: [150, 118, 84] as Vec3 };
