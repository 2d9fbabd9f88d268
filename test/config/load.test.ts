import assert from "node:assert/strict";
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { z } from "zod";
import { ConfigError, formatIssue, formatPath, loadCalibration, loadRunConfig, parseYaml, validateSource } from "../../src/config/index.js";
import { loadRobotProfile } from "../../src/robot/index.js";
import { copyConfigs, edit, REPO } from "./helpers.js";

function configError(fn: () => unknown): ConfigError {
  try { fn(); } catch (err) {
    assert.ok(err instanceof ConfigError, `expected a ConfigError, got ${String(err)}`);
    return err;
  }
  assert.fail("expected a ConfigError, nothing was thrown");
}

test("shipped robot profiles, calibrations and run configs validate", () => {
  for (const name of ["x-one", "franka-droid"]) {
    const robot = loadRobotProfile(join(REPO, "robots", `${name}.yaml`));
    assert.equal(robot.profile.name, name);
    assert.deepEqual(Object.keys(robot.calibrations).sort(), robot.profile.cameras.map((c) => c.name).sort());
  }
  for (const name of ["sim-x-one", "sim-franka"]) {
    const run = loadRunConfig(join(REPO, "launch", `${name}.yaml`));
    assert.equal(run.config.name, name);
    assert.equal(run.dir, join(REPO, "launch"));
    assert.equal(run.robotPath, join(REPO, "robots", `${name === "sim-x-one" ? "x-one" : "franka-droid"}.yaml`));
  }
});

test("a mistyped field names file, exact line:column, field path, expected and found", () => {
  const dir = copyConfigs();
  const file = join(dir, "robots", "x-one.yaml");
  const pos = edit(file, "upper: 2.35, velocity_limit: 3.14 }", "upper: 2.35, velocity_limit: fast }");
  const col = pos.column + "upper: 2.35, velocity_limit: ".length;
  const err = configError(() => loadRobotProfile(file));
  assert.equal(err.issues.length, 1);
  const i = err.issues[0]!;
  assert.equal(i.file, file);
  assert.equal(i.line, pos.line);
  assert.equal(i.column, col);
  assert.equal(i.path, "joints[3].velocity_limit");
  assert.equal(err.message, `${file}:${pos.line}:${col} joints[3].velocity_limit: expected number, found string "fast"`);
});

test("malformed YAML reports the parser's line", () => {
  const { issues } = parseYaml("bad.yaml", "name: x\njoints: [1, 2\ncameras: []\n");
  assert.equal(issues.length, 1);
  assert.equal(issues[0]!.file, "bad.yaml");
  assert.equal(issues[0]!.line, 3);
  assert.match(issues[0]!.message, /malformed YAML/);
  const dir = copyConfigs();
  const file = join(dir, "calibration", "x-one", "head.yaml");
  const pos = edit(file, "image_height: 480", "image_height: [480");
  const err = configError(() => loadCalibration(file));
  assert.ok(err.issues.every((x) => x.file === file && x.line >= pos.line), err.message);
});

test("duplicate keys are malformed YAML with a line", () => {
  const { issues } = parseYaml("dup.yaml", "a: 1\nb: 2\na: 3\n");
  assert.equal(issues.length, 1);
  assert.equal(issues[0]!.line, 3);
  assert.match(issues[0]!.message, /DUPLICATE_KEY/);
});

test("an unknown field is an error at its key", () => {
  const dir = copyConfigs();
  const file = join(dir, "robots", "franka-droid.yaml");
  const pos = edit(file, "control_hz: 15", "control_hz: 15\ncontrol_rate: 15");
  const err = configError(() => loadRobotProfile(file));
  assert.equal(err.issues.length, 1);
  assert.equal(err.issues[0]!.line, pos.line + 1);
  assert.equal(err.issues[0]!.column, 1);
  assert.equal(err.issues[0]!.path, "control_rate");
  assert.match(err.issues[0]!.message, /unknown field "control_rate"/);
});

