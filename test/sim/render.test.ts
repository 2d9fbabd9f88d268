import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import type { CameraCalibration } from "../../src/robot/types.js";
import { benchRender } from "../../bench/render.js";
import { cameraFromCalibration } from "../../src/sim/render/camera.js";
import { lookAtPose, quatFromAxisAngle } from "../../src/sim/render/math.js";
import { boxMesh, cylinderMesh, meshFromShape, sphereMesh } from "../../src/sim/render/meshes.js";
import { BACKGROUND_RGB, createRenderFrame, renderCamera, type RenderCamera, type RenderFrame } from "../../src/sim/render/rasterize.js";
import { compose, fromPose, toPose } from "../../src/robot/kinematics/transform.js";
import type { Pose3, RenderMesh, Vec3 } from "../../src/sim/world/types.js";

const IDENTITY: Pose3 = { position: [0, 0, 0], quaternion: [0, 0, 0, 1] };
const at = (x: number, y: number, z: number): Pose3 => ({ position: [x, y, z], quaternion: [0, 0, 0, 1] });
/** 640x480, fx = fy = 500, optical frame = world frame (z forward, x right, y down). */
const CAM: RenderCamera = { width: 640, height: 480, fx: 500, fy: 500, cx: 319.5, cy: 239.5, worldFromCamera: IDENTITY };

const px = (f: RenderFrame, u: number, v: number): Vec3 => {
  const o = 3 * (v * f.width + u);
  return [f.rgb[o], f.rgb[o + 1], f.rgb[o + 2]];
};
const depthAt = (f: RenderFrame, u: number, v: number): number => f.depth[v * f.width + u];
const isBackground = (f: RenderFrame, u: number, v: number): boolean =>
  depthAt(f, u, v) === Infinity && px(f, u, v).every((c, k) => c === BACKGROUND_RGB[k]);

test("a box in front of the camera lands at the pixels K projects it to, with metric depth", () => {
  // Box centre (0.1, -0.05, 1.0), half size 0.02: front face at z = 0.98, x ∈ [0.08, 0.12], y ∈ [-0.07, -0.03].
  const f = renderCamera([boxMesh([0.02, 0.02, 0.02], at(0.1, -0.05, 1.0), [200, 40, 40])], CAM);
  // Face centre: u = 500·0.1/0.98 + 319.5 = 370.52, v = 500·(−0.05)/0.98 + 239.5 = 213.99.
  assert.ok(!isBackground(f, 371, 214));
  assert.ok(Math.abs(depthAt(f, 371, 214) - 0.98) < 1e-3, `depth ${depthAt(f, 371, 214)} expected 0.98`);
  // Horizontal extent: the −x side face is visible from u = 500·0.08/1.02 + 319.5 = 358.7, the front
  // face ends at u = 500·0.12/0.98 + 319.5 = 380.7 (the +x face turns away).
  assert.ok(isBackground(f, 358, 214) && !isBackground(f, 359, 214));
  assert.ok(!isBackground(f, 380, 214) && isBackground(f, 381, 214));
  // Vertical: front face from v = 500·(−0.07)/0.98 + 239.5 = 203.8 to the +y face's far edge at
  // v = 500·(−0.03)/1.02 + 239.5 = 224.8.
  assert.ok(isBackground(f, 371, 203) && !isBackground(f, 371, 204));
  assert.ok(!isBackground(f, 371, 224) && isBackground(f, 371, 225));
  // Everything else is background with infinite depth.
  let drawn = 0;
  for (let i = 0; i < f.depth.length; i++) if (f.depth[i] !== Infinity) drawn++;
  assert.ok(drawn > 20 * 20 && drawn < 24 * 23, `drawn pixels ${drawn}`);
});

