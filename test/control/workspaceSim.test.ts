/**
 * The workspace box in twin episodes (real SimNode, episode loop, safety filter and output; see
 * faultSimRig.ts), for both shipped robots: a policy whose chunks drive one hand down through the
 * table top (below the box's z min) is stopped at the box's edge, then held, with events naming
 * the arm, the point and the box; no command and no measured pose ever leaves the box.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { WorkspaceExit } from "../../src/control/types.js";
import { forwardKinematicsOf } from "../../src/control/workspace.js";
import type { ActionChunk, Policy, PolicySpec } from "../../src/policy/types.js";
import type { RobotProfile } from "../../src/robot/types.js";
import type { EngramEvent } from "../../src/trial/eventLog.js";
import { runSimFault, type SimFaultResult } from "./faultSimRig.js";

const SIZE = { width: 32, height: 32 };

/**
 * Stands for a policy gone wrong: every chunk is `horizon` rows of one joint target (the measured
 * state with `patch` applied), which the safety filter's rate limit turns into a ramp toward it.
 */
type TestPolicy = Policy & { close(): Promise<void> };

function targetPolicy(spec: PolicySpec, layoutNames: string[], patch: Record<string, number>): TestPolicy {
  let state: Float64Array | null = null;
  return {
    spec,
    async reset() { state = null; },
    async resetSession() { state = null; },
    async observeDemonstration() {},
    async observe(obs) { state ??= Float64Array.from(obs.state); return { logit: -10, subtaskEnded: false }; },
    async act(): Promise<ActionChunk> {
      const row = Float64Array.from(layoutNames, (n, i) => patch[n] ?? state![i]!);
      const actions = new Float64Array(spec.horizon * row.length);
      for (let k = 0; k < spec.horizon; k++) actions.set(row, k * row.length);
      return { jointNames: [...layoutNames], actions, horizon: spec.horizon, dim: row.length };
    },
    setInstruction() {},
    async close() {},
  };
}

/** How far outside the box a hand is, m (0 when inside), for every arm. */
function outsideBy(profile: RobotProfile, positions: Record<string, number>): number {
  const fk = forwardKinematicsOf(profile)!;
  const { min, max } = profile.safety.workspace;
  let worst = 0;
  for (const ee of fk(positions)) {
    for (let i = 0; i < 3; i++) worst = Math.max(worst, min[i]! - ee.xyz[i]!, ee.xyz[i]! - max[i]!);
  }
  return worst;
}

const show = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === "bigint" ? String(x) : x));

const handZ = (r: SimFaultResult, arm: string, positions: Record<string, number>) =>
  forwardKinematicsOf(r.robot.profile)!(positions).find((e) => e.name === arm)!.xyz[2];

const CASES = [
  { robot: "robots/x-one.yaml", layout: "bimanual_16d", camera: "head", arm: "left", patch: { left_joint2: 1.6 } },
  { robot: "robots/franka-droid.yaml", layout: "joint_8d", camera: "wrist", arm: "arm", patch: { panda_joint2: 1.2 } },
];

for (const c of CASES) {
  test(`${c.robot}: a chunk driving the "${c.arm}" hand below the box stops at its edge, then holds`, async () => {
    const { loadRobotProfile } = await import("../../src/robot/loadRobotProfile.js");
    const profile = loadRobotProfile(c.robot).profile;
    const layout = profile.layouts[c.layout]!;
    const names = layout.kind === "joint" ? layout.names : [];
    const spec: PolicySpec = { name: "dives", cameras: [c.camera], imageSize: SIZE, layout: c.layout, horizon: 20 };
    const r = await runSimFault({ steps: 30, robot: c.robot, policy: targetPolicy(spec, names, c.patch) });
    const box = profile.safety.workspace;
    const trace = r.events.map((e) => `${e.event}:${String(e.reason ?? e.kind ?? "")}@${String(e.step)}`).join(" ");

    // The events name the arm, where its hand would have gone and the box.
    const isHold = (e: EngramEvent) => e.event === "safety_hold" && e.reason === "workspace";
    const isStop = (e: EngramEvent) => e.event === "safety_intervention" && e.kind === "workspace";
    const ws = r.events.filter((e) => isHold(e) || isStop(e));
    assert.ok(ws.length > 0, `expected a workspace intervention or hold, got ${trace}`);
    for (const e of ws) {
      const exit = e.workspace as WorkspaceExit;
      assert.equal(exit.arm, c.arm, show(e));
      assert.equal(exit.axis, "z", show(e));
      assert.ok(exit.point[2]! < box.min[2], `the reported point is below the box: ${show(e)}`);
      assert.deepEqual([exit.frame, exit.min, exit.max], [box.frame, box.min, box.max]);
    }
    assert.ok(r.events.some((e) => isStop(e) && e.joint === c.arm), `the first chunk stops at the edge: ${trace}`);
    assert.ok(r.events.some(isHold), `once at the edge the next chunk holds: ${trace}`);

    // Nothing the arm was told, and nowhere it went, lies outside the box.
    assert.ok(r.commands.length >= 1, "a chunk reached the arm");
    for (const cmd of r.commands) {
      for (const p of cmd.traj.points) {
        const q = { ...cmd.from };
        cmd.traj.joint_names.forEach((n, i) => { q[n] = p.positions[i]!; });
        assert.ok(outsideBy(profile, q) <= 1e-9, `a commanded point leaves the box by ${outsideBy(profile, q)} m`);
      }
    }
    for (const m of r.measured) {
      const by = outsideBy(profile, m.positions);
      assert.ok(by <= 1e-6, `the measured hand left the box by ${by} m`);
    }

    // The hand did go down to the edge (the chunk ran until it would leave the box).
    const z0 = handZ(r, c.arm, r.measured[0]!.positions), z1 = handZ(r, c.arm, r.measured.at(-1)!.positions);
    const moved = `hand z ${z0.toFixed(3)} → ${z1.toFixed(3)} m, box z min ${box.min[2]}`;
    assert.ok(z0 - z1 > 0.15 && z1 - box.min[2] < 0.1, moved);
  });
}