test("a missing calibration file names the profile field and the missing path", () => {
  const dir = copyConfigs();
  const file = join(dir, "robots", "x-one.yaml");
  const pos = edit(file, "calibration/x-one/left_wrist.yaml", "calibration/x-one/no_such.yaml");
  const err = configError(() => loadRobotProfile(file));
  assert.equal(err.issues.length, 1);
  const i = err.issues[0]!;
  assert.equal(i.line, pos.line);
  assert.equal(i.path, "cameras[1].calibration");
  assert.match(i.message, /missing path "\.\.\/calibration\/x-one\/no_such.yaml"/);
});

test("errors inside a referenced calibration file are reported with that file's line", () => {
  const dir = copyConfigs();
  const cal = join(dir, "calibration", "x-one", "right_wrist.yaml");
  const pos = edit(cal, "image_width: 640", "image_width: 640.5");
  const err = configError(() => loadRobotProfile(join(dir, "robots", "x-one.yaml")));
  assert.equal(err.issues.length, 2);
  assert.equal(err.issues[0]!.path, "cameras[2].calibration");
  assert.match(err.issues[0]!.message, /with 1 error\(s\)/);
  assert.ok(err.issues[1]!.file.endsWith(join("calibration", "x-one", "right_wrist.yaml")));
  assert.equal(err.issues[1]!.line, pos.line);
  assert.match(err.message, /image_width: expected integer, found number 640.5/);
});

test("every error of a file is reported at once, one line each", () => {
  const dir = copyConfigs();
  const file = join(dir, "robots", "x-one.yaml");
  const a = edit(file, "rate_hz: 100", "rate_hz: hundred");
  const b = edit(file, "encoding: rgb8", "encoding: bgr8");
  const c = edit(file, "control_hz: 10", "control_hz: 10\nextra_field: 1");
  const err = configError(() => loadRobotProfile(file));
  const lines = err.message.split("\n");
  assert.equal(lines.length, 3, err.message);
  assert.deepEqual(err.issues.map((i) => i.line), [a.line, b.line, c.line + 1]);
  assert.match(lines[0]!, /joint_state\.rate_hz: expected number, found string "hundred"/);
  assert.match(lines[1]!, /cameras\[0\]\.encoding: expected one of "rgb8", "jpeg", found string "bgr8"/);
  assert.match(lines[2]!, /extra_field: unknown field/);
});

test("cross-field checks name the field and line", () => {
  const dir = copyConfigs();
  const file = join(dir, "robots", "x-one.yaml");
  const lim = edit(file, "{ name: left_joint2,  kind: revolute, lower: -2.09, upper: 2.09", "{ name: left_joint2,  kind: revolute, lower: 2.09, upper: -2.09");
  const home = edit(file, "  left_joint7: 0.0\n", "  left_joint77: 0.0\n");
  const layout = edit(file, "            left_gripper, right_gripper]", "            left_gripper, rite_gripper]");
  const err = configError(() => loadRobotProfile(file));
  const byPath = new Map(err.issues.map((i) => [i.path, i]));
  assert.equal(byPath.get("joints[1].upper")?.line, lim.line, err.message);
  assert.equal(byPath.get("home.left_joint77")?.line, home.line, err.message);
  assert.match(byPath.get("home")!.message, /missing: left_joint7/);
  assert.equal(byPath.get("layouts.bimanual_16d.names[15]")?.line, layout.line, err.message);
  assert.match(err.message, /home\.left_joint1: expected a home position within \[2\.09, -2\.09\]|joints\[1\]\.upper: expected upper > lower/);
});

test("cross-field errors come together with type errors elsewhere in the file", () => {
  const dir = copyConfigs();
  const file = join(dir, "robots", "x-one.yaml");
  const a = edit(file, "rate_hz: 100", "rate_hz: fast");
  const b = edit(file, "  right_joint7: 0.0\n", "  right_joint8: 0.0\n");
  const err = configError(() => loadRobotProfile(file));
  assert.deepEqual(err.issues.map((i) => [i.line, i.path]), [[b.line - 15, "home"], [b.line, "home.right_joint8"], [a.line, "joint_state.rate_hz"]].sort((x, y) => (x[0] as number) - (y[0] as number)));
});

