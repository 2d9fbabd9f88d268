/**
 * engram export --format hdf5 on a short recorded expert episode (3 cameras, 20 steps) and on an
 * `engram run` folder (test-tiny policy, 12 steps): RoboTwin's layout, read back by h5wasm and by
 * h5py the way RoboTwin's ACT process_data.py reads it (joint_action/<arm>, cameras head_camera,
 * left_camera, right_camera, JPEG bytes decoded as cv2.imdecode would: by OpenCV when installed,
 * else Pillow), actions equal to the commands in the MCAP.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import h5wasm from "h5wasm/node";
import { main as exportMain } from "../../src/cli/export.js";
import { loadRunConfig } from "../../src/config/loaders.js";
import { exportRunHdf5 } from "../../src/record/exportHdf5.js";
import { McapSource } from "../../src/record/index.js";
import { readRecordedEpisode } from "../../src/record/replayEpisode.js";
import { recordEpisodes } from "../../src/app/recordSession.js";
import { getLayout, toPolicyVector } from "../../src/robot/layout.js";
import { loadRobotProfile } from "../../src/robot/loadRobotProfile.js";
import { decode } from "../../src/msgs/codec.js";
import { runTrial } from "../../src/app/runTrial.js";
import { missingPython, PROJECT_PYTHON, runPython } from "./externalTools.js";

const dir = mkdtempSync(join(tmpdir(), "engram-export-test-"));
const runDir = join(dir, "run");
after(() => rmSync(dir, { recursive: true, force: true }));
const run = loadRunConfig("launch/sim-x-one.yaml");
const robot = loadRobotProfile(run.robotPath);
const profile = robot.profile;
const STEPS = 20;
const RUN_STEPS = 12;
const INSTRUCTION = "Move the block to the center, press the button, then put the block back on the mat it started on.";
const ROBOTWIN_ORDER = [...profile.arms[0]!.joints, profile.arms[0]!.gripper!, ...profile.arms[1]!.joints, profile.arms[1]!.gripper!];

before(async () => {
  await recordEpisodes({ run, robot, source: "expert", task: "put-back-block", episodes: 1, seed: 5, outDir: dir, maxSteps: STEPS });
  await runTrial({ run, robot, policyPath: "policies/test-tiny", task: "put-back-block", episodes: 1, seed: 7, outDir: runDir, maxSteps: RUN_STEPS });
}, { timeout: 120_000 });

test("export writes RoboTwin's layout with our extras beside it, readable back", { timeout: 90_000 }, async () => {
  const [e] = await exportRunHdf5(dir, profile);
  assert.ok(e);
  assert.equal(e.hdf5, join(dir, "hdf5", "data", "episode0.hdf5"));
  assert.ok(e.frames >= STEPS && e.frames <= STEPS + 1, `${e.frames} frames`);
  assert.deepEqual(JSON.parse(readFileSync(join(dir, "hdf5", "instructions", "episode0.json"), "utf8")), { seen: [INSTRUCTION], unseen: [] });
  await h5wasm.ready;
  const f = new h5wasm.File(e.hdf5, "r");
  try {
    const get = (p: string) => f.get(p) as InstanceType<typeof h5wasm.Dataset>;
    assert.deepEqual(get("joint_action/left_arm").shape, [e.frames, 7]);
    assert.deepEqual(get("joint_action/left_gripper").shape, [e.frames]);
    assert.deepEqual(get("joint_action/vector").shape, [e.frames, 16]);
    assert.deepEqual(get("joint_action/policy_vector").shape, [e.frames, 16]);
    assert.deepEqual(get("endpose/right_endpose").shape, [e.frames, 7]);
    assert.deepEqual((f.get("observation") as InstanceType<typeof h5wasm.Group>).keys().sort(), ["head_camera", "left_camera", "right_camera"]);
    assert.match(get("observation/head_camera/rgb").dtype as string, /^S\d+$/);
    const texts = get("language/text").value as string[];
    assert.deepEqual(texts, ["pick up the block and place it at the center"]);
    assert.deepEqual(Array.from(get("language/end_step").value as Int32Array), [STEPS - 1]);
    const label = Array.from(get("language/subtask_end").value as Uint8Array);
    assert.deepEqual(label.slice(0, STEPS), Array.from({ length: STEPS }, (_, k) => (k >= STEPS - 8 ? 1 : 0)));
    assert.equal(f.attrs["task"]!.value, "put-back-block");
    // Frame k's action is the leader command issued right after tick k (the expert's target for step k + 1).
    const ep = await readRecordedEpisode(join(dir, "episodes", "0.mcap"), profile);
    const cmd = ep.commands[3]!;
    const js = decode("sensor_msgs/msg/JointState", cmd.cdr);
    const policyRows = get("joint_action/policy_vector").value as Float64Array;
    assert.deepEqual(Array.from(policyRows.subarray(2 * 16, 3 * 16)), Array.from(toPolicyVector(getLayout(profile, "bimanual_16d"), js.name, js.position)));
    const vector = get("joint_action/vector").value as Float64Array;
    assert.deepEqual(Array.from(vector.subarray(2 * 16, 3 * 16)), Array.from(toPolicyVector({ kind: "joint", names: ROBOTWIN_ORDER }, js.name, js.position)), "RoboTwin order");
    assert.equal(Number(cmd.offsetNs), 300_000_000);
  } finally {
    f.close();
  }
});

test("h5py reads the export as RoboTwin's ACT process_data.py does, JPEG frames decode", (t) => {
  const missing = missingPython(PROJECT_PYTHON, ["h5py", "numpy"]);
  if (missing) { t.skip(missing); return; }
  if (missingPython(PROJECT_PYTHON, ["cv2"]) && missingPython(PROJECT_PYTHON, ["PIL"])) { t.skip("neither OpenCV nor Pillow for the project's Python (apt install python3-pil)"); return; }
  // The reads of process_data.py's load_hdf5 and data_transform, with cv2.imdecode (or Pillow when OpenCV is absent).
  const script = `
import h5py, io, json, sys
import numpy as np
try:
    import cv2
    def imdecode(bits): return cv2.imdecode(np.frombuffer(bits, np.uint8), cv2.IMREAD_COLOR)
except ImportError:
    from PIL import Image
    # cv2.imdecode's channel order: the JPEG's colours as B, G, R (exportJpegChannels.test.ts checks them)
    def imdecode(bits): return np.asarray(Image.open(io.BytesIO(np.frombuffer(bits, np.uint8).tobytes())).convert("RGB"))[..., ::-1]
with h5py.File(sys.argv[1], "r") as root:
    left_gripper, left_arm = root["/joint_action/left_gripper"][()], root["/joint_action/left_arm"][()]
    right_gripper, right_arm = root["/joint_action/right_gripper"][()], root["/joint_action/right_arm"][()]
    image_dict = {cam: root[f"/observation/{cam}/rgb"][()] for cam in root["/observation/"].keys()}
    endpose = root["/endpose/left_endpose"][()]
state = np.concatenate((left_arm[3], [left_gripper[3]], right_arm[3], [right_gripper[3]]), axis=0).astype(np.float32)
frames = {cam: imdecode(image_dict[cam][j]) for cam in ("head_camera", "right_camera", "left_camera") for j in (0, len(left_gripper) - 2)}
print(json.dumps({
    "T": int(left_gripper.shape[0]), "left_arm": list(left_arm.shape), "state": state.tolist(),
    "rgb_dtype": str(image_dict["head_camera"].dtype), "decoded": {cam: list(img.shape) for cam, img in frames.items()},
    "nonblank": all(float(img.std()) > 1 for img in frames.values()), "quat_norm": float(np.linalg.norm(endpose[0, 3:])),
}))
`;
  const out = JSON.parse(runPython(PROJECT_PYTHON, script, [join(dir, "hdf5", "data", "episode0.hdf5")])) as {
    T: number; left_arm: number[]; state: number[]; rgb_dtype: string; decoded: Record<string, number[]>; nonblank: boolean; quat_norm: number;
  };
  assert.ok(out.T >= STEPS);
  assert.deepEqual(out.left_arm, [out.T, 7]);
  assert.equal(out.state.length, 16);
  assert.match(out.rgb_dtype, /^\|S\d+$/);
  assert.deepEqual(out.decoded, { head_camera: [480, 640, 3], right_camera: [480, 640, 3], left_camera: [480, 640, 3] });
  assert.ok(out.nonblank, "decoded frames are images, not blanks");
  assert.ok(Math.abs(out.quat_norm - 1) < 1e-9, `endpose quaternion norm ${out.quat_norm}`);
});

test("export works on an engram run folder: actions are the policy's trajectory points", { timeout: 90_000 }, async () => {
  const code = await exportMain([runDir, "--format", "hdf5", "--json"]);
  assert.equal(code, 0);
  const file = join(runDir, "hdf5", "data", "episode0.hdf5");
  assert.ok(existsSync(file));
  await h5wasm.ready;
  const f = new h5wasm.File(file, "r");
  const src = await McapSource.open(join(runDir, "episodes", "0.mcap"));
  try {
    const rows = (f.get("joint_action/policy_vector") as InstanceType<typeof h5wasm.Dataset>).value as Float64Array;
    const T = rows.length / 16;
    assert.ok(T >= RUN_STEPS && T <= RUN_STEPS + 1, `${T} frames`);
    assert.equal(f.attrs["instruction"]!.value, INSTRUCTION);
    // Frame 0's action: point 0 of the first JointTrajectory the policy published.
    let first: ReturnType<typeof decode<"trajectory_msgs/msg/JointTrajectory">> | undefined;
    for await (const m of src.messages({ topics: [profile.command.joint_topic] })) { first = decode("trajectory_msgs/msg/JointTrajectory", m.cdr); break; }
    assert.ok(first, "the run recorded its trajectory commands");
    const want = toPolicyVector(getLayout(profile, "bimanual_16d"), first.joint_names, first.points[0]!.positions);
    assert.deepEqual(Array.from(rows.subarray(0, 16)), Array.from(want));
  } finally {
    f.close();
    await src.close();
  }
  assert.deepEqual(readdirSync(join(runDir, "hdf5", "data")), ["episode0.hdf5"]);
});
