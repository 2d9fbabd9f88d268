import assert from "node:assert/strict";
import { test } from "node:test";
import { SafetyFilter } from "../../src/control/safetyFilter.js";
import type { JointPositions } from "../../src/control/types.js";
import type { ActionChunk } from "../../src/policy/types.js";
import { assertRowSafe } from "./assertSafe.js";
import { X_ONE_16D, frankaProfile, xOneProfile } from "./profiles.js";

const profile = xOneProfile();
const layout = profile.layouts["bimanual_16d"]!;
const home: JointPositions = Object.fromEntries(X_ONE_16D.map((n) => [n, 0]));
const D = 16;

function chunkOf(rows: number[][], names = X_ONE_16D): ActionChunk {
  return { jointNames: names, actions: Float64Array.from(rows.flat()), horizon: rows.length, dim: names.length };
}
const row = (f: (i: number) => number) => Array.from({ length: D }, (_, i) => f(i));

test("limits resolve from the profile: max_step_rad vs velocity_limit / control_hz", () => {
  const f = new SafetyFilter({ profile, layout });
  const j1 = f.limits.find((l) => l.name === "left_joint1")!;
  const j7 = f.limits.find((l) => l.name === "left_joint7")!;
  const g = f.limits.find((l) => l.name === "left_gripper")!;
  assert.deepEqual([j1.maxStep, j1.stepKind], [0.2, "step_limit"]);            // 3.0/10 = 0.3 > 0.2
  assert.deepEqual([j7.maxStep, j7.stepKind], [0.1, "velocity_limit"]);        // 1.0/10 = 0.1 < 0.2
  assert.deepEqual([g.maxStep, g.stepKind, g.rangeKind], [0.01, "gripper_rate", "gripper_range"]); // 0.1/10 < 0.02
  // 20 Hz halves the velocity bound
  assert.equal(new SafetyFilter({ profile, layout, controlHz: 20 }).limits.find((l) => l.name === "left_joint7")!.maxStep, 0.05);
});

test("checkChunk table: pass, clamp, and whole-chunk holds", () => {
  const f = new SafetyFilter({ profile, layout });
  const cases: Array<{ name: string; chunk: ActionChunk; kind: string; reason?: string; interventions?: string[] }> = [
    { name: "in range", chunk: chunkOf([row(() => 0.05), row(() => 0.045)]), kind: "pass" },
    { name: "above joint limit", chunk: chunkOf([row((i) => (i === 0 ? 3.0 : 0))]), kind: "clamped", interventions: ["position_limit|left_joint1"] },
    { name: "gripper below range", chunk: chunkOf([row((i) => (i === 7 ? -0.5 : 0))]), kind: "clamped", interventions: ["gripper_range|left_gripper"] },
    { name: "NaN", chunk: chunkOf([row(() => 0), row((i) => (i === 3 ? NaN : 0))]), kind: "hold", reason: "non_finite" },
    { name: "Inf", chunk: chunkOf([row((i) => (i === 15 ? -Infinity : 0))]), kind: "hold", reason: "non_finite" },
    { name: "short row", chunk: { ...chunkOf([row(() => 0)]), actions: new Float64Array(15) }, kind: "hold", reason: "wrong_length" },
    { name: "15-D chunk", chunk: chunkOf([row(() => 0).slice(1)], X_ONE_16D.slice(1)), kind: "hold", reason: "wrong_length" },
    { name: "unknown joint", chunk: chunkOf([row(() => 0)], [...X_ONE_16D.slice(1), "elbow"]), kind: "hold", reason: "unknown_joint" },
    { name: "repeated joint", chunk: chunkOf([row(() => 0)], [...X_ONE_16D.slice(1), "left_joint2"]), kind: "hold", reason: "wrong_joints" },
  ];
  for (const c of cases) {
    const v = f.checkChunk(c.chunk);
    assert.equal(v.kind, c.kind, c.name);
    if (v.kind === "hold") assert.equal(v.reason, c.reason, c.name);
    if (v.kind === "clamped") assert.deepEqual(v.interventions.map((i) => `${i.kind}|${i.joint}`), c.interventions, c.name);
    if (v.kind !== "hold") for (let k = 0; k < v.command.horizon; k++) assertRowSafe(f.limits, v.command.jointNames, v.command.actions.subarray(k * D, (k + 1) * D));
  }
});