test("depth is perspective-correct on a slanted plane (1/z interpolation), within 1 mm", () => {
  // A floor 0.3 m below the optical axis (y = +0.3, y down), from z = 0.02 to 6 m. Its near corners
  // project ~7500 px below the image, so it is clipped to the guard band first.
  const floor: RenderMesh = {
    positions: Float32Array.of(-3, 0.3, 0.02, 3, 0.3, 0.02, 3, 0.3, 6, -3, 0.3, 6),
    indices: Uint32Array.of(0, 1, 2, 0, 2, 3),
    color: [100, 100, 100],
  };
  const f = renderCamera([floor], CAM);
  for (const [u, v] of [[320, 280], [100, 300], [500, 400], [320, 479], [40, 300], [500, 266]]) {
    const expected = (0.3 * CAM.fy) / (v - CAM.cy); // ray (·, (v − cy)/fy, 1) meets y = 0.3
    assert.ok(Math.abs(depthAt(f, u, v) - expected) < 1e-3, `pixel (${u},${v}) depth ${depthAt(f, u, v)} expected ${expected}`);
  }
  assert.ok(isBackground(f, 320, 200), "above the horizon is background");
  assert.ok(isBackground(f, 320, 262), "beyond the floor's far edge (z = 6 m at v = 264.5) is background");
});

test("a surface split into many jittered triangles has no cracks between them", () => {
  // A 12x12 grid at z = 1 covering |x|, |y| ≤ 0.3 (u, v within ±150 px of the centre); interior
  // vertices jittered so the shared edges run at odd slopes.
  const n = 12, positions: number[] = [], indices: number[] = [];
  let seed = 7;
  const jitter = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648 - 0.5) * 0.03;
  for (let j = 0; j <= n; j++) for (let i = 0; i <= n; i++) {
    const inner = i > 0 && i < n && j > 0 && j < n;
    positions.push(-0.3 + (0.6 * i) / n + (inner ? jitter() : 0), -0.3 + (0.6 * j) / n + (inner ? jitter() : 0), 1);
  }
  for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) {
    const a = j * (n + 1) + i, b = a + 1, c = a + n + 2, d = a + n + 1;
    indices.push(a, c, b, a, d, c); // facing −z, toward the camera
  }
  const f = renderCamera([{ positions: Float32Array.from(positions), indices: Uint32Array.from(indices), color: [80, 80, 80] }], CAM);
  for (let v = 90; v <= 389; v++) for (let u = 170; u <= 469; u++) {
    assert.ok(Math.abs(depthAt(f, u, v) - 1) < 1e-4, `crack at pixel (${u},${v}): depth ${depthAt(f, u, v)}`);
  }
});

test("a nearer object occludes a farther one, whatever the draw order", () => {
  const far = boxMesh([0.2, 0.2, 0.01], at(0, 0, 2.0), [0, 0, 255]);
  const near = boxMesh([0.05, 0.05, 0.05], at(0, 0, 1.0), [255, 0, 0]);
  for (const meshes of [[far, near], [near, far]]) {
    const f = renderCamera(meshes, CAM);
    const c = px(f, 320, 240);
    assert.ok(c[0] > 0 && c[2] === 0, `centre colour ${c} should be the red box`);
    assert.ok(Math.abs(depthAt(f, 320, 240) - 0.95) < 1e-3);
    // The red box's front face spans ±500·0.05/0.95 = ±26 px, the blue one's ±500·0.2/1.99 = ±50 px.
    const side = px(f, 360, 240);
    assert.ok(side[2] > 0 && side[0] === 0, `side colour ${side} should be the blue box`);
    assert.ok(Math.abs(depthAt(f, 360, 240) - 1.99) < 1e-3);
  }
});