test("joint_order must be a permutation of the joints", () => {
  const dir = copyConfigs();
  const file = join(dir, "robots", "franka-droid.yaml");
  const pos = edit(file, "panda_joint6, panda_joint7, panda_gripper]\n  pose_topic", "panda_joint6, panda_joint6, panda_gripper]\n  pose_topic");
  const err = configError(() => loadRobotProfile(file));
  const paths = err.issues.map((i) => i.path);
  assert.ok(paths.includes("command.joint_order[6]"), err.message);
  assert.ok(paths.includes("command.joint_order"), err.message);
  assert.ok(err.issues.every((i) => i.line === pos.line), err.message);
  assert.match(err.message, /missing: panda_joint7/);
});

test("run config: bad task, bad physics rate, missing robot file", () => {
  const dir = copyConfigs();
  const file = join(dir, "launch", "sim-x-one.yaml");
  const t = edit(file, "task: put-back-block", "task: stack-blocks");
  const p = edit(file, "physics_hz: 240", "physics_hz: 60");
  const err = configError(() => loadRunConfig(file));
  assert.deepEqual(err.issues.map((i) => [i.line, i.path]), [[p.line, "sim.physics_hz"], [t.line, "task"]]);
  assert.match(err.message, /expected a number ≥ 240, found number 60/);
  const file2 = join(dir, "launch", "sim-franka.yaml");
  const r = edit(file2, "robot: ../robots/franka-droid.yaml", "robot: ../robots/franka.yaml");
  const err2 = configError(() => loadRunConfig(file2));
  assert.equal(err2.issues[0]!.line, r.line);
  assert.match(err2.message, /robot: expected an existing robot profile, found missing path "\.\.\/robots\/franka.yaml"/);
});

test("validateSource maps nested paths and formats them", () => {
  assert.equal(formatPath(["joints", 3, "velocity_limit"]), "joints[3].velocity_limit");
  const { source } = parseYaml("t.yaml", "a:\n  b:\n    - 1\n    - x\n");
  const r = validateSource(source, z.object({ a: z.object({ b: z.array(z.number()) }).strict() }).strict());
  assert.equal(r.ok, false);
  if (!r.ok) assert.deepEqual(r.issues, [{ file: "t.yaml", line: 4, column: 7, path: "a.b[1]", message: 'expected number, found string "x"' }]);
});

test("run config paths resolve against the config's own folder: a config copied beside robots/ loads; a missing path names both", () => {
  const dir = copyConfigs();
  const text = readFileSync(join(dir, "launch", "sim-x-one.yaml"), "utf8");
  // The issue's case: <dir>/exp.yaml naming robots/x-one.yaml next to it.
  const copied = join(dir, "exp.yaml");
  writeFileSync(copied, text.replace("robot: ../robots/x-one.yaml", "robot: robots/x-one.yaml").replace("bundle: ../policies/mem0-tiny ", "bundle: policies/test-tiny "));
  const run = loadRunConfig(copied);
  assert.equal(run.robotPath, join(dir, "robots", "x-one.yaml"));
  assert.equal(run.bundlePath, join(dir, "policies", "test-tiny"));
  const elsewhere = join(dir, "launch", "exp.yaml");
  writeFileSync(elsewhere, readFileSync(copied, "utf8"));
  const err = configError(() => loadRunConfig(elsewhere));
  const line = readFileSync(elsewhere, "utf8").split("\n").findIndex((l) => l.startsWith("robot:")) + 1;
  assert.equal(formatIssue(err.issues[0]!), `${elsewhere}:${line}:8 robot: expected an existing robot profile, found missing path "robots/x-one.yaml" (looked for ${join(dir, "launch", "robots", "x-one.yaml")}, relative to ${join(dir, "launch")})`);
});

