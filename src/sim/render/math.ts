/**
 * Pose helpers the renderer needs beyond src/robot/kinematics/transform.ts (which it reuses for
 * pose ↔ matrix, composition and inversion). Quaternions are [x, y, z, w].
 */
import { fromPose, quatOf } from "../../robot/kinematics/transform.js";
import type { Pose3, Quat, Vec3 } from "../world/types.js";

/** Quaternion [x, y, z, w] for a rotation of `angleRad` about `axis` (need not be unit length; zero axis → identity). */
export function quatFromAxisAngle(axis: Vec3, angleRad: number): Quat {
  const n = Math.hypot(axis[0], axis[1], axis[2]);
  if (n === 0) return [0, 0, 0, 1];
  const s = Math.sin(angleRad / 2) / n;
  return [axis[0] * s, axis[1] * s, axis[2] * s, Math.cos(angleRad / 2)];
}

/**
 * Pose of a camera optical frame (z forward, x right, y down) at `eye` looking at `target`, with
 * image "up" toward `up` (world z by default). Throws when eye = target or the view is parallel to up.
 */
export function lookAtPose(eye: Vec3, target: Vec3, up: Vec3 = [0, 0, 1]): Pose3 {
  const f: Vec3 = [target[0] - eye[0], target[1] - eye[1], target[2] - eye[2]];
  const fn = Math.hypot(f[0], f[1], f[2]);
  if (!(fn > 0)) throw new Error(`lookAtPose: eye ${eye.join(",")} equals target ${target.join(",")}`);
  const z: Vec3 = [f[0] / fn, f[1] / fn, f[2] / fn];
  const xr = cross(z, up); // right = forward × up (image x right when y is down)
  const xn = Math.hypot(xr[0], xr[1], xr[2]);
  if (!(xn > 1e-9)) throw new Error(`lookAtPose: view direction ${z.map((v) => v.toFixed(3)).join(",")} is parallel to up ${up.join(",")}`);
  const x: Vec3 = [xr[0] / xn, xr[1] / xn, xr[2] / xn];
  const y = cross(z, x); // down
  // Rotation columns are the camera axes in the world frame (row-major 3x4, zero translation).
  const rot = [x[0], y[0], z[0], 0, x[1], y[1], z[1], 0, x[2], y[2], z[2], 0];
  return { position: [eye[0], eye[1], eye[2]], quaternion: quatOf(rot) };
}

/** The rotation of a pose as a row-major 3x3 (9 numbers), via kinematics' fromPose. */
export function rotationOf(pose: Pose3): number[] {
  const t = fromPose(pose);
  return [t[0]!, t[1]!, t[2]!, t[4]!, t[5]!, t[6]!, t[8]!, t[9]!, t[10]!];
}

function cross(a: Vec3, b: Vec3): Vec3 {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
}
