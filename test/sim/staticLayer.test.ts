import assert from "node:assert/strict";
import { test } from "node:test";
import { LocalBus } from "../../src/bus/local.js";
import { loadRobotProfile } from "../../src/robot/index.js";
import { cameraFromCalibration } from "../../src/sim/render/camera.js";
import { lookAtPose, quatFromAxisAngle } from "../../src/sim/render/math.js";
import { boxMesh, cylinderMesh, sphereMesh } from "../../src/sim/render/meshes.js";
import { createRenderFrame, renderCamera, type RenderCamera, type RenderFrame } from "../../src/sim/render/rasterize.js";
import { StaticLayer } from "../../src/sim/render/StaticLayer.js";
import { SensorPublishers } from "../../src/sim/node/sensors.js";
import { mulberry32 } from "../../src/task/rng.js";
import { SimWorld } from "../../src/sim/world/SimWorld.js";
import type { Pose3, RenderMesh, Vec3 } from "../../src/sim/world/types.js";

const at = (x: number, y: number, z: number, yaw = 0): Pose3 => ({ position: [x, y, z], quaternion: quatFromAxisAngle([0, 0, 1], yaw) });
const fixed = (m: RenderMesh): RenderMesh => ({ ...m, fixed: true });
const CAM: RenderCamera = { width: 320, height: 240, fx: 300, fy: 300, cx: 159.5, cy: 119.5, worldFromCamera: lookAtPose([-0.1, 0, 1.4], [0.5, 0, 0.75]) };

const bytes = (a: ArrayBufferView): Buffer => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

/** Renders with the layer and without it (a fresh frame); asserts every byte and the stats agree. */
function sameAsOnePass(meshes: RenderMesh[], camera: RenderCamera, layer: StaticLayer, frame: RenderFrame, depth: boolean, where: string): RenderFrame {
  const plain = renderCamera(meshes, camera, undefined, { depth });
  renderCamera(meshes, camera, frame, { depth, layer });
  assert.ok(bytes(frame.rgb).equals(bytes(plain.rgb)), `${where}: rgb differs from one pass over all meshes`);
  if (depth) assert.ok(bytes(frame.depth).equals(bytes(plain.depth)), `${where}: depth differs from one pass over all meshes`);
  assert.deepEqual(frame.stats, plain.stats, `${where}: stats`);
  return frame;
}

const pixel = (f: RenderFrame, u: number, v: number): number[] => [...f.rgb.subarray(3 * (v * f.width + u), 3 * (v * f.width + u) + 3)];

/** Where a world point lands in CAM's image. */
function project(p: Vec3): [number, number] {
  const f = renderCamera([boxMesh([0.004, 0.004, 0.004], at(...p), [255, 0, 255])], CAM);
  for (let v = 0; v < f.height; v++) for (let u = 0; u < f.width; u++) if (f.depth[v * f.width + u] !== Infinity) return [u, v];
  throw new Error(`${p} is not in view`);
}

test("the static layer is redrawn when a fixed mesh moves, changes colour or vertex, or the camera or fixed set changes", () => {
  const table = fixed(boxMesh([0.45, 0.6, 0.02], at(0.45, 0, 0.73), [150, 110, 70]));
  const mat = (x: number, color: Vec3 = [40, 80, 220]) => fixed(boxMesh([0.05, 0.05, 0.001], at(x, 0.1, 0.751), color));
  const block = (x: number) => boxMesh([0.022, 0.022, 0.022], at(x, -0.15, 0.772, 0.3), [220, 40, 40]);
  const layer = new StaticLayer();
  const frame = createRenderFrame(CAM.width, CAM.height);
  const [ua, va] = project([0.4, 0.1, 0.752]), [ub, vb] = project([0.6, 0.1, 0.752]);

  sameAsOnePass([table, mat(0.4), block(0.3)], CAM, layer, frame, false, "first frame");
  sameAsOnePass([table, mat(0.4), block(0.5)], CAM, layer, frame, false, "block moved");
  assert.deepEqual(layer.stats, { hits: 2, redraws: 1, ties: 0 }, "a moving block alone keeps the layer");
  const matAtA = pixel(frame, ua, va), tableAtB = pixel(frame, ub, vb);
  assert.notDeepEqual(matAtA, tableAtB);

  // The "static" mat moves: the very next frame shows it at B and the table at A.
  sameAsOnePass([table, mat(0.6), block(0.5)], CAM, layer, frame, false, "mat moved");
  assert.deepEqual(pixel(frame, ub, vb), matAtA, "the mat is drawn at its new place");
  assert.deepEqual(pixel(frame, ua, va), tableAtB, "no stale mat where it was");
  assert.equal(layer.stats.redraws, 2);

  const changes: [string, RenderMesh[], RenderCamera][] = [
    ["mat recoloured", [table, mat(0.6, [230, 200, 40]), block(0.5)], CAM],
    ["one vertex 1 µm lower", [table, (() => { const m = mat(0.6, [230, 200, 40]); m.positions[2] = Math.fround(m.positions[2]! - 2 ** -20); return m; })(), block(0.5)], CAM],
    ["mat removed", [table, block(0.5)], CAM],
    ["mat added back", [table, mat(0.6), block(0.5)], CAM],
    ["camera moved 1 µm", [table, mat(0.6), block(0.5)], { ...CAM, worldFromCamera: lookAtPose([-0.1, 1e-6, 1.4], [0.5, 0, 0.75]) }],
    ["camera fx changed", [table, mat(0.6), block(0.5)], { ...CAM, worldFromCamera: lookAtPose([-0.1, 1e-6, 1.4], [0.5, 0, 0.75]), fx: 301 }],
  ];
  for (const [what, meshes, camera] of changes) {
    const before = layer.stats.redraws;
    sameAsOnePass(meshes, camera, layer, frame, true, what);
    assert.equal(layer.stats.redraws, before + 1, `${what}: layer redrawn`);
  }
  const before = { ...layer.stats };
  sameAsOnePass([table, mat(0.6), block(0.45)], changes[5]![2], layer, frame, true, "unchanged fixed scene");
  assert.deepEqual(layer.stats, { ...before, hits: before.hits + 1 }, "an unchanged fixed scene keeps the layer");
});