test("a robot profile's calibration paths resolve against the profile's own folder", () => {
  const dir = copyConfigs();
  mkdirSync(join(dir, "lab"));
  const text = readFileSync(join(dir, "robots", "x-one.yaml"), "utf8");
  writeFileSync(join(dir, "lab", "x-one.yaml"), text.replace(/calibration: (\.\.\/)?calibration\//g, "calibration: cal/"));
  cpSync(join(dir, "calibration", "x-one"), join(dir, "lab", "cal", "x-one"), { recursive: true });
  assert.deepEqual(Object.keys(loadRobotProfile(join(dir, "lab", "x-one.yaml")).calibrations).sort(), ["head", "left_wrist", "right_wrist"]);
});

test("the shipped sim configs name the default policy that run and npm start use", async () => {
  assert.equal(loadRunConfig(join(REPO, "launch", "sim-x-one.yaml")).bundlePath, join(REPO, "policies", "mem0-tiny"));
  assert.equal(loadRunConfig(join(REPO, "launch", "sim-x-one-no-anchor.yaml")).bundlePath, join(REPO, "policies", "mem0-tiny", "ablations", "no-anchor"));
  const start = await import("../../src/cli/start.js");
  assert.doesNotMatch(start.spec.notes ?? "", /--policy/);
});

test("an alias bomb is a malformed-YAML issue at its first alias, not a thrown error", () => {
  const bomb = ["a: &a [x, x, x, x, x, x, x, x, x]", "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]", "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]",
    "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]", "e: [*d, *d, *d, *d, *d, *d, *d, *d, *d]", ""].join("\n");
  const { issues, source } = parseYaml("bomb.yaml", bomb);
  assert.equal(source.data, undefined);
  assert.deepEqual(issues.map((i) => [i.line, i.column]), [[2, 8]]);
  assert.match(issues[0]!.message, /aliases expand to more than 1000 nodes/);
  assert.deepEqual(parseYaml("ok.yaml", "a: &a {x: 1}\nb: *a\n").source.data, { a: { x: 1 }, b: { x: 1 } });
});

test("demonstration: a recorded MCAP resolves against the config's folder; a missing one or an unknown source is named", () => {
  const dir = copyConfigs();
  const file = join(dir, "launch", "sim-x-one.yaml");
  assert.equal(loadRunConfig(file).demonstrationPath, null);
  edit(file, "episodes: 1\n", "episodes: 1\ndemonstration: { source: mcap, path: demo.mcap }\n");
  const missing = configError(() => loadRunConfig(file));
  assert.match(formatIssue(missing.issues[0]!), /demonstration\.path: expected an existing demonstration MCAP, found missing path "demo\.mcap"/);
  writeFileSync(join(dir, "launch", "demo.mcap"), "");
  const run = loadRunConfig(file);
  assert.equal(run.demonstrationPath, join(dir, "launch", "demo.mcap"));
  assert.deepEqual(run.config.demonstration, { source: "mcap", path: "demo.mcap" });
  edit(file, "{ source: mcap, path: demo.mcap }", "{ source: video }");
  assert.match(formatIssue(configError(() => loadRunConfig(file)).issues[0]!), /demonstration\.source: expected one of "mcap", "twin"/);
  edit(file, "{ source: video }", "{ source: twin, max_frames: 0 }");
  assert.match(formatIssue(configError(() => loadRunConfig(file)).issues[0]!), /demonstration\.max_frames/);
});

test("memory: a strategy with RoboMME's TokenDrop defaults and retrieval's; an unknown strategy or field is named", () => {
  const dir = copyConfigs();
  const file = join(dir, "launch", "sim-x-one.yaml");
  assert.equal(loadRunConfig(file).config.memory, null, "absent: the bundle's own strategy");
  edit(file, "episodes: 1\n", "episodes: 1\nmemory: { strategy: tokendrop }\n");
  const defaults = { budget: 512, stride: 8, kept: 2048, grid: 8, inner: "framesamp", drop: 5 };
  assert.deepEqual(loadRunConfig(file).config.memory, { strategy: "tokendrop", ...defaults });
  edit(file, "{ strategy: tokendrop }", "{ strategy: retrieval, inner: none, drop: 4 }");
  assert.deepEqual(loadRunConfig(file).config.memory, { strategy: "retrieval", ...defaults, inner: "none", drop: 4 });
  edit(file, "{ strategy: retrieval, inner: none, drop: 4 }", "{ strategy: recurrent }");
  assert.match(formatIssue(configError(() => loadRunConfig(file)).issues[0]!),
    /memory\.strategy: expected one of "mem0", "framesamp", "tokendrop", "none", "retrieval"/);
  edit(file, "{ strategy: recurrent }", "{ strategy: framesamp, frames: 0 }");
  assert.match(formatIssue(configError(() => loadRunConfig(file)).issues[0]!), /memory\.frames/);
});