/** Stands for an end-effector policy: every chunk is `horizon` rows of the first observed pose moved by `offset`. */
function posePolicy(spec: PolicySpec, offset: number[]): TestPolicy {
  let state: Float64Array | null = null;
  const dims = ["x", "y", "z", "roll", "pitch", "yaw", "gripper"];
  return {
    spec,
    async reset() { state = null; },
    async resetSession() { state = null; },
    async observeDemonstration() {},
    async observe(obs) { state ??= Float64Array.from(obs.state); return { logit: -10, subtaskEnded: false }; },
    async act(): Promise<ActionChunk> {
      const row = Float64Array.from(dims, (_d, i) => state![i]! + (offset[i] ?? 0));
      const actions = new Float64Array(spec.horizon * dims.length);
      for (let k = 0; k < spec.horizon; k++) actions.set(row, k * dims.length);
      return { jointNames: [...dims], actions, horizon: spec.horizon, dim: dims.length };
    },
    setInstruction() {},
    async close() {},
  };
}

test("franka-droid pose interface: an e-stop hold commands the measured hand pose (FK), arm still", async () => {
  const ESTOP_STEP = 12, STEPS = 24;
  const spec: PolicySpec = { name: "lifts", cameras: ["wrist"], imageSize: SIZE, layout: "ee_7d", horizon: 10 };
  const r = await runSimFault({
    steps: STEPS, robot: "robots/franka-droid.yaml", policy: posePolicy(spec, [0.05, 0, 0.08]),
    patchProfile: (p) => ({ ...p, command: { ...p.command, interface: "pose" } }),
    bools: (step) => (step === ESTOP_STEP ? [{ topic: "/engram/estop", data: true }] : []),
  });
  const profile = r.robot.profile;
  const trace = r.events.map((e) => `${e.event}:${String(e.reason ?? e.kind ?? "")}@${String(e.step)}`).join(" ");
  const hold = r.events.find((e) => e.event === "safety_hold" && e.reason === "estop");
  assert.ok(hold, `expected an e-stop hold, got ${trace}`);
  const heldFromNs = r.startNs + BigInt((hold.step as number) + 1) * r.periodNs;
  const held = r.poses.filter((p) => p.atNs >= heldFromNs);
  const seen = `${held.length} after the e-stop of ${r.poses.length}`;
  assert.ok(held.length >= STEPS - ESTOP_STEP - 3, `hold ticks publish a pose target (${seen})`);

  const fk = forwardKinematicsOf(profile)!;
  for (const p of held) {
    const hand = fk(p.from)[0]!.xyz;
    const at = p.msg.pose.position;
    const off = Math.hypot(at.x - hand[0], at.y - hand[1], at.z - hand[2]);
    assert.ok(off < 1e-9, `held pose target ${show(at)} is ${off} m from the measured hand ${show(hand)}`);
    assert.equal(p.msg.header.frame_id, "panda_link0");
  }
  // The orientation held is the measured one too: the twin's IK of the target leaves the joints where they are.
  const still = movementAfter(r, heldFromNs + 2n * r.periodNs);
  assert.ok(still < 1e-6, `arm moved ${still} rad while held at its own pose`);
  // Before the e-stop the pose targets moved the hand up and forward (the pose interface ran).
  const z = (m: Record<string, number>) => fk(m)[0]!.xyz[2];
  const lifted = z(held[0]!.from) - z(r.measured[0]!.positions);
  assert.ok(lifted > 0.03, `hand rose ${lifted.toFixed(3)} m before the e-stop`);
});

/** Largest joint movement measured from `fromNs` to the end. */
function movementAfter(r: SimFaultResult, fromNs: bigint): number {
  const span = r.measured.filter((m) => m.atNs >= fromNs);
  let max = 0;
  for (const m of span) {
    for (const [n, v] of Object.entries(m.positions)) max = Math.max(max, Math.abs(v - span[0]!.positions[n]!));
  }
  return max;
}
