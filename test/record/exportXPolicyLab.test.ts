/**
 * engram export --format xpolicylab on two recorded expert episodes at 20 Hz control (3 cameras,
 * 12 steps each): XPolicyLab's trajectory v1.0 layout, read back by h5py the way XPolicyLab's
 * loaders read it (utils/data_loader.py load_xspark_v1: scalar strings JSON-decoded, vision/<cam>/colors
 * JPEGs through cv2.imdecode; utils/process_data.py pack_robot_state: state/action
 * left_arm_joint_states, left_ee_joint_states, right_... concatenated per arm) and as RoboTwin
 * main's native collection writes it (pkl2hdf5.py create_xpolicylab_hdf5). The control rate and
 * robot type come from the recording, not from defaults (RoboTwin's converter assumes 15 Hz, aloha_agilex).
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import h5wasm from "h5wasm/node";
import { main as exportMain } from "../../src/cli/export.js";
import { armKeysOf, envCfgTypeOf } from "../../src/record/exportXPolicyLab.js";
import { loadRunConfig } from "../../src/config/loaders.js";
import { decode } from "../../src/msgs/codec.js";
import { readRecordedEpisode } from "../../src/record/replayEpisode.js";
import { recordEpisodes } from "../../src/app/recordSession.js";
import { loadRobotProfile } from "../../src/robot/loadRobotProfile.js";
import { toPolicyVector } from "../../src/robot/layout.js";
import { missingPython, PROJECT_PYTHON, runPython } from "./externalTools.js";

const dir = mkdtempSync(join(tmpdir(), "engram-xpolicylab-test-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const base = loadRunConfig("launch/sim-x-one.yaml");
const CONTROL_HZ = 20;
const run = { ...base, config: { ...base.config, control: { ...base.config.control, control_hz: CONTROL_HZ } } };
const robot = loadRobotProfile(run.robotPath);
const profile = robot.profile;
const STEPS = 12;
const out = join(dir, "xpolicylab");
const INSTRUCTION = "Move the block to the center, press the button, then put the block back on the mat it started on"
  + ".";

before(async () => {
  const task = "put-back-block";
  await recordEpisodes({ run, robot, source: "expert", task, episodes: 2, seed: 3, outDir: dir, maxSteps: STEPS });
  assert.equal(await exportMain([dir, "--format", "xpolicylab", "--json"]), 0);
}, { timeout: 180_000 });

test("xpolicylab export: one episode_{i:07d}.hdf5 per episode, robot_info.json and conversion_meta.json", () => {
  assert.deepEqual(readdirSync(out).sort(), ["conversion_meta.json", "data", "robot_info.json"]);
  assert.deepEqual(readdirSync(join(out, "data")), ["episode_0000000.hdf5", "episode_0000001.hdf5"]);
  const info = JSON.parse(readFileSync(join(out, "robot_info.json"), "utf8")) as unknown;
  assert.deepEqual(info, { x_one: { arm_dim: [7, 7], ee_dim: [1, 1] } });
  const meta = JSON.parse(readFileSync(join(out, "conversion_meta.json"), "utf8")) as Record<string, unknown>;
  assert.equal(meta.target_format, "XPolicyLab trajectory v1.0");
  assert.equal(meta.frequency, CONTROL_HZ);
  assert.equal(meta.env_cfg_type, "x_one");
  assert.equal(meta.robot_type, "x-one");
  assert.equal(meta.expert_data_num, 2);
  assert.deepEqual(readdirSync(dir).filter((n) => n.includes(".tmp-")), [], "no temporary folder left");
});

test("xpolicylab export: actions are the recorded commands, states the measured joints (float32)", async () => {
  await h5wasm.ready;
  const f = new h5wasm.File(join(out, "data", "episode_0000000.hdf5"), "r");
  try {
    const rows = (name: string) => (f.get(name) as InstanceType<typeof h5wasm.Dataset>).value as Float32Array;
    const ep = await readRecordedEpisode(join(dir, "episodes", "0.mcap"), profile);
    // Frame k's action is the leader command issued right after tick k (the expert's target for step k + 1).
    const js = decode("sensor_msgs/msg/JointState", ep.commands[3]!.cdr);
    const left = profile.arms[0]!;
    const want = Array.from(toPolicyVector({ kind: "joint", names: left.joints }, js.name, js.position), Math.fround);
    assert.deepEqual(Array.from(rows("action/left_arm_joint_states").subarray(2 * 7, 3 * 7)), want);
    const grip = toPolicyVector({ kind: "joint", names: [left.gripper!] }, js.name, js.position)[0]!;
    assert.equal(rows("action/left_ee_joint_states")[2], Math.fround(grip));
    const state = rows("state/left_arm_joint_states");
    const action = rows("action/left_arm_joint_states");
    assert.ok(state.some((v, i) => v !== action[i]), "state is measured, not a copy of the action");
  } finally {
    f.close();
  }
});

test("h5py reads the layout XPolicyLab's loaders need: keys, dtypes, shapes, frequency, robot type, JPEGs", (t) => {
  const missing = missingPython(PROJECT_PYTHON, ["h5py", "numpy"]);
  if (missing) { t.skip(missing); return; }
  if (missingPython(PROJECT_PYTHON, ["cv2"]) && missingPython(PROJECT_PYTHON, ["PIL"])) {
    t.skip("neither OpenCV nor Pillow for the project's Python");
    return;
  }
  const script = `
import h5py, io, json, sys
import numpy as np
try:
    import cv2
    def imdecode(bits): return cv2.imdecode(np.frombuffer(bits.rstrip(b"\\0"), np.uint8), cv2.IMREAD_COLOR)
except ImportError:
    from PIL import Image
    def imdecode(bits): return np.asarray(Image.open(io.BytesIO(bits.rstrip(b"\\0"))).convert("RGB"))[..., ::-1]
def walk(f):
    found = {}
    def visit(name, o):
        if isinstance(o, h5py.Dataset): found[name] = [list(o.shape), "str" if o.dtype.kind == "O" else o.dtype.str]
    f.visititems(visit)
    return found
res = []
for path in sys.argv[1:]:
    with h5py.File(path, "r") as f:
        T = f["state/left_arm_joint_states"].shape[0]
        keys = ("left_arm_joint_states", "left_ee_joint_states", "right_arm_joint_states", "right_ee_joint_states")
        pack = lambda g: np.concatenate([f[g][k][()] for k in keys], axis=-1)
        res.append({
            "T": T, "datasets": walk(f),
            "attrs": {k: (v.item() if hasattr(v, "item") else v) for k, v in f.attrs.items()},
            "version": f["data_format_version"][()].decode(), "instructions": json.loads(f["instructions"][()]),
            "frequency": int(f["additional_info/frequency"][()]),
            "packed": [list(pack("state").shape), list(pack("action").shape)],
            "decoded": {c: list(imdecode(f[f"vision/{c}/colors"][j]).shape) for c in f["vision"] for j in (0, T - 1)},
            "shape": f["vision/cam_head/shape"][()].tolist(),
            "quat_norm": float(np.linalg.norm(f["state/left_ee_poses"][0, 3:])),
        })
print(json.dumps(res))
`;
  const files = ["episode_0000000.hdf5", "episode_0000001.hdf5"].map((n) => join(out, "data", n));
  const eps = JSON.parse(runPython(PROJECT_PYTHON, script, files)) as Array<Record<string, any>>;
  assert.equal(eps.length, 2);
  for (const [i, e] of eps.entries()) {
    const T = e.T as number;
    assert.ok(T >= STEPS && T <= STEPS + 1, `${T} frames`);
    const want: Record<string, [number[], string]> = {
      data_format_version: [[], "str"], instructions: [[], "str"], instruction: [[], "str"], subtasks: [[], "str"],
      "additional_info/frequency": [[], "<i4"],
    };
    for (const g of ["state", "action"]) {
      for (const arm of ["left", "right"]) {
        want[`${g}/${arm}_arm_joint_states`] = [[T, 7], "<f4"];
        want[`${g}/${arm}_ee_joint_states`] = [[T, 1], "<f4"];
        want[`${g}/${arm}_ee_poses`] = [[T, 7], "<f4"];
      }
    }
    for (const cam of ["cam_head", "cam_left_wrist", "cam_right_wrist"]) {
      want[`vision/${cam}/shape`] = [[3], "<i4"];
      const colors = (e.datasets as Record<string, [number[], string]>)[`vision/${cam}/colors`]!;
      assert.deepEqual(colors[0], [T]);
      assert.match(colors[1], /^\|S\d+$/);
      want[`vision/${cam}/colors`] = colors;
    }
    assert.deepEqual(e.datasets, want);
    assert.equal(e.version, "v1.0");
    assert.equal(e.frequency, CONTROL_HZ, "the recorded control rate, not RoboTwin's 15 Hz default");
    assert.deepEqual(e.instructions, [INSTRUCTION]);
    assert.deepEqual(e.packed, [[T, 16], [T, 16]]);
    const frame = [480, 640, 3];
    assert.deepEqual(e.decoded, { cam_head: frame, cam_left_wrist: frame, cam_right_wrist: frame });
    assert.deepEqual(e.shape, [480, 640, 3]);
    assert.ok(Math.abs(e.quat_norm - 1) < 1e-5, `ee pose quaternion norm ${e.quat_norm}`);
    assert.equal(e.attrs.robot_type, "x-one");
    assert.equal(e.attrs.env_cfg_type, "x_one");
    assert.equal(e.attrs.control_hz, CONTROL_HZ);
    assert.equal(e.attrs.seed, 3 + i);
  }
});

test("xpolicylab keys: one arm unprefixed (Franka), two arms left_/right_, any other arm set refused by name", () => {
  const franka = loadRobotProfile("robots/franka-droid.yaml").profile;
  assert.deepEqual(armKeysOf(franka).map((a) => [a.arm.name, a.prefix]), [["arm", ""]]);
  assert.equal(envCfgTypeOf(franka.name), "franka_droid");
  assert.deepEqual(armKeysOf(profile).map((a) => a.prefix), ["left_", "right_"]);
  const swapped = { ...profile, arms: [profile.arms[1]!, profile.arms[0]!] };
  assert.throws(() => armKeysOf(swapped), /robot "x-one" has arms \[right, left\]; .* or two named left and right/);
});
