/**
 * Calibration helpers: the sensor_msgs/CameraInfo record a camera publishes, and the pinhole
 * projection of a point given in the camera's parent frame (what the sim renderer and tests use).
 * Conventions: optical frame z forward, x right, y down; quaternions [x, y, z, w].
 */
import type { CameraInfo, Time } from "../msgs/types.js";
import type { CameraCalibration } from "./types.js";

/** Builds the CameraInfo message for a calibration (binning 1, full-image ROI). */
export function cameraInfoFromCalibration(cal: CameraCalibration, frameId: string, stamp: Time): CameraInfo {
  return {
    header: { stamp, frame_id: frameId },
    height: cal.image_height,
    width: cal.image_width,
    distortion_model: cal.distortion_model,
    d: [...cal.distortion_coefficients.data],
    k: [...cal.camera_matrix.data],
    r: [...cal.rectification_matrix.data],
    p: [...cal.projection_matrix.data],
    binning_x: 0,
    binning_y: 0,
    roi: { x_offset: 0, y_offset: 0, height: 0, width: 0, do_rectify: false },
  };
}

/** Rotates v by the unit quaternion q = [x, y, z, w]. */
export function rotate(q: readonly [number, number, number, number], v: readonly [number, number, number]): [number, number, number] {
  const [x, y, z, w] = q;
  // t = 2 (q.xyz × v); v' = v + w t + q.xyz × t
  const tx = 2 * (y * v[2] - z * v[1]);
  const ty = 2 * (z * v[0] - x * v[2]);
  const tz = 2 * (x * v[1] - y * v[0]);
  return [
    v[0] + w * tx + (y * tz - z * ty),
    v[1] + w * ty + (z * tx - x * tz),
    v[2] + w * tz + (x * ty - y * tx),
  ];
}

/** Expresses a point given in the calibration's parent frame in the camera optical frame. */
export function parentToOptical(cal: CameraCalibration, p: readonly [number, number, number]): [number, number, number] {
  const { translation: t, quaternion_xyzw: q } = cal.extrinsics;
  const inv: [number, number, number, number] = [-q[0], -q[1], -q[2], q[3]];
  return rotate(inv, [p[0] - t[0], p[1] - t[1], p[2] - t[2]]);
}

/**
 * Projects a point in the parent frame to pixel coordinates with the projection matrix P
 * (rectified image, distortion ignored). Returns null for points behind the camera.
 * `inImage` says whether the pixel lies within [0, width) x [0, height).
 */
export function projectPoint(cal: CameraCalibration, pParent: readonly [number, number, number]): { u: number; v: number; depthM: number; inImage: boolean } | null {
  const [x, y, z] = parentToOptical(cal, pParent);
  if (z <= 1e-9) return null;
  const P = cal.projection_matrix.data;
  const uw = P[0]! * x + P[1]! * y + P[2]! * z + P[3]!;
  const vw = P[4]! * x + P[5]! * y + P[6]! * z + P[7]!;
  const w = P[8]! * x + P[9]! * y + P[10]! * z + P[11]!;
  const u = uw / w;
  const v = vw / w;
  return { u, v, depthM: z, inImage: u >= 0 && u < cal.image_width && v >= 0 && v < cal.image_height };
}
