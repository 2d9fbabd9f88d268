/**
 * Small rigid-transform helpers for the renderer: quaternions are [x, y, z, w] (as in
 * src/sim/world/types.ts), rotation matrices are row-major 3x3 arrays of 9 numbers.
 */
import type { Pose3, Quat, Vec3 } from "../world/types.js";

/** Row-major 3x3 rotation matrix, 9 numbers. */
export type Mat3 = [number, number, number, number, number, number, number, number, number];

/** The identity pose. */
export function identityPose(): Pose3 {
  return { position: [0, 0, 0], quaternion: [0, 0, 0, 1] };
}

/** Rotation matrix of a quaternion [x, y, z, w]; the quaternion is normalized first (a zero quaternion is the identity). */
export function quatToMat3(q: Quat): Mat3 {
  const n = Math.hypot(q[0], q[1], q[2], q[3]);
  if (n === 0) return [1, 0, 0, 0, 1, 0, 0, 0, 1];
  const x = q[0] / n, y = q[1] / n, z = q[2] / n, w = q[3] / n;
  return [
    1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w),
    2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
    2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y),
  ];
}

/** Hamilton product a ⊗ b (rotate by b, then by a), both [x, y, z, w]. */
export function quatMultiply(a: Quat, b: Quat): Quat {
  const [ax, ay, az, aw] = a;
  const [bx, by, bz, bw] = b;
  return [
    aw * bx + ax * bw + ay * bz - az * by,
    aw * by - ax * bz + ay * bw + az * bx,
    aw * bz + ax * by - ay * bx + az * bw,
    aw * bw - ax * bx - ay * by - az * bz,
  ];
}

/** Quaternion [x, y, z, w] for a rotation of `angleRad` about `axis` (need not be unit length). */
export function quatFromAxisAngle(axis: Vec3, angleRad: number): Quat {
  const n = Math.hypot(axis[0], axis[1], axis[2]);
  if (n === 0) return [0, 0, 0, 1];
  const s = Math.sin(angleRad / 2) / n;
  return [axis[0] * s, axis[1] * s, axis[2] * s, Math.cos(angleRad / 2)];
}

/** m · v for a row-major 3x3 matrix. */
export function mat3MulVec(m: Mat3, v: Vec3): Vec3 {
  return [
    m[0] * v[0] + m[1] * v[1] + m[2] * v[2],
    m[3] * v[0] + m[4] * v[1] + m[5] * v[2],
    m[6] * v[0] + m[7] * v[1] + m[8] * v[2],
  ];
}

/** Maps a point from the pose's local frame into its parent frame: R·p + t. */
export function transformPoint(pose: Pose3, p: Vec3): Vec3 {
  const r = mat3MulVec(quatToMat3(pose.quaternion), p);
  return [r[0] + pose.position[0], r[1] + pose.position[1], r[2] + pose.position[2]];
}

/** Composition a ∘ b: `aFromB ∘ bFromC = aFromC` (apply b first, then a). */
export function composePose(a: Pose3, b: Pose3): Pose3 {
  return { position: transformPoint(a, b.position), quaternion: quatMultiply(a.quaternion, b.quaternion) };
}

/** Inverse pose: `invertPose(aFromB) = bFromA`. */
export function invertPose(p: Pose3): Pose3 {
  const q: Quat = [-p.quaternion[0], -p.quaternion[1], -p.quaternion[2], p.quaternion[3]];
  const t = mat3MulVec(quatToMat3(q), p.position);
  return { position: [-t[0], -t[1], -t[2]], quaternion: q };
}

/** Quaternion [x, y, z, w] of a row-major rotation matrix (Shepperd's method, w ≥ 0). */
export function mat3ToQuat(m: Mat3): Quat {
  const [m00, m01, m02, m10, m11, m12, m20, m21, m22] = m;
  const tr = m00 + m11 + m22;
  let q: Quat;
  if (tr > 0) {
    const s = 2 * Math.sqrt(tr + 1);
    q = [(m21 - m12) / s, (m02 - m20) / s, (m10 - m01) / s, s / 4];
  } else if (m00 > m11 && m00 > m22) {
    const s = 2 * Math.sqrt(1 + m00 - m11 - m22);
    q = [s / 4, (m01 + m10) / s, (m02 + m20) / s, (m21 - m12) / s];
  } else if (m11 > m22) {
    const s = 2 * Math.sqrt(1 + m11 - m00 - m22);
    q = [(m01 + m10) / s, s / 4, (m12 + m21) / s, (m02 - m20) / s];
  } else {
    const s = 2 * Math.sqrt(1 + m22 - m00 - m11);
    q = [(m02 + m20) / s, (m12 + m21) / s, s / 4, (m10 - m01) / s];
  }
  return q[3] < 0 ? [-q[0], -q[1], -q[2], -q[3]] : q;
}

/**
 * Pose of a camera optical frame (z forward, x right, y down) at `eye` looking at `target`, with
 * image "up" toward `up` (world z by default). Throws when eye = target or the view is parallel to up.
 */
export function lookAtPose(eye: Vec3, target: Vec3, up: Vec3 = [0, 0, 1]): Pose3 {
  const f = sub(target, eye);
  const fn = Math.hypot(f[0], f[1], f[2]);
  if (!(fn > 0)) throw new Error(`lookAtPose: eye ${eye.join(",")} equals target ${target.join(",")}`);
  const z: Vec3 = [f[0] / fn, f[1] / fn, f[2] / fn];
  const xr = cross(z, up); // right = forward × up (image x right when y is down)
  const xn = Math.hypot(xr[0], xr[1], xr[2]);
  if (!(xn > 1e-9)) throw new Error(`lookAtPose: view direction ${z.map((v) => v.toFixed(3)).join(",")} is parallel to up ${up.join(",")}`);
  const x: Vec3 = [xr[0] / xn, xr[1] / xn, xr[2] / xn];
  const y = cross(z, x); // down
  // Columns are the camera axes in the world frame.
  return { position: [eye[0], eye[1], eye[2]], quaternion: mat3ToQuat([x[0], y[0], z[0], x[1], y[1], z[1], x[2], y[2], z[2]]) };
}

function sub(a: Vec3, b: Vec3): Vec3 {
  return [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
}

function cross(a: Vec3, b: Vec3): Vec3 {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
}