test("a moving face in a near depth tie with a fixed one makes the frame drawn in one pass", () => {
  const layer = new StaticLayer();
  const frame = createRenderFrame(CAM.width, CAM.height);
  const box = (color: Vec3) => boxMesh([0.1, 0.1, 0.02], at(0.45, 0, 0.77, 0.2), color);
  // The same box fixed and moving: equal 1/z everywhere it shows, so the draw order decides (fixed first by index).
  sameAsOnePass([fixed(box([200, 0, 0])), box([0, 200, 0])], CAM, layer, frame, false, "coplanar fixed and moving box");
  assert.deepEqual(layer.stats, { hits: 0, redraws: 1, ties: 1 });
  // A smaller box 1 mm above the fixed one is no tie: drawn over the layer.
  sameAsOnePass([fixed(box([200, 0, 0])), boxMesh([0.08, 0.08, 0.01], at(0.45, 0, 0.801, 0.2), [0, 200, 0])], CAM, layer, frame, false, "box 1 mm above");
  assert.deepEqual(layer.stats, { hits: 1, redraws: 1, ties: 1 });
});

test("two fixed cameras of one size alternate, each over its own layer (the span loops keep one layer's depth at a time)", () => {
  const box = (color: Vec3) => boxMesh([0.08, 0.12, 0.015], at(0.4, 0.05, 0.765, 0.5), color);
  const table = fixed(boxMesh([0.45, 0.6, 0.02], at(0.45, 0, 0.73), [150, 110, 70]));
  const other: RenderCamera = { ...CAM, worldFromCamera: lookAtPose([0.3, -0.6, 1.3], [0.5, 0, 0.75]) };
  const layerA = new StaticLayer(), layerB = new StaticLayer();
  const frameA = createRenderFrame(CAM.width, CAM.height), frameB = createRenderFrame(CAM.width, CAM.height);
  for (let round = 0; round < 3; round++) {
    sameAsOnePass([table, box([0, 0, 200])], other, layerA, frameA, false, `round ${round}, camera A`);
    // B's moving box ties with its fixed copy: found only against B's own layer depth.
    sameAsOnePass([fixed(box([200, 0, 0])), box([0, 200, 0])], CAM, layerB, frameB, false, `round ${round}, camera B`);
  }
  assert.deepEqual(layerA.stats, { hits: 3, redraws: 1, ties: 0 });
  assert.deepEqual(layerB.stats, { hits: 0, redraws: 1, ties: 3 });
});

