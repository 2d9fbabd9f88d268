/**
 * The sim twin's cameras: mesh builders, the CPU z-buffer rasterizer, cameras from calibration
 * files, and image encodings (rgb8 Image, JPEG CompressedImage, PNG snapshots).
 */
export { boxMesh, cylinderMesh, sphereMesh, meshFromShape } from "./meshes.js";
export {
  renderCamera, createRenderFrame, BACKGROUND_RGB, LIGHT_DIR_WORLD, AMBIENT, DIFFUSE,
  type RenderCamera, type RenderFrame,
} from "./rasterize.js";
export { cameraFromCalibration } from "./camera.js";
export { imageFromRgb, jpegFromRgb, compressedImageFromRgb, pngFromRgb, JPEG_FORMAT_FROM_RGB8 } from "./encode.js";
export { lookAtPose, quatFromAxisAngle } from "./math.js";
export { benchRender } from "./bench.js";
