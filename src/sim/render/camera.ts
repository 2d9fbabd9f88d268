/**
 * Render cameras from calibration files (ROS camera_info intrinsics + optical-frame extrinsics).
 */
import type { CameraCalibration } from "../../robot/types.js";
import type { Pose3 } from "../world/types.js";
import { compose, fromPose, toPose } from "../../robot/kinematics/transform.js";
import type { RenderCamera } from "./rasterize.js";

/**
 * The render camera of a calibrated camera whose parent frame is at `parentWorldPose` (world frame;
 * for a wrist camera the current pose of its link, for a fixed camera e.g. base_link's pose).
 * fx = K[0], fy = K[4], cx = K[2], cy = K[5]; worldFromCamera = parentWorld ∘ extrinsics.
 * Throws naming the camera and field when K or the image size is malformed.
 */
export function cameraFromCalibration(cal: CameraCalibration, parentWorldPose: Pose3): RenderCamera {
  const where = `calibration "${cal.camera_name}"`;
  const k = cal.camera_matrix.data;
  if (k.length !== 9) throw new Error(`${where}: camera_matrix.data has ${k.length} values, expected 9`);
  const [fx, , cx, , fy, cy] = k;
  for (const [name, v] of [["camera_matrix.data[0] (fx)", fx], ["camera_matrix.data[4] (fy)", fy]] as const) {
    if (!(Number.isFinite(v) && v > 0)) throw new Error(`${where}: ${name} is ${v}, expected a positive number of pixels`);
  }
  for (const [name, v] of [["image_width", cal.image_width], ["image_height", cal.image_height]] as const) {
    if (!(Number.isInteger(v) && v > 0)) throw new Error(`${where}: ${name} is ${v}, expected a positive integer`);
  }
  const { translation, quaternion_xyzw } = cal.extrinsics;
  return {
    width: cal.image_width,
    height: cal.image_height,
    fx, fy, cx, cy,
    worldFromCamera: toPose(compose(fromPose(parentWorldPose), fromPose({
      position: [translation[0], translation[1], translation[2]],
      quaternion: [quaternion_xyzw[0], quaternion_xyzw[1], quaternion_xyzw[2], quaternion_xyzw[3]],
    }))),
  };
}
