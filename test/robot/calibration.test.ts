import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { cameraInfoFromCalibration, loadRobotProfile, parentToOptical, projectPoint, rotate } from "../../src/robot/index.js";
import type { CameraCalibration } from "../../src/robot/index.js";

const REPO = join(import.meta.dirname, "..", "..");
const xOne = loadRobotProfile(join(REPO, "robots", "x-one.yaml"));
const franka = loadRobotProfile(join(REPO, "robots", "franka-droid.yaml"));

// Object area on the table top, in base_link (table top z = 0 in base_link; world z = 0.75).
const WORKSPACE_CORNERS: Array<[number, number, number]> = [[0.2, 0.5, 0], [0.2, -0.5, 0], [0.75, 0.5, 0], [0.75, -0.5, 0]];

function inside(cal: CameraCalibration, p: [number, number, number]): { u: number; v: number } {
  const px = projectPoint(cal, p);
  assert.ok(px, `point ${p} is behind camera ${cal.camera_name}`);
  assert.ok(px.inImage, `point ${p} projects outside ${cal.camera_name}: (${px.u.toFixed(1)}, ${px.v.toFixed(1)})`);
  return px;
}

test("rotate: 90 deg about z maps x to y", () => {
  const s = Math.SQRT1_2;
  const r = rotate([0, 0, s, s], [1, 0, 0]);
  assert.ok(Math.abs(r[0]) < 1e-12 && Math.abs(r[1] - 1) < 1e-12 && Math.abs(r[2]) < 1e-12);
});

test("x-one head camera sees the table centre near the image centre and every workspace corner", () => {
  const head = xOne.calibrations.head!;
  assert.equal(head.extrinsics.parent_frame, "base_link");
  const c = inside(head, [0.5, 0, 0]);
  assert.ok(Math.abs(c.u - 319.5) < 1 && Math.abs(c.v - 239.5) < 1, `centre at (${c.u}, ${c.v})`);
  for (const p of WORKSPACE_CORNERS) inside(head, p);
  // Orientation: left of the robot (+y) is on the image's left; nearer points are lower in the image.
  assert.ok(inside(head, [0.45, 0.3, 0]).u < inside(head, [0.45, -0.3, 0]).u);
  assert.ok(inside(head, [0.25, 0, 0]).v > inside(head, [0.7, 0, 0]).v);
  // A point above the camera is behind or outside it.
  const up = projectPoint(head, [-0.3, 0, 2]);
  assert.ok(up === null || !up.inImage);
});

test("franka exterior cameras see the whole workspace from the left and right", () => {
  for (const name of ["exterior_left", "exterior_right"]) {
    const cal = franka.calibrations[name]!;
    for (const p of WORKSPACE_CORNERS) inside(cal, p);
    inside(cal, [0.5, 0, 0]);
  }
  // The left camera is at +y: a block at y = +0.4 is nearer to it than to the right camera.
  const l = projectPoint(franka.calibrations.exterior_left!, [0.5, 0.4, 0])!;
  const r = projectPoint(franka.calibrations.exterior_right!, [0.5, 0.4, 0])!;
  assert.ok(l.depthM < r.depthM);
});

test("wrist cameras look along the flange approach axis at the fingertips", () => {
  for (const cal of [xOne.calibrations.left_wrist!, xOne.calibrations.right_wrist!, franka.calibrations.wrist!]) {
    assert.match(cal.extrinsics.parent_frame, /link7|panda_hand/);
    // Fingertips 0.1-0.2 m ahead on the flange z axis: in the image, lower half, centred in u.
    for (const z of [0.1, 0.15, 0.2]) {
      const px = inside(cal, [0, 0, z]);
      assert.ok(Math.abs(px.u - 319.5) < 1 && px.v > 239.5, `${cal.camera_name} z=${z}: (${px.u}, ${px.v})`);
    }
    // The optical axis points mostly along flange +z.
    const ahead = parentToOptical(cal, [cal.extrinsics.translation[0], 0, cal.extrinsics.translation[2] + 1]);
    assert.ok(ahead[2] > 0.9);
  }
});

test("cameraInfoFromCalibration fills the CameraInfo record", () => {
  const cal = xOne.calibrations.head!;
  const info = cameraInfoFromCalibration(cal, "head_camera_color_optical_frame", { sec: 12, nanosec: 5 });
  assert.equal(info.header.frame_id, "head_camera_color_optical_frame");
  assert.deepEqual(info.header.stamp, { sec: 12, nanosec: 5 });
  assert.equal(info.width, 640);
  assert.equal(info.height, 480);
  assert.equal(info.distortion_model, "plumb_bob");
  assert.deepEqual(info.k, cal.camera_matrix.data);
  assert.equal(info.d.length, 5);
  assert.equal(info.r.length, 9);
  assert.equal(info.p.length, 12);
  assert.equal(info.roi.do_rectify, false);
});

test("profile cameras name calibrations whose camera_name matches", () => {
  for (const robot of [xOne, franka]) {
    for (const cam of robot.profile.cameras) assert.equal(robot.calibrations[cam.name]!.camera_name, cam.name);
  }
});