test("geometry behind the camera or cut by the near plane draws nothing wrong and does not throw", () => {
  // Wholly behind the camera.
  const behind = renderCamera([boxMesh([0.1, 0.1, 0.1], at(0, 0, -1), [255, 0, 0])], CAM);
  assert.ok(behind.depth.every((d) => d === Infinity));
  assert.equal(behind.stats.rasterized, 0);
  // A wall straddling the camera plane (z from −1 to +1 at x = 0.2): only the part with z ≥ near is drawn,
  // and every drawn depth is at least the near distance and on the wall (x = 0.2 → u ≥ 319.5).
  const wall: RenderMesh = {
    positions: Float32Array.of(0.2, -1, -1, 0.2, 1, -1, 0.2, 1, 1, 0.2, -1, 1),
    indices: Uint32Array.of(0, 1, 2, 0, 2, 3),
    color: [0, 200, 0],
  };
  // Its winding faces +x, away from the camera: drawn only with both sides on.
  assert.ok(renderCamera([wall], { ...CAM, nearM: 0.05 }).depth.every((d) => d === Infinity), "back face culled");
  const f = renderCamera([wall], { ...CAM, nearM: 0.05, cullBackFaces: false });
  let drawn = 0;
  for (let v = 0; v < f.height; v++) for (let u = 0; u < f.width; u++) {
    const d = depthAt(f, u, v);
    if (d === Infinity) continue;
    drawn++;
    assert.ok(d >= 0.05 - 1e-6 && u >= 319, `pixel (${u},${v}) depth ${d}`);
    const expected = (0.2 * CAM.fx) / (u - CAM.cx); // ray meets x = 0.2
    assert.ok(Math.abs(d - expected) < 1e-3 * Math.max(1, expected), `pixel (${u},${v}) depth ${d} expected ${expected}`);
  }
  assert.ok(drawn > 100000, `the right half of the image sees the wall (${drawn} px)`);
  // NaN vertices and out-of-range indices are skipped.
  const bad: RenderMesh = { positions: Float32Array.of(NaN, 0, 1, 1, 0, 1, 0, 1, 1), indices: Uint32Array.of(0, 1, 2, 0, 1, 7), color: [1, 2, 3] };
  assert.ok(renderCamera([bad], CAM).depth.every((d) => d === Infinity));
});

test("meshes wholly out of view are left out; one a fraction of a pixel into the image still draws its pixels", () => {
  const color: Vec3 = [40, 160, 60];
  // A thin plate facing the camera at z = 1 whose right edge, x = −0.6387, projects to u = 0.15:
  // only the first column's pixel centres (u = 0) see it.
  const sliver = boxMesh([0.08, 0.02, 0.0001], at(-0.6387 - 0.08, 0, 1), color);
  const outOfView = [
    boxMesh([0.02, 0.02, 0.02], at(0, 0, -1), color), // behind the camera
    boxMesh([0.02, 0.02, 0.02], at(-0.7, 0, 1), color), // beyond the left edge (u < −6)
    boxMesh([0.02, 0.02, 0.02], at(0, 0.6, 1), color), // below the bottom edge
    boxMesh([0.002, 0.002, 0.002], at(0, 0, 0.005), color), // nearer than the near plane (0.01 m)
  ];
  const f = renderCamera([sliver, ...outOfView], CAM);
  assert.equal(f.stats.meshesOutOfView, 4);
  assert.ok(!isBackground(f, 0, 240), "the sliver covers the first column's pixel centres");
  assert.ok(isBackground(f, 1, 240));
  const alone = renderCamera([sliver], CAM);
  assert.equal(alone.stats.meshesOutOfView, 0);
  assert.deepEqual(f.rgb, alone.rgb);
  assert.deepEqual(f.depth, alone.depth);
});

test("flat shading gives two visible faces of one box different colours", () => {
  // Camera above and in front of a box, seeing its top and its −x face.
  const camera: RenderCamera = { ...CAM, worldFromCamera: lookAtPose([-0.6, 0.2, 1.3], [0, 0, 0.8]) };
  const f = renderCamera([boxMesh([0.1, 0.1, 0.1], at(0, 0, 0.8), [200, 200, 200])], camera);
  const colours = new Set<string>();
  for (let i = 0; i < f.depth.length; i++) if (f.depth[i] !== Infinity) colours.add(`${f.rgb[3 * i]},${f.rgb[3 * i + 1]},${f.rgb[3 * i + 2]}`);
  assert.ok(colours.size >= 2 && colours.size <= 3, `visible faces give ${[...colours].join(" | ")}`);
});

