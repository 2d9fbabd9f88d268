import type { Quaternion } from "../../msgs/types.js";

/**
 * Roll/pitch/yaw (rad) to a unit quaternion, ROS convention (tf2 `setRPY`): fixed axes X then Y
 * then Z, i.e. R = Rz(yaw) · Ry(pitch) · Rx(roll).
 */
export function quaternionFromRpy(roll: number, pitch: number, yaw: number): Quaternion {
  const cr = Math.cos(roll / 2), sr = Math.sin(roll / 2);
  const cp = Math.cos(pitch / 2), sp = Math.sin(pitch / 2);
  const cy = Math.cos(yaw / 2), sy = Math.sin(yaw / 2);
  return {
    x: sr * cp * cy - cr * sp * sy,
    y: cr * sp * cy + sr * cp * sy,
    z: cr * cp * sy - sr * sp * cy,
    w: cr * cp * cy + sr * sp * sy,
  };
}

/** Inverse of `quaternionFromRpy` (normalizes first); pitch in [-π/2, π/2], roll and yaw in (-π, π]. */
export function rpyFromQuaternion(q: Quaternion): [number, number, number] {
  const n = Math.hypot(q.x, q.y, q.z, q.w) || 1;
  const x = q.x / n, y = q.y / n, z = q.z / n, w = q.w / n;
  const roll = Math.atan2(2 * (w * x + y * z), 1 - 2 * (x * x + y * y));
  const sinp = 2 * (w * y - z * x);
  const pitch = Math.asin(sinp > 1 ? 1 : sinp < -1 ? -1 : sinp);
  const yaw = Math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z));
  return [roll, pitch, yaw];
}
