/**
 * Schema of a camera calibration file (`calibration/<robot>/<camera>.yaml`): the ROS camera_info
 * YAML that camera_calibration writes (image_width ... projection_matrix) plus an `extrinsics`
 * block: the pose of the camera optical frame (z forward, x right, y down) in `parent_frame`.
 * It infers exactly `CameraCalibration` from ./robotTypes.ts.
 */
import { z } from "zod";
import type { CameraCalibration } from "./robotTypes.js";
import { addIssue, finite, intIn, name, quatXyzw, Same, vec3 } from "./common.js";

const matrix = <R extends z.ZodTypeAny, C extends z.ZodTypeAny>(rows: R, cols: C) =>
  z.object({ rows, cols, data: z.array(finite) }).strict()
    .superRefine((m, ctx) => {
      const want = (m.rows as number) * (m.cols as number);
      if (m.data.length !== want) addIssue(ctx, ["data"], `expected ${want} values (rows ${m.rows} x cols ${m.cols})`);
    });

const calibrationObject = z.object({
  image_width: intIn(1, 4096),
  image_height: intIn(1, 4096),
  camera_name: name,
  camera_matrix: matrix(z.literal(3), z.literal(3)),
  distortion_model: z.enum(["plumb_bob", "rational_polynomial", "equidistant"]).or(z.string().min(1)),
  distortion_coefficients: matrix(z.literal(1), intIn(0, 16)),
  rectification_matrix: matrix(z.literal(3), z.literal(3)),
  projection_matrix: matrix(z.literal(3), z.literal(4)),
  extrinsics: z.object({ parent_frame: name, translation: vec3, quaternion_xyzw: quatXyzw }).strict(),
}).strict();

/** Zod schema of a calibration YAML; its output type is exactly CameraCalibration. */
export const calibrationSchema = calibrationObject.superRefine((c, ctx) => {
  const k = c.camera_matrix.data;
  if (k.length === 9) {
    if (!(k[0]! > 0 && k[4]! > 0)) addIssue(ctx, ["camera_matrix", "data"], "expected positive focal lengths fx (data[0]) and fy (data[4])");
    if (k[0]! > 0 && (k[2]! <= 0 || k[2]! >= c.image_width)) addIssue(ctx, ["camera_matrix", "data", 2], `expected principal point cx inside the image width (0, ${c.image_width})`);
    if (k[4]! > 0 && (k[5]! <= 0 || k[5]! >= c.image_height)) addIssue(ctx, ["camera_matrix", "data", 5], `expected principal point cy inside the image height (0, ${c.image_height})`);
  }
  if (c.distortion_model === "plumb_bob" && c.distortion_coefficients.data.length !== 5) {
    addIssue(ctx, ["distortion_coefficients", "data"], "expected 5 coefficients for plumb_bob (k1 k2 t1 t2 k3)");
  }
});

const _pinned: Same<z.output<typeof calibrationSchema>, CameraCalibration> = true;
void _pinned;