test("back faces are culled by default and drawn, shaded like front faces, when asked", () => {
  const quad = (flip: boolean): RenderMesh => ({ // a square at z = 1 facing −z (the camera) unless flipped
    positions: Float32Array.of(-0.1, -0.1, 1, 0.1, -0.1, 1, 0.1, 0.1, 1, -0.1, 0.1, 1),
    indices: flip ? Uint32Array.of(0, 1, 2, 0, 2, 3) : Uint32Array.of(0, 2, 1, 0, 3, 2),
    color: [200, 100, 50],
  });
  const front = renderCamera([quad(false)], CAM);
  assert.ok(!isBackground(front, 320, 240));
  assert.ok(isBackground(renderCamera([quad(true)], CAM), 320, 240));
  const both = renderCamera([quad(true)], { ...CAM, cullBackFaces: false });
  assert.deepEqual(px(both, 320, 240), px(front, 320, 240));
  // A closed box looks the same either way (the z-buffer hides its back faces).
  const box = [boxMesh([0.1, 0.1, 0.1], { position: [0.05, 0.1, 1.2], quaternion: quatFromAxisAngle([1, 2, 3], 0.8) }, [90, 160, 220])];
  assert.deepEqual(renderCamera(box, CAM).rgb, renderCamera(box, { ...CAM, cullBackFaces: false }).rgb);
});

test("the frame's buffers are reused between renders and cleared each time", () => {
  const frame = createRenderFrame(CAM.width, CAM.height);
  const { rgb, depth } = frame;
  renderCamera([boxMesh([0.05, 0.05, 0.05], at(0, 0, 1), [255, 0, 0])], CAM, frame);
  assert.ok(!isBackground(frame, 320, 240));
  const again = renderCamera([boxMesh([0.05, 0.05, 0.05], at(0.3, 0, 1), [255, 0, 0])], CAM, frame);
  assert.equal(again, frame);
  assert.equal(again.rgb, rgb);
  assert.equal(again.depth, depth);
  assert.ok(isBackground(frame, 320, 240), "the previous box is cleared");
  assert.throws(() => renderCamera([], { ...CAM, width: 320 }, frame), /render frame is 640x480 but camera is 320x480/);
});

test("borrow: the pixels come as a view of the renderer's memory, the caller's frame left as it was, until the next render", () => {
  const scene = [boxMesh([0.05, 0.05, 0.05], at(0, 0, 1), [255, 0, 0])];
  const owned = renderCamera(scene, CAM);
  const frame = createRenderFrame(CAM.width, CAM.height);
  const borrowed = renderCamera(scene, CAM, frame, { depth: false, borrow: true });
  assert.notEqual(borrowed, frame);
  assert.ok(Buffer.from(borrowed.rgb).equals(Buffer.from(owned.rgb)), "the same bytes as a copied frame");
  assert.ok(frame.rgb.every((v) => v === 0), "the caller's buffer is not written");
  renderCamera([], CAM, frame);
  assert.ok(!Buffer.from(borrowed.rgb).equals(Buffer.from(owned.rgb)), "the view is the renderer's: the next render overwrites it");
});