test("NaN hold names every offending value (step, joint, value)", () => {
  const f = new SafetyFilter({ profile, layout });
  const v = f.checkChunk(chunkOf([row(() => 0), row((i) => (i === 2 ? NaN : i === 9 ? Infinity : 0))]));
  assert.equal(v.kind, "hold");
  assert.ok(v.kind === "hold");
  assert.deepEqual(v.values, [{ step: 1, joint: "left_joint3", value: "NaN" }, { step: 1, joint: "right_joint2", value: "Infinity" }]);
  assert.match(v.details, /2 non-finite .* step 1 joint "left_joint3"/);
});

test("chunk clamps merge per joint and kind, keeping the worst value", () => {
  const f = new SafetyFilter({ profile, layout });
  const v = f.checkChunk(chunkOf([row((i) => (i === 0 ? 2.7 : 0)), row((i) => (i === 0 ? 9 : 0)), row((i) => (i === 0 ? 3 : 0))]));
  assert.ok(v.kind === "clamped");
  assert.deepEqual(v.interventions, [{ kind: "position_limit", joint: "left_joint1", requested: 9, applied: 2.5, limit: 2.5, step: 0, count: 3 }]);
});

test("checkChunk with a start position ramps row 0 from it and rate-limits every row", () => {
  const f = new SafetyFilter({ profile, layout });
  const target = row((i) => (i % 8 === 7 ? 0.08 : 2.0)); // far from home: needs many ticks
  const v = f.checkChunk(chunkOf(Array.from({ length: 30 }, () => target)), home);
  assert.ok(v.kind === "clamped");
  let prev: Float64Array = Float64Array.from(X_ONE_16D, (n) => home[n]!);
  for (let k = 0; k < 30; k++) {
    const r = v.command.actions.subarray(k * D, (k + 1) * D);
    assertRowSafe(f.limits, X_ONE_16D, r, prev);
    prev = r;
  }
  assert.equal(v.command.actions[0], 0.2);             // joint1: one max step from 0
  assert.equal(v.command.actions[6], 0.1);             // joint7: one velocity step from 0
  assert.ok(Math.abs(v.command.actions[29 * D]! - 2.0) < 1e-12); // reached after 10 ticks, stays
  assert.deepEqual(v.interventions.map((i) => i.kind).sort().filter((k, i, a) => a.indexOf(k) === i), ["gripper_rate", "step_limit", "velocity_limit"]);
});

test("checkStep: first command ramps from measured, later ones from the last command, and again after a hold", () => {
  const f = new SafetyFilter({ profile, layout });
  const measured: JointPositions = { ...home, left_joint1: 1.0 };
  const far = { jointNames: X_ONE_16D, positions: Float64Array.from(row(() => 0)) };
  far.positions[0] = -1.0;
  const v1 = f.checkStep(far, measured);
  assert.ok(v1.kind === "clamped");
  assert.ok(Math.abs(v1.command.positions[0]! - 0.8) < 1e-12);     // 1.0 - 0.2
  const v2 = f.checkStep(far, measured);
  assert.ok(v2.kind === "clamped");
  assert.ok(Math.abs(v2.command.positions[0]! - 0.6) < 1e-12);     // continues from the last command, not measured
  f.noteHold();
  const v3 = f.checkStep(far, { ...measured, left_joint1: 0.7 });
  assert.ok(v3.kind === "clamped");
  assert.ok(Math.abs(v3.command.positions[0]! - 0.5) < 1e-12);     // ramps from the new measured value
  // a bad step holds and the next good one ramps from measured again
  const bad = { jointNames: X_ONE_16D, positions: Float64Array.from(row(() => NaN)) };
  assert.equal(f.checkStep(bad, measured).kind, "hold");
  assert.equal(f.lastCommand(), null);
  const v4 = f.checkStep(far, { ...measured, left_joint1: 0.0 });
  assert.ok(v4.kind === "clamped");
  assert.ok(Math.abs(v4.command.positions[0]! + 0.2) < 1e-12);
});

