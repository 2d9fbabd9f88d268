/**
 * Renderer benchmark: a representative tabletop scene (table, two 7-link arms as boxes, a dozen
 * objects, ~1.7k triangles) rendered at 640x480 from a head camera. The sim bench
 * (bench/sim.ts) includes these figures.
 */
import type { RenderMesh, Vec3 } from "../src/sim/world/types.js";
import { lookAtPose, quatFromAxisAngle } from "../src/sim/render/math.js";
import { boxMesh, cylinderMesh, sphereMesh } from "../src/sim/render/meshes.js";
import { jpegFromRgb } from "../src/msgs/image.js";
import { createRenderFrame, renderCamera, type RenderCamera } from "../src/sim/render/rasterize.js";

/** The bench scene in world coordinates (conventions of src/sim/world/types.ts). */
export function benchScene(): RenderMesh[] {
  const meshes: RenderMesh[] = [];
  const at = (x: number, y: number, z: number, yaw = 0) => ({ position: [x, y, z] as Vec3, quaternion: quatFromAxisAngle([0, 0, 1], yaw) });
  // Table: top (surface at z = 0.75) and four legs.
  meshes.push(boxMesh([0.45, 0.6, 0.02], at(0.45, 0, 0.73), [150, 110, 70]));
  for (const [x, y] of [[0.05, -0.55], [0.05, 0.55], [0.85, -0.55], [0.85, 0.55]]) {
    meshes.push(boxMesh([0.03, 0.03, 0.355], at(x, y, 0.355), [110, 80, 50]));
  }
  // Two arms, 7 links each, reaching over the table (a fixed bent pose).
  for (const side of [1, -1]) {
    let x = 0, z = 0.75;
    const y = 0.3 * side;
    for (let k = 0; k < 7; k++) {
      const pitch = -0.9 + 0.35 * k;
      const len = k < 4 ? 0.14 : 0.08;
      const dx = Math.cos(pitch) * len, dz = -Math.sin(pitch) * len;
      const q = quatFromAxisAngle([0, 1, 0], pitch + Math.PI / 2);
      meshes.push(boxMesh([0.035, 0.035, len / 2], { position: [x + dx / 2, y, z + dz / 2], quaternion: q }, k % 2 ? [220, 220, 225] : [60, 60, 70]));
      x += dx; z += dz;
    }
  }
  // A dozen objects: blocks, cylinders (mats, buttons, lids) and spheres, in the task area.
  const colors: Vec3[] = [[220, 40, 40], [40, 180, 60], [40, 80, 220], [230, 200, 40]];
  for (let i = 0; i < 4; i++) {
    meshes.push(boxMesh([0.025, 0.025, 0.025], at(0.3 + 0.12 * i, -0.3, 0.775, 0.3 * i), colors[i]));
    meshes.push(cylinderMesh(0.04, 0.02, at(0.3 + 0.12 * i, 0.0, 0.77), colors[(i + 1) % 4], 32));
    meshes.push(sphereMesh(0.03, at(0.3 + 0.12 * i, 0.3, 0.78), colors[(i + 2) % 4], 16, 8));
  }
  return meshes;
}

/** The bench head camera: 640x480, fx = fy = 600, above base_link looking down at the table centre. */
export function benchCamera(): RenderCamera {
  return { width: 640, height: 480, fx: 600, fy: 600, cx: 319.5, cy: 239.5, worldFromCamera: lookAtPose([-0.15, 0, 1.45], [0.5, 0, 0.75]) };
}

/**
 * Renders the bench scene repeatedly into one reused frame; returns ms per 640x480 frame (wall and
 * this thread's CPU), the triangle count, the covered fraction of the image, and ms per JPEG encode
 * (libjpeg-turbo, quality 90, as a publisher encodes; wall and CPU of all threads).
 * NOTE: CPU figures are given because wall time is noisy on a shared machine.
 */
export async function benchRender(frames = 60): Promise<{
  render_ms_per_frame_640x480: number; render_cpu_ms_per_frame_640x480: number; triangles: number;
  pixels_drawn_fraction: number; jpeg_ms_640x480: number; jpeg_cpu_ms_640x480: number;
}> {
  const meshes = benchScene();
  const camera = benchCamera();
  const frame = createRenderFrame(camera.width, camera.height);
  for (let i = 0; i < 5; i++) renderCamera(meshes, camera, frame); // warm up the JIT
  const t0 = process.hrtime.bigint();
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < frames; i++) renderCamera(meshes, camera, frame);
  const cpuMs = process.cpuUsage(cpu0).user / 1e3 / frames;
  const ms = Number(process.hrtime.bigint() - t0) / 1e6 / frames;
  const jpegs = 10;
  await jpegFromRgb(frame.rgb, frame.width, frame.height);
  const j0 = process.hrtime.bigint();
  const jcpu0 = process.cpuUsage();
  for (let i = 0; i < jpegs; i++) await jpegFromRgb(frame.rgb, frame.width, frame.height);
  const jcpu = process.cpuUsage(jcpu0);
  const jpegMs = Number(process.hrtime.bigint() - j0) / 1e6 / jpegs;
  const jpegCpuMs = (jcpu.user + jcpu.system) / 1e3 / jpegs;
  let drawn = 0;
  for (let i = 0; i < frame.depth.length; i++) if (frame.depth[i] !== Infinity) drawn++;
  return {
    render_ms_per_frame_640x480: Math.round(ms * 100) / 100,
    render_cpu_ms_per_frame_640x480: Math.round(cpuMs * 100) / 100,
    triangles: frame.stats.triangles,
    pixels_drawn_fraction: Math.round((drawn / frame.depth.length) * 1000) / 1000,
    jpeg_ms_640x480: Math.round(jpegMs * 100) / 100,
    jpeg_cpu_ms_640x480: Math.round(jpegCpuMs * 100) / 100,
  };
}

/** Bench section entry point (the `bench()` convention of src/cli/bench.ts). */
export async function bench(): Promise<Record<string, unknown>> {
  return benchRender();
}