test("a frame holding anything renders the same bytes as a fresh one (the lazy clear reaches every pixel)", () => {
  // Overlapping shapes, edges that end inside 16-pixel chunks, widths that are no multiple of 4 or 16,
  // an rgb view at an odd byte offset, with and without metric depth (not written without it).
  const meshes: RenderMesh[] = [
    boxMesh([0.25, 0.2, 0.02], { position: [0.1, 0.05, 1.2], quaternion: quatFromAxisAngle([1, 0.3, 0], 0.9) }, [150, 110, 70]),
    cylinderMesh(0.06, 0.1, at(-0.1, 0.02, 1), [40, 180, 60], 11),
    sphereMesh(0.05, at(0.08, -0.06, 0.9), [220, 40, 40], 9, 5),
    boxMesh([0.03, 0.2, 0.03], at(0.02, 0, 1.05), [60, 60, 70]),
  ];
  for (const [width, height] of [[37, 23], [101, 64], [640, 480]]) {
    const cam: RenderCamera = { width, height, fx: width * 0.8, fy: width * 0.8, cx: width / 2 - 0.5, cy: height / 2 - 0.5, worldFromCamera: IDENTITY };
    for (const depth of [true, false]) {
      const fresh = renderCamera(meshes, cam, undefined, { depth });
      const dirty = createRenderFrame(width, height);
      for (let i = 0; i < dirty.rgb.length; i++) dirty.rgb[i] = (i * 7919) & 255;
      for (let i = 0; i < dirty.depth.length; i++) dirty.depth[i] = i % 3 === 0 ? 1e9 : i * 0.37;
      const odd = { ...createRenderFrame(width, height), rgb: new Uint8Array(new ArrayBuffer(width * height * 3 + 4), 1, width * height * 3).fill(9) };
      for (const frame of [dirty, odd]) {
        renderCamera(meshes, cam, frame, { depth });
        const where = `${width}x${height}, depth ${depth}, rgb at byte ${frame.rgb.byteOffset}`;
        assert.ok(Buffer.from(frame.rgb).equals(Buffer.from(fresh.rgb)), `${where}: rgb differs from a fresh frame's`);
        if (depth) assert.ok(Buffer.from(frame.depth.buffer, frame.depth.byteOffset, frame.depth.byteLength)
          .equals(Buffer.from(fresh.depth.buffer, fresh.depth.byteOffset, fresh.depth.byteLength)), `${where}: depth differs from a fresh frame's`);
      }
      if (depth) assert.ok(!isBackground(fresh, width >> 1, height >> 1) && isBackground(fresh, 0, 0), `${width}x${height}: the scene covers the centre, not the corner`);
    }
  }
});

test("cameraFromCalibration composes the parent pose with the extrinsics and reads K", () => {
  const parent: Pose3 = { position: [0.2, -0.1, 1.1], quaternion: quatFromAxisAngle([0.3, 1, 0.2], 0.7) };
  const extrinsics: Pose3 = { position: [0.05, 0.02, 0.1], quaternion: quatFromAxisAngle([1, 0, 0], -2.2) };
  const cal: CameraCalibration = {
    image_width: 320, image_height: 240, camera_name: "wrist",
    camera_matrix: { rows: 3, cols: 3, data: [300, 0, 161, 0, 310, 118, 0, 0, 1] },
    distortion_model: "plumb_bob",
    distortion_coefficients: { rows: 1, cols: 5, data: [0, 0, 0, 0, 0] },
    rectification_matrix: { rows: 3, cols: 3, data: [1, 0, 0, 0, 1, 0, 0, 0, 1] },
    projection_matrix: { rows: 3, cols: 4, data: [300, 0, 161, 0, 0, 310, 118, 0, 0, 0, 1, 0] },
    extrinsics: { parent_frame: "left_link7", translation: extrinsics.position, quaternion_xyzw: extrinsics.quaternion },
  };
  const cam = cameraFromCalibration(cal, parent);
  assert.deepEqual([cam.width, cam.height, cam.fx, cam.fy, cam.cx, cam.cy], [320, 240, 300, 310, 161, 118]);
  // A small box at optical-frame point (0.03, 0.02, 0.5) must project to u = 300·0.03/0.5 + 161 = 179,
  // v = 310·0.02/0.5 + 118 = 130.4, wherever the parent is.
  const worldFromCam = compose(fromPose(parent), fromPose(extrinsics));
  const boxPose = toPose(compose(worldFromCam, fromPose(at(0.03, 0.02, 0.5))));
  const f = renderCamera([boxMesh([0.004, 0.004, 0.004], boxPose, [0, 255, 0])], cam);
  assert.ok(!isBackground(f, 179, 130));
  assert.ok(Math.abs(depthAt(f, 179, 130) - 0.496) < 1e-3, `depth ${depthAt(f, 179, 130)}`);
  assert.ok(isBackground(f, 179, 120) && isBackground(f, 170, 130));
  assert.throws(() => cameraFromCalibration({ ...cal, camera_matrix: { rows: 3, cols: 3, data: [0, 0, 1, 0, 1, 1, 0, 0, 1] } }, parent),
    /calibration "wrist": camera_matrix.data\[0\] \(fx\) is 0/);
});