test("a chunk checked from the measured position restarts checkStep's reference there", () => {
  const f = new SafetyFilter({ profile, layout });
  const at = (x: number) => ({ jointNames: X_ONE_16D, positions: Float64Array.from(row((i) => (i === 0 ? x : 0))) });
  for (const x of [0.2, 0.4, 0.6]) f.checkStep(at(x), home);       // last command: joint1 = 0.6
  const measured = { ...home, left_joint1: 0.3 };                   // the arm lags behind
  const v = f.checkChunk(chunkOf([at(0.35).positions, at(0.45).positions].map((r) => [...r])), measured);
  assert.equal(v.kind, "pass");
  const s = f.checkStep(at(0.35), measured);                        // row 0 vs measured 0.3, not vs 0.6
  assert.equal(s.kind, "pass", JSON.stringify(s));
  // without a start position the reference is kept
  const g = new SafetyFilter({ profile, layout });
  g.checkStep(at(0.2), home);
  g.checkChunk(chunkOf([[...at(0.9).positions]]));
  const c = g.checkStep(at(0.9), home);
  assert.ok(c.kind === "clamped" && Math.abs(c.command.positions[0]! - 0.4) < 1e-12);
});

test("checkStep without any measured position to ramp from holds", () => {
  const f = new SafetyFilter({ profile, layout });
  const v = f.checkStep({ jointNames: X_ONE_16D, positions: new Float64Array(D) });
  assert.ok(v.kind === "hold" && v.reason === "stale");
  const partial = f.checkStep({ jointNames: X_ONE_16D, positions: new Float64Array(D) }, { left_joint1: 0 });
  assert.ok(partial.kind === "hold" && /left_joint2/.test(partial.details));
});

test("velocity limit: the slow joint moves at most velocity_limit / control_hz per tick", () => {
  const f = new SafetyFilter({ profile, layout });
  const target = { jointNames: X_ONE_16D, positions: Float64Array.from(row((i) => (i === 6 ? 1.0 : 0))) };
  const seen: number[] = [];
  for (let t = 0; t < 12; t++) {
    const v = f.checkStep(target, home);
    assert.notEqual(v.kind, "hold");
    if (v.kind !== "hold") seen.push(v.command.positions[6]!);
  }
  assert.deepEqual(seen.map((x) => Math.round(x * 1000) / 1000), [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1, 1]);
});

