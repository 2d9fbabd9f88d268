/**
 * The sim twin's cameras: mesh builders, the CPU z-buffer rasterizer and cameras from calibration
 * files (frames are encoded by src/msgs/image.ts, the runtime's one image path).
 */
export { boxMesh, cylinderMesh, sphereMesh, meshFromShape } from "./meshes.js";
export {
  renderCamera, createRenderFrame, BACKGROUND_RGB, LIGHT_DIR_WORLD, AMBIENT, DIFFUSE,
  type RenderCamera, type RenderFrame,
} from "./rasterize.js";
export { cameraFromCalibration } from "./camera.js";
export { lookAtPose, quatFromAxisAngle } from "./math.js";
