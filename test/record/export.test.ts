/**
 * engram export --format hdf5 on a short recorded expert episode (3 cameras, 20 steps): the file
 * reads back (h5wasm) with the documented layout: actions = the leader commands in the 16-D
 * policy layout, RGB per camera at the control rate, annotation segments and end labels. When
 * Debian's h5py is installed, h5py reads it too (skipped otherwise).
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import h5wasm from "h5wasm/node";
import { loadRunConfig } from "../../src/config/loaders.js";
import { exportRunHdf5 } from "../../src/record/exportHdf5.js";
import { readRecordedEpisode } from "../../src/record/replayEpisode.js";
import { recordEpisodes } from "../../src/record/teleop/recordSession.js";
import { getLayout, toPolicyVector } from "../../src/robot/layout.js";
import { loadRobotProfile } from "../../src/robot/loadRobotProfile.js";
import { decode } from "../../src/msgs/codec.js";

const dir = mkdtempSync(join(tmpdir(), "engram-export-test-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const run = loadRunConfig("launch/sim-x-one.yaml");
const robot = loadRobotProfile(run.robotPath);
const profile = robot.profile;
const STEPS = 20;

before(async () => {
  await recordEpisodes({ run, robot, source: "expert", task: "put-back-block", episodes: 1, seed: 5, outDir: dir, maxSteps: STEPS });
}, { timeout: 90_000 });

test("export writes the RoboTwin-style layout, readable back", { timeout: 90_000 }, async () => {
  const [e] = await exportRunHdf5(dir, profile);
  assert.ok(e);
  assert.ok(e.frames >= STEPS && e.frames <= STEPS + 1, `${e.frames} frames`);
  await h5wasm.ready;
  const f = new h5wasm.File(e.hdf5, "r");
  try {
    const get = (p: string) => f.get(p) as InstanceType<typeof h5wasm.Dataset>;
    const actions = get("joint_action/vector");
    assert.deepEqual(actions.shape, [e.frames, 16]);
    assert.equal(actions.dtype, "<d");
    assert.deepEqual(get("joint_state/vector").shape, [e.frames, 16]);
    for (const cam of ["head", "left_wrist", "right_wrist"]) {
      const rgb = get(`observation/${cam}/rgb`);
      assert.deepEqual(rgb.shape, [e.frames, 480, 640, 3], cam);
      assert.equal(rgb.dtype, "<B");
      const frame0 = rgb.slice([[0, 1]]) as Uint8Array;
      assert.ok(frame0.some((v) => v > 0) && new Set(frame0.subarray(0, 30000)).size > 5, `${cam}: frame 0 is an image`);
    }
    const texts = get("language/text").value as string[];
    assert.deepEqual(texts, ["pick up the block and place it at the center"]);
    assert.deepEqual(Array.from(get("language/start_step").value as Int32Array), [0]);
    assert.deepEqual(Array.from(get("language/end_step").value as Int32Array), [STEPS - 1]);
    const label = Array.from(get("language/subtask_end").value as Uint8Array);
    assert.deepEqual(label.slice(0, STEPS), Array.from({ length: STEPS }, (_, k) => (k >= STEPS - 8 ? 1 : 0)));
    assert.equal(f.attrs["task"]!.value, "put-back-block");
    // Frame k's action is the leader command issued right after tick k (the expert's target for step k + 1).
    const ep = await readRecordedEpisode(join(dir, "episodes", "0.mcap"), profile);
    const layout = getLayout(profile, "bimanual_16d");
    const cmd = ep.commands[3]!;
    const js = decode("sensor_msgs/msg/JointState", cmd.cdr);
    const want = toPolicyVector(layout, js.name, js.position);
    const rows = actions.value as Float64Array;
    assert.deepEqual(Array.from(rows.subarray(2 * 16, 3 * 16)), Array.from(want));
    assert.equal(Number(cmd.offsetNs), 300_000_000);
  } finally {
    f.close();
  }
});

test("h5py reads the export", (t) => {
  const probe = spawnSync("/usr/bin/python3", ["-c", "import h5py"], { encoding: "utf8" });
  if (probe.status !== 0) { t.skip("h5py is not installed for /usr/bin/python3 (apt install python3-h5py)"); return; }
  const script = [
    "import h5py, sys",
    `f = h5py.File(${JSON.stringify(join(dir, "hdf5", "0.hdf5"))}, 'r')`,
    "print(f['joint_action/vector'].shape, f['observation/head/rgb'].shape, f['observation/head/rgb'].dtype, [s.decode() if isinstance(s, bytes) else s for s in f['language/text'][:]])",
  ].join("\n");
  const r = spawnSync("/usr/bin/python3", ["-c", script], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /\(2\d, 16\) \(2\d, 480, 640, 3\) uint8 \['pick up the block and place it at the center'\]/);
});