test("random chunks (seeded): every command the filter lets through is within limits and step bounds", () => {
  const f = new SafetyFilter({ profile, layout });
  let s = 12345;
  const rnd = () => ((s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  let prev: Float64Array | null = null;
  let measured = home;
  for (let t = 0; t < 300; t++) {
    const positions = Float64Array.from(row(() => (rnd() - 0.5) * 12));
    if (rnd() < 0.05) positions[Math.floor(rnd() * D)] = NaN;
    const v = f.checkStep({ jointNames: X_ONE_16D, positions }, measured);
    if (v.kind === "hold") { prev = null; continue; }
    assertRowSafe(f.limits, X_ONE_16D, v.command.positions, prev ?? Float64Array.from(X_ONE_16D, (n) => measured[n]!));
    prev = v.command.positions;
    measured = Object.fromEntries(X_ONE_16D.map((n, i) => [n, prev![i]!]));
  }
});

test("end-effector layout: workspace box clamps x/y/z, gripper range and rate, rotation free", () => {
  const fp = frankaProfile();
  const f = new SafetyFilter({ profile: fp, layout: fp.layouts["ee_7d"]! });
  const dims = ["x", "y", "z", "roll", "pitch", "yaw", "gripper"];
  const v = f.checkChunk({ jointNames: dims, actions: Float64Array.of(1.5, 0, -0.2, 3.0, 0.2, -3.0, 0.5), horizon: 1, dim: 7 }, { panda_finger_joint1: 0.04 });
  assert.ok(v.kind === "clamped");
  assert.deepEqual([...v.command.actions], [0.8, 0, 0.05, 3.0, 0.2, -3.0, 0.04 + 0.1 / 15]);
  assert.deepEqual(v.interventions.map((i) => `${i.kind}|${i.joint}`), ["workspace|x", "workspace|z", "gripper_range|gripper", "gripper_rate|gripper"]);
  assert.throws(() => new SafetyFilter({ profile: { ...fp, safety: { ...fp.safety, workspace: { ...fp.safety.workspace, frame: "world" } } }, layout: fp.layouts["ee_7d"]! }), /workspace.frame "world" differs/);
});

test("end-effector layout: per-tick translation and rotation bounds (rotation modulo 2π), ramp from FK pose", () => {
  const fp = frankaProfile();
  const dims = ["x", "y", "z", "roll", "pitch", "yaw", "gripper"];
  const f = new SafetyFilter({ profile: fp, layout: fp.layouts["ee_7d"]!, eeStep: { maxStepM: 0.02 } });
  const cmd = (...v: number[]) => ({ jointNames: dims, positions: Float64Array.from(v) });
  const grip = { panda_finger_joint1: 0.04 };
  assert.equal(f.checkStep(cmd(0.5, 0, 0.4, Math.PI, 0, 3.1, 0.04), grip).kind, "pass");      // no FK: first target only boxed
  const table: Array<[number[], number[], string[]]> = [
    [[0.5, 0, 0.4, Math.PI, 0, -3.1, 0.04], [0.5, 0, 0.4, Math.PI, 0, -3.1, 0.04], []],         // yaw 3.1 → -3.1 is a 0.083 rad turn
    [[0.7, 0, 0.4, Math.PI, 0, -3.1, 0.04], [0.52, 0, 0.4, Math.PI, 0, -3.1, 0.04], ["step_limit|x"]],
    [[0.52, 0, 0.4, Math.PI, 0, 2.0, 0.04], [0.52, 0, 0.4, Math.PI, 0, -3.2 + 2 * Math.PI, 0.04], ["step_limit|yaw"]],  // shortest way from -3.1 to 2.0 is down: -3.2, wrapped
  ];
  for (const [req, want, kinds] of table) {
    const v = f.checkStep(cmd(...req), grip);
    assert.notEqual(v.kind, "hold");
    if (v.kind === "hold") continue;
    want.forEach((w, i) => assert.ok(Math.abs(v.command.positions[i]! - w) < 1e-9, `${dims[i]} ${v.command.positions[i]} vs ${w}`));
    assert.deepEqual(v.kind === "clamped" ? v.interventions.map((x) => `${x.kind}|${x.joint}`) : [], kinds);
  }
  // With FK the first target after a hold ramps from the measured hand pose.
  const g = new SafetyFilter({ profile: fp, layout: fp.layouts["ee_7d"]!, measuredPose: () => [0.4, 0, 0.3, Math.PI, 0, 0] });
  const v = g.checkStep(cmd(0.6, 0, 0.3, Math.PI, 0, 0, 0.04), grip);
  assert.ok(v.kind === "clamped" && Math.abs(v.command.positions[0]! - 0.45) < 1e-12);
});

test("joint layout with forward kinematics: a target outside the workspace holds", () => {
  const fp = frankaProfile();
  // Toy FK standing in for the arm model: x grows with joint 2.
  const fk = (q: JointPositions) => [{ name: "arm", xyz: [0.3 + (q["panda_joint2"] ?? 0), 0, 0.4] as [number, number, number] }];
  const f = new SafetyFilter({ profile: fp, layout: fp.layouts["joint_8d"]!, forwardKinematics: fk });
  const names = fp.layouts["joint_8d"]!.kind === "joint" ? fp.layouts["joint_8d"]!.names : [];
  const at = (j2: number) => ({ jointNames: names, positions: Float64Array.of(0, j2, 0, -1, 0, 1, 0, 0.04) });
  const measured = Object.fromEntries(names.map((n, i) => [n, at(0.4).positions[i]!]));
  assert.equal(f.checkStep(at(0.45), measured).kind, "pass");
  const v = f.checkStep(at(0.55), measured);
  assert.ok(v.kind === "hold" && v.reason === "workspace", JSON.stringify(v));
  assert.match(v.details, /x=0\.850 m is outside the workspace \[0\.2, 0\.8\]/);
});

test("construction errors name the joint and profile", () => {
  assert.throws(() => new SafetyFilter({ profile, layout: { kind: "joint", names: ["left_joint1", "nope"] } }), /layout joint "nope" is not in robot.joints .*\[robot=x-one-test\]/);
  assert.throws(() => new SafetyFilter({ profile, layout, controlHz: 0 }), /control_hz 0/);
});