test("randomized scenes: drawing over the layer gives every byte of one pass over all meshes", () => {
  const rng = mulberry32(15), rand = rng.next, u = rng.uniform;
  const color = (): Vec3 => [Math.floor(u(0, 256)), Math.floor(u(0, 256)), Math.floor(u(0, 256))];
  const shape = (pose: Pose3, c: Vec3): RenderMesh => {
    const k = rand();
    if (k < 0.5) return boxMesh([u(0.01, 0.08), u(0.01, 0.08), u(0.005, 0.05)], pose, c);
    if (k < 0.8) return cylinderMesh(u(0.01, 0.06), u(0.005, 0.05), pose, c, 5 + Math.floor(u(0, 20)));
    return sphereMesh(u(0.01, 0.06), pose, c, 4 + Math.floor(u(0, 12)), 2 + Math.floor(u(0, 8)));
  };
  const total = { hits: 0, redraws: 0, ties: 0 };
  for (let scene = 0; scene < 120; scene++) {
    const big = scene % 40 === 0;
    const width = big ? 640 : 1 + Math.floor(u(0, 160)), height = big ? 480 : 1 + Math.floor(u(0, 120));
    const f = u(0.5, 1.5) * width;
    // Cameras from far to inside the scene (the near plane cuts the table).
    const camera: RenderCamera = {
      width, height, fx: f, fy: f * u(0.9, 1.1), cx: width / 2 - 0.5 + u(-5, 5), cy: height / 2 - 0.5 + u(-5, 5),
      worldFromCamera: lookAtPose([u(-0.3, 0.9), u(-0.6, 0.6), u(0.7, 1.6)], [u(0.2, 0.7), u(-0.3, 0.3), 0.75]),
      cullBackFaces: rand() < 0.8, nearM: rand() < 0.2 ? u(0.05, 0.5) : undefined,
    };
    const tableTop = 0.75;
    const fixedMeshes: RenderMesh[] = [fixed(boxMesh([0.45, 0.6, 0.02], at(0.45, 0, tableTop - 0.02), [150, 110, 70]))];
    for (let i = 0; i < 1 + Math.floor(u(0, 5)); i++) { // patches and buttons resting on the table top
      const half = u(0.001, 0.03);
      fixedMeshes.push(fixed(rand() < 0.5
        ? boxMesh([u(0.02, 0.08), u(0.02, 0.08), half], at(u(0.1, 0.8), u(-0.5, 0.5), tableTop + half, u(0, 3)), color())
        : cylinderMesh(u(0.02, 0.05), half, at(u(0.1, 0.8), u(-0.5, 0.5), tableTop + half), color())));
    }
    const layer = new StaticLayer();
    const frame = createRenderFrame(width, height);
    const depth = rand() < 0.5;
    for (let step = 0; step < 4; step++) {
      const moving: RenderMesh[] = [];
      for (let i = 0; i < Math.floor(u(0, 8)); i++) { // objects resting on the table or floating, arms reaching down
        const pose = at(u(0.0, 0.9), u(-0.6, 0.6), rand() < 0.5 ? tableTop + u(0, 0.05) : u(0.75, 1.2), u(0, 6));
        moving.push(shape(pose, color()));
      }
      if (rand() < 0.25) moving.push({ ...fixedMeshes[Math.floor(u(0, fixedMeshes.length))]!, fixed: false, color: color() }); // exact ties
      if (step === 2 && rand() < 0.5) fixedMeshes[0] = fixed(boxMesh([0.45, 0.6, 0.02], at(0.45 + u(-0.1, 0.1), 0, tableTop - 0.02), [150, 110, 70]));
      // Moving meshes anywhere between the fixed ones, as a world lists them (the fixed ones keep their order).
      const meshes = [...fixedMeshes];
      for (const m of moving) meshes.splice(Math.floor(u(0, meshes.length + 1)), 0, m);
      sameAsOnePass(meshes, camera, layer, frame, depth, `scene ${scene} step ${step} (${width}x${height}, depth ${depth})`);
    }
    for (const k of ["hits", "redraws", "ties"] as const) total[k] += layer.stats[k];
  }
  assert.ok(total.hits > 200 && total.redraws >= 120 && total.ties > 0, `every path taken: ${JSON.stringify(total)}`);
});

test("the sim's head camera (on base_link) keeps a layer, the wrist cameras none; a task moving a fixed object shows at once", async () => {
  const robot = loadRobotProfile("robots/x-one.yaml");
  const world = await SimWorld.create({ profile: robot.profile });
  const bus = new LocalBus();
  try {
    const sensors = new SensorPublishers({ bus, world, profile: robot.profile, calibrations: robot.calibrations, clockHz: 0 });
    assert.deepEqual([...sensors.layers.keys()], ["head"]);
    const head = robot.profile.cameras.find((c) => c.name === "head")!;
    const cap = world.addObject({ name: "cap", body: "visual", color: [220, 30, 30], shape: { kind: "cylinder", radius: 0.03, halfHeight: 0.005 }, pose: at(0.35, 0, 0.78) });
    world.addObject({ name: "block", body: "dynamic", color: [40, 80, 220], massKg: 0.05, shape: { kind: "box", halfExtents: [0.022, 0.022, 0.022] }, pose: at(0.5, -0.1, 0.772) });
    const meshes = world.meshes();
    assert.deepEqual(meshes.map((m) => m.fixed === true).filter((f) => f).length, 2, "the table and the visual cap are fixed, arms and the block not");
    const check = (what: string) => {
      const m = world.meshes();
      const layered = sensors.render(head, m);
      const plain = renderCamera(m, cameraFromCalibration(robot.calibrations.head!, world.framePose("base_link")!), undefined, { depth: false });
      assert.ok(bytes(layered.rgb).equals(bytes(plain.rgb)), `${what}: head image differs from one pass`);
      return Buffer.from(layered.rgb);
    };
    const first = check("first frame");
    for (let i = 0; i < 24; i++) world.step();
    check("after physics steps");
    world.setObjectPose(cap, at(0.35, 0, 0.776)); // the press dip of a button cap
    const pressed = check("cap pressed");
    assert.ok(!pressed.equals(first));
    world.setObjectColor(cap, [30, 220, 30]);
    check("cap recoloured");
    assert.deepEqual(sensors.layers.get("head")!.stats, { hits: 4, redraws: 3, ties: 0 });
  } finally {
    world.dispose();
    await bus.close();
  }
});
