/**
 * Rigid transforms for the robot's kinematics and the sim world: a 3x4 row-major matrix [R | p] in an array
 * of 12 numbers (not a Float64Array: a 96-byte typed array is allocated off the heap, ~1 µs each,
 * and forward kinematics, meshes and camera poses make thousands per simulated second). Quaternions are [x, y, z, w] (the world contract's order).
 */
/** A point or vector, m (or a unit axis). */
export type Vec3 = [number, number, number];
/** A unit quaternion [x, y, z, w]. */
export type Quat = [number, number, number, number];
/** A position and an [x, y, z, w] orientation. */
export interface Pose3 { position: Vec3; quaternion: Quat }

/** A rigid transform, row-major [r00 r01 r02 px; r10 r11 r12 py; r20 r21 r22 pz]. */
export type Transform = number[];

/** The identity transform. */
export function identity(): Transform {
  return [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0];
}

/** a · b (apply b first, then a). Writes into `out` when given (may not alias a or b). */
export function compose(a: Transform, b: Transform, out: Transform = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]): Transform {
  for (let r = 0; r < 3; r++) {
    const a0 = a[r * 4]!, a1 = a[r * 4 + 1]!, a2 = a[r * 4 + 2]!;
    for (let c = 0; c < 4; c++) out[r * 4 + c] = a0 * b[c]! + a1 * b[4 + c]! + a2 * b[8 + c]!;
    out[r * 4 + 3]! += a[r * 4 + 3]!;
  }
  return out;
}

/** The inverse of a rigid transform. */
export function invert(t: Transform): Transform {
  const o: Transform = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
  for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) o[r * 4 + c] = t[c * 4 + r]!;
  for (let r = 0; r < 3; r++) o[r * 4 + 3] = -(o[r * 4]! * t[3]! + o[r * 4 + 1]! * t[7]! + o[r * 4 + 2]! * t[11]!);
  return o;
}

/** Translation part. */
export function translationOf(t: Transform): Vec3 {
  return [t[3]!, t[7]!, t[11]!];
}

/** Column `c` of the rotation (the frame's x, y or z axis in the parent frame). */
export function axisOf(t: Transform, c: 0 | 1 | 2): Vec3 {
  return [t[c]!, t[4 + c]!, t[8 + c]!];
}

/** A pure translation. */
export function translation(x: number, y: number, z: number): Transform {
  return [1, 0, 0, x, 0, 1, 0, y, 0, 0, 1, z];
}

/** Rotation about z by `rad`. */
export function rotZ(rad: number): Transform {
  const c = Math.cos(rad), s = Math.sin(rad);
  return [c, -s, 0, 0, s, c, 0, 0, 0, 0, 1, 0];
}

/** Rotation about x by `rad`. */
export function rotX(rad: number): Transform {
  const c = Math.cos(rad), s = Math.sin(rad);
  return [1, 0, 0, 0, 0, c, -s, 0, 0, s, c, 0];
}

/**
 * Modified (Craig) DH link transform: RotX(alpha) · TransX(a) · RotZ(theta) · TransZ(d).
 * This is the convention of Franka's published Panda parameters.
 */
export function dhModified(a: number, d: number, alpha: number, theta: number): Transform {
  const ca = Math.cos(alpha), sa = Math.sin(alpha), ct = Math.cos(theta), st = Math.sin(theta);
  return [
    ct, -st, 0, a,
    st * ca, ct * ca, -sa, -d * sa,
    st * sa, ct * sa, ca, d * ca,
  ];
}

/** Builds a transform from a position and an [x, y, z, w] quaternion (normalized here). */
export function fromPose(pose: Pose3): Transform {
  let [x, y, z, w] = pose.quaternion;
  const n = Math.hypot(x, y, z, w) || 1;
  x /= n; y /= n; z /= n; w /= n;
  const [px, py, pz] = pose.position;
  return [
    1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w), px,
    2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w), py,
    2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y), pz,
  ];
}

/** The [x, y, z, w] quaternion of a transform's rotation (w ≥ 0). */
export function quatOf(t: Transform): Quat {
  const m00 = t[0]!, m01 = t[1]!, m02 = t[2]!, m10 = t[4]!, m11 = t[5]!, m12 = t[6]!, m20 = t[8]!, m21 = t[9]!, m22 = t[10]!;
  const tr = m00 + m11 + m22;
  let q: Quat;
  if (tr > 0) {
    const s = Math.sqrt(tr + 1) * 2;
    q = [(m21 - m12) / s, (m02 - m20) / s, (m10 - m01) / s, 0.25 * s];
  } else if (m00 > m11 && m00 > m22) {
    const s = Math.sqrt(1 + m00 - m11 - m22) * 2;
    q = [0.25 * s, (m01 + m10) / s, (m02 + m20) / s, (m21 - m12) / s];
  } else if (m11 > m22) {
    const s = Math.sqrt(1 + m11 - m00 - m22) * 2;
    q = [(m01 + m10) / s, 0.25 * s, (m12 + m21) / s, (m02 - m20) / s];
  } else {
    const s = Math.sqrt(1 + m22 - m00 - m11) * 2;
    q = [(m02 + m20) / s, (m12 + m21) / s, 0.25 * s, (m10 - m01) / s];
  }
  const n = Math.hypot(...q) * (q[3] < 0 ? -1 : 1);
  return [q[0] / n, q[1] / n, q[2] / n, q[3] / n];
}

/** A transform as a Pose3. */
export function toPose(t: Transform): Pose3 {
  return { position: translationOf(t), quaternion: quatOf(t) };
}

/**
 * Orientation error as a rotation vector (axis · angle, rad) taking `current` to `target`,
 * both world-frame rotations: log(R_target · R_currentᵀ).
 */
export function rotationError(target: Transform, current: Transform): Vec3 {
  // E = Rt · Rcᵀ
  const e = new Float64Array(9);
  for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) {
    e[r * 3 + c] = target[r * 4]! * current[c * 4]! + target[r * 4 + 1]! * current[c * 4 + 1]! + target[r * 4 + 2]! * current[c * 4 + 2]!;
  }
  const cosA = Math.min(1, Math.max(-1, (e[0]! + e[4]! + e[8]! - 1) / 2));
  const angle = Math.acos(cosA);
  const vx = e[7]! - e[5]!, vy = e[2]! - e[6]!, vz = e[3]! - e[1]!;
  if (angle < 1e-9) return [vx / 2, vy / 2, vz / 2];
  if (Math.PI - angle < 1e-6) {
    // Near π the antisymmetric part vanishes; take the axis from the diagonal.
    const ax = Math.sqrt(Math.max(0, (e[0]! + 1) / 2)), ay = Math.sqrt(Math.max(0, (e[4]! + 1) / 2)), az = Math.sqrt(Math.max(0, (e[8]! + 1) / 2));
    const sy = e[1]! + e[3]! >= 0 ? 1 : -1, sz = e[2]! + e[6]! >= 0 ? 1 : -1;
    return [ax * angle, sy * ay * angle, sz * az * angle];
  }
  const k = angle / (2 * Math.sin(angle));
  return [vx * k, vy * k, vz * k];
}
