import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { calibrationSchema, formatIssue, parseYaml, policyManifestSchema, robotProfileSchema, runConfigSchema, validateSource } from "../../src/config/index.js";
import { stringify } from "yaml";
import { REPO } from "./helpers.js";

function check(file: string, text: string, schema: Parameters<typeof validateSource>[1]) {
  const { source, issues } = parseYaml(file, text);
  assert.deepEqual(issues, []);
  return validateSource(source, schema);
}

function errors(r: ReturnType<typeof validateSource>): string[] {
  return r.ok ? [] : r.issues.map(formatIssue);
}

test("camera info_topic defaults to <dirname(topic)>/camera_info", () => {
  const text = readFileSync(join(REPO, "robots", "x-one.yaml"), "utf8").replace("    info_topic: /head_camera/color/camera_info\n", "");
  const r = check("x-one.yaml", text, robotProfileSchema);
  assert.ok(r.ok, errors(r).join("\n"));
  if (r.ok) assert.equal(r.value.cameras[0].info_topic, "/head_camera/color/camera_info");
});

test("run config: unknown bus kind, openai planner without url/model, defaults filled", () => {
  const base = readFileSync(join(REPO, "launch", "sim-x-one.yaml"), "utf8");
  const bad = base.replace("kind: local", "kind: rosbridge").replace("kind: learned", "kind: openai");
  const e = errors(check("run.yaml", bad, runConfigSchema));
  assert.equal(e.length, 3, e.join("\n"));
  assert.match(e[0]!, /bus\.kind: expected one of "local", "ros2", "replay", found string "rosbridge"/);
  assert.match(e[1]!, /policy\.planner\.url: expected a url/);
  assert.match(e[2]!, /policy\.planner\.model: expected a model name/);
  const minimal = "name: m\nrobot: robots/x-one.yaml\nbus: {kind: ros2}\nsim: {enabled: false}\ntask: swap-blocks\npolicy: {planner: {kind: none}}\ncontrol: {}\nrecord: {}\n";
  const r = check("min.yaml", minimal, runConfigSchema);
  assert.ok(r.ok, errors(r).join("\n"));
  if (r.ok) {
    assert.deepEqual(r.value.bus, { kind: "ros2", node_name: "engram", use_sim_time: false });
    assert.equal(r.value.control.control_hz, null);
    assert.equal(r.value.policy.classifier, "learned");
    assert.equal(r.value.sim.physics_hz, 240);
  }
});

test("calibration: matrix sizes, unit quaternion, principal point", () => {
  const base = readFileSync(join(REPO, "calibration", "x-one", "head.yaml"), "utf8");
  const bad = base
    .replace("data: [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]", "data: [1.0, 0.0, 0.0, 0.0, 1.0, 0.0]")
    .replace("quaternion_xyzw: [-0.657305", "quaternion_xyzw: [-0.957305")
    .replace("data: [600.0, 0.0, 319.5,", "data: [600.0, 0.0, 900.5,");
  const e = errors(check("cal.yaml", bad, calibrationSchema));
  assert.equal(e.length, 3, e.join("\n"));
  assert.match(e.join("\n"), /rectification_matrix\.data: expected 9 values \(rows 3 x cols 3\), found a list of 6/);
  assert.match(e.join("\n"), /extrinsics\.quaternion_xyzw: expected a unit quaternion/);
  assert.match(e.join("\n"), /camera_matrix\.data\[2\]: expected principal point cx inside the image width \(0, 640\), found number 900.5/);
});

test("an empty file and a non-map document are reported at 1:1", () => {
  const e = errors(check("empty.yaml", "", calibrationSchema));
  assert.deepEqual(e, ["empty.yaml:1:1: expected object, found null"]);
  const l = errors(check("list.yaml", "- 1\n- 2\n", calibrationSchema));
  assert.deepEqual(l, ['list.yaml:1:1: expected object, found a list of 2 [1,2]']);
});