test("mesh builders: triangle counts, closed outward-facing surfaces, shapes from specs", () => {
  const box = boxMesh([0.1, 0.2, 0.3], IDENTITY, [1, 2, 3]);
  const cyl = cylinderMesh(0.05, 0.1, IDENTITY, [1, 2, 3], 12);
  const sph = sphereMesh(0.1, IDENTITY, [1, 2, 3], 10, 6);
  assert.equal(box.indices.length / 3, 12);
  assert.equal(cyl.indices.length / 3, 4 * 12);
  assert.equal(sph.indices.length / 3, 2 * 10 * 5);
  // Closed and outward: the signed volume (divergence theorem) is positive and near the true volume.
  const volume = (m: RenderMesh): number => {
    let v = 0;
    const p = m.positions;
    for (let t = 0; t < m.indices.length; t += 3) {
      const [a, b, c] = [m.indices[t], m.indices[t + 1], m.indices[t + 2]].map((i) => [p[3 * i], p[3 * i + 1], p[3 * i + 2]]);
      v += (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) + a[2] * (b[0] * c[1] - b[1] * c[0])) / 6;
    }
    return v;
  };
  assert.ok(Math.abs(volume(box) - 0.2 * 0.4 * 0.6) < 1e-6);
  assert.ok(Math.abs(volume(cyl) / (Math.PI * 0.05 ** 2 * 0.2) - 1) < 0.06);
  assert.ok(Math.abs(volume(sph) / ((4 / 3) * Math.PI * 0.1 ** 3) - 1) < 0.15);
  // Posed: a box yawed 90° about z swaps its x and y extents.
  const yawed = boxMesh([0.1, 0.2, 0.3], { position: [1, 2, 3], quaternion: quatFromAxisAngle([0, 0, 1], Math.PI / 2) }, [1, 2, 3]);
  const xs = Array.from({ length: 8 }, (_, i) => yawed.positions[3 * i]);
  assert.ok(Math.abs(Math.max(...xs) - 1.2) < 1e-6 && Math.abs(Math.min(...xs) - 0.8) < 1e-6);
  assert.equal(meshFromShape({ kind: "sphere", radius: 0.02 }, IDENTITY, [9, 9, 9]).color[0], 9);
  assert.throws(() => boxMesh([0.1, -1, 0.1], IDENTITY, [0, 0, 0]), /box mesh: halfExtents\[1\] -1 must be a positive/);
});

test("benchRender reports figures for the representative scene", async () => {
  const figures = await benchRender(3);
  assert.ok(figures.triangles >= 1000 && figures.triangles <= 2000, `triangles ${figures.triangles}`);
  assert.ok(figures.render_ms_per_frame_640x480 > 0 && figures.jpeg_ms_640x480 > 0);
  assert.ok(figures.pixels_drawn_fraction > 0.5 && figures.pixels_drawn_fraction < 1, `covered ${figures.pixels_drawn_fraction}`);
});

test("the span loops' committed wasm is what spans.wat assembles to (npm run build:wasm after editing it)", async () => {
  const { assembleSpans, spansModuleSource } = await import("../../src/sim/render/assembleSpans.js");
  const committed = readFileSync("src/sim/render/spansWasm.ts", "utf8");
  assert.equal(committed, spansModuleSource(await assembleSpans()), "src/sim/render/spansWasm.ts is stale: run npm run build:wasm");
});

test("a frame too large for the span loops' 32-bit memory offsets is refused with its size, before any memory grows", async () => {
  const { spanBuffers, spans } = await import("../../src/sim/render/spans.js");
  const before = spans.memory.buffer.byteLength;
  assert.throws(() => spanBuffers(178_956_970, 1), /render frame of 178956970 pixels is too large for the rasterizer \(at most 178956969\)/);
  assert.equal(spans.memory.buffer.byteLength, before);
});
