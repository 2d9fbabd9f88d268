import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { test } from "node:test";
import { writeFileSync } from "node:fs";
import { checkPaths, kindOf } from "../../src/cli/check.js";
import { formatIssue } from "../../src/config/index.js";
import { copyConfigs, edit, REPO } from "./helpers.js";

function engramCheck(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ["--import", "tsx", "src/cli.ts", "check", ...args], { cwd: REPO, encoding: "utf8", timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test("kind detection by folder and name", () => {
  assert.equal(kindOf("robots/x-one.yaml"), "robot profile");
  assert.equal(kindOf("calibration/x-one/head.yaml"), "calibration");
  assert.equal(kindOf("policies/test-tiny/policy.yaml"), "policy manifest");
  assert.equal(kindOf("launch/sim-x-one.yaml"), "run config");
  assert.equal(kindOf("launch/x_one.launch.yaml"), "ros2 launch file");
  assert.equal(kindOf("elsewhere/thing.yaml"), null);
  assert.equal(kindOf("/home/me/robots/engram/calibration/x-one/head.yaml"), "calibration");
  assert.equal(kindOf("/home/me/launch/engram/robots/x-one.yaml"), "robot profile");
});

test("engram check passes on every shipped config, one OK line per file", () => {
  const r = engramCheck([]);
  assert.equal(r.code, 0, r.stderr);
  for (const f of ["robots/x-one.yaml", "robots/franka-droid.yaml", "calibration/x-one/head.yaml", "calibration/franka-droid/wrist.yaml", "launch/sim-x-one.yaml", "launch/sim-franka.yaml"]) {
    assert.match(r.stdout, new RegExp(`^OK ${f} `, "m"));
  }
});

test("engram check on a broken copy fails naming file, line and field, for every file", () => {
  const dir = copyConfigs();
  const robot = join(dir, "robots", "x-one.yaml");
  const cal = join(dir, "calibration", "franka-droid", "wrist.yaml");
  const run = join(dir, "launch", "sim-franka.yaml");
  const a = edit(robot, "rate_hz: 100", "rate_hz: fast");
  const b = edit(cal, "camera_name: wrist", "camera_name: wrist\ncamera_nmae: wrist");
  const c = edit(run, "control_hz: null", "control_hz: 100");
  const r = engramCheck([join(dir, "robots"), join(dir, "calibration"), join(dir, "launch")]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, new RegExp(`^${robot}:${a.line}:\\d+ joint_state\\.rate_hz: expected number, found string "fast"$`, "m"));
  assert.match(r.stderr, new RegExp(`^${cal}:${b.line + 1}:1 camera_nmae: unknown field "camera_nmae"`, "m"));
  assert.match(r.stderr, new RegExp(`^${run}:${c.line}:\\d+ control\\.control_hz: expected a number ≤ 30, found number 100$`, "m"));
  // The Franka profile names the broken wrist calibration: reported at its cameras[2].calibration line.
  assert.match(r.stderr, /franka-droid\.yaml:\d+:\d+ cameras\[2\]\.calibration: expected a valid calibration file/);
  assert.match(r.stderr, /4 error\(s\) in 4 file\(s\)/);
  assert.match(r.stdout, /^OK .*exterior_left\.yaml \(calibration\)$/m);
});

test("engram check names a path that does not exist and a file of unknown kind", () => {
  const dir = copyConfigs();
  const stray = join(dir, "notes.yaml");
  writeFileSync(stray, "a: 1\n");
  const r = checkPaths([join(dir, "nope.yaml"), stray, join(dir, "robots", "x-one.yaml")]);
  assert.deepEqual(r.ok.map((o) => o.file), [join(dir, "robots", "x-one.yaml")]);
  assert.match(formatIssue(r.issues[0]!), /nope\.yaml:1:1: expected an existing file or folder/);
  assert.match(formatIssue(r.issues[1]!), /notes\.yaml:1:1: cannot tell what kind of config this is/);
});