test("implausible rates, counts and sizes are rejected naming the field and the bound (no value can stall a loop)", () => {
  const rows: Array<[string, string, string, string, Parameters<typeof validateSource>[1], RegExp]> = [
    ["launch/sim-x-one.yaml", "physics_hz: 240", "physics_hz: 1000000000", "run.yaml", runConfigSchema, /sim\.physics_hz: expected a number ≤ 2000, found number 1000000000/],
    ["robots/x-one.yaml", "max_step_rad: ", "max_step_rad: 1e308 #", "robot.yaml", robotProfileSchema, /safety\.max_step_rad: expected a number ≤ 1, found number 1e\+308/],
    ["robots/x-one.yaml", "joint_state_stale_after_ms: ", "joint_state_stale_after_ms: 1e300 #", "robot.yaml", robotProfileSchema, /safety\.joint_state_stale_after_ms: expected a number ≤ 10000/],
    ["calibration/x-one/head.yaml", "image_width: 640", "image_width: 64000", "cal.yaml", calibrationSchema, /image_width: expected a number ≤ 4096, found number 64000/],
    ["calibration/x-one/head.yaml", "image_height: 480", "image_height: 48000", "cal.yaml", calibrationSchema, /image_height: expected a number ≤ 4096, found number 48000/],
    ["policies/test-tiny/policy.yaml", "flow_steps: 4", "flow_steps: 1000000000", "policy.yaml", policyManifestSchema, /flow_steps: expected a number ≤ 1000, found number 1000000000/],
    ["policies/test-tiny/policy.yaml", "std: [ 1, 1,", "std: [ .inf, 1,", "policy.yaml", policyManifestSchema, /normalization\.state\.std\[0\]: Number must be finite, found number Infinity/],
  ];
  for (const [path, from, to, file, schema, want] of rows) {
    const text = readFileSync(join(REPO, path), "utf8");
    assert.ok(text.includes(from), `${path} has "${from}"`);
    const e = errors(check(file, text.replace(from, to), schema));
    assert.ok(e.length >= 1, `${to}: no error`);
    assert.match(e[0]!, want);
  }
});

test("planner block: mem0 prompt by default, api_key_env names a variable, a url with credentials is refused without echoing them", () => {
  const base = readFileSync(join(REPO, "launch", "sim-x-one.yaml"), "utf8");
  const openai = base.replace("kind: learned", "kind: openai\n    url: http://127.0.0.1:8000/v1\n    model: mem0-planner\n    api_key_env: ENGRAM_PLANNER_KEY");
  const r = check("run.yaml", openai, runConfigSchema);
  assert.ok(r.ok, errors(r).join("\n"));
  if (r.ok) assert.deepEqual([r.value.policy.planner.prompt, r.value.policy.planner.max_tokens, r.value.policy.planner.api_key_env], ["mem0", 2048, "ENGRAM_PLANNER_KEY"]);
  const leaky = openai.replace("http://127.0.0.1:8000/v1", "http://bob:sk-secret-9@127.0.0.1:8000/v1");
  const e = errors(check("run.yaml", leaky, runConfigSchema));
  assert.equal(e.length, 1, e.join("\n"));
  assert.match(e[0]!, /policy\.planner\.url: expected a url without credentials/);
  assert.ok(!e[0]!.includes("sk-secret-9"), e[0]);
});

test("run config task: every task id of the task registry is accepted, an unknown one names them all", async () => {
  const { listTasks } = await import("../../src/sim/tasks/index.js");
  const minimal = { name: "m", robot: "r.yaml", bus: { kind: "local" }, sim: { enabled: true }, policy: { planner: { kind: "none" } }, control: {}, record: {} };
  const ids = listTasks().map((t) => t.id);
  assert.equal(ids.length, 12);
  for (const id of ids) assert.equal(runConfigSchema.safeParse({ ...minimal, task: id }).success, true, id);
  const { source } = parseYaml("run.yaml", `${stringify({ ...minimal, task: "juggle" })}`);
  const r = validateSource(source, runConfigSchema);
  assert.equal(r.ok, false);
  if (!r.ok) assert.match(r.issues[0]!.message, new RegExp(`expected one of ${ids.map((id) => `"${id}"`).join(", ")}, found string "juggle"`));
});

test("planner kind: learned by default, the renamed scripted kind says its new name, privileged oracles are named", () => {
  const minimal = "name: m\nrobot: robots/x-one.yaml\nbus: {kind: local}\nsim: {enabled: true}\ntask: cover-blocks\npolicy: {}\ncontrol: {}\nrecord: {}\n";
  const r = check("min.yaml", minimal, runConfigSchema);
  assert.ok(r.ok, errors(r).join("\n"));
  if (r.ok) assert.equal(r.value.policy.planner.kind, "learned");
  const scripted = minimal.replace("policy: {}", "policy: {planner: {kind: scripted}}");
  const e = errors(check("run.yaml", scripted, runConfigSchema));
  assert.equal(e.length, 1, e.join("\n"));
  assert.match(e[0]!, /policy\.planner\.kind: planner kind "scripted" is now "oracle-list": it walks the task's subtask list/);
  const unknown = errors(check("run.yaml", minimal.replace("policy: {}", "policy: {planner: {kind: gpt}}"), runConfigSchema));
  assert.match(unknown[0]!, /policy\.planner\.kind: expected one of "learned", "openai", "oracle-list", "oracle", "none", found string "gpt"/);
  for (const file of ["sim-x-one.yaml", "sim-franka.yaml", "x-one.yaml", "franka-droid.yaml", "sim-x-one-oracle.yaml"]) {
    const launch = check(file, readFileSync(join(REPO, "launch", file), "utf8"), runConfigSchema);
    assert.ok(launch.ok && !["oracle-list", "oracle"].includes(launch.value.policy.planner.kind), `${file}: a privileged default planner`);
  }
});
