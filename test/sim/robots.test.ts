import { test } from "node:test";
import assert from "node:assert/strict";
import { DhChain } from "../../src/robot/kinematics/DhChain.js";
import { compose, fromPose, identity, quatOf, rotZ, rotX, rotationError, toPose, translation, translationOf } from "../../src/robot/kinematics/transform.js";
import { PANDA_READY, pandaArm } from "../../src/sim/robots/panda.js";
import { xOneArm } from "../../src/sim/robots/xOne.js";

const PANDA_LOWER = [-2.8973, -1.7628, -2.8973, -3.0718, -2.8973, -0.0175, -2.8973];
const PANDA_UPPER = [2.8973, 1.7628, 2.8973, -0.0698, 2.8973, 3.7525, 2.8973];
const panda = pandaArm("arm", PANDA_LOWER, PANDA_UPPER, identity());
const pandaChain = new DhChain(panda.kinematics, panda.baseInWorld);

function close(a: number[], b: number[], tol: number, what: string): void {
  a.forEach((v, i) => assert.ok(Math.abs(v - b[i]!) <= tol, `${what}[${i}] = ${v}, expected ${b[i]} ± ${tol}`));
}

test("Panda FK at zero: flange at (0.088, 0, 0.926), published values", () => {
  const fk = pandaChain.fk([0, 0, 0, 0, 0, 0, 0]);
  close(translationOf(fk.flange), [0.088, 0, 0.333 + 0.316 + 0.384 - 0.107], 1e-9, "flange");
});

test("Panda FK at the ready pose: TCP at (0.3069, 0, 0.4869) pointing down, as libfranka reports O_T_EE", () => {
  const fk = pandaChain.fk(PANDA_READY);
  close(translationOf(fk.flange), [0.30689, 0, 0.59028], 1e-4, "flange");
  close(translationOf(fk.tcp), [0.30689, 0, 0.48688], 1e-4, "tcp");
  const q = quatOf(fk.tcp);
  close(q.map(Math.abs), [1, 0, 0, 0], 1e-9, "tcp quaternion");
  // Link frames: joint 1 axis is world z, joint 2 origin at 0.333 m.
  close(translationOf(fk.links[1]!), [0, 0, 0.333], 1e-12, "link2 origin");
});

test("geometric Jacobian matches finite differences of FK (position and orientation)", () => {
  for (const [chain, q] of [[pandaChain, [0.3, -0.5, 0.2, -2.0, 0.4, 1.8, 0.6]], [new DhChain(xOneArm("left", PANDA_LOWER, PANDA_UPPER, translation(0, 0.3, 0.75)).kinematics, translation(0, 0.3, 0.75)), [-0.2, 0.4, -0.3, -1.5, 0.2, 1.2, -0.4]]] as const) {
    const J = chain.jacobian(q);
    const h = 1e-6;
    const base = chain.fk(q).tcp;
    for (let i = 0; i < 7; i++) {
      const qp = [...q]; qp[i]! += h;
      const moved = chain.fk(qp).tcp;
      const dp = translationOf(moved).map((v, k) => (v - translationOf(base)[k]!) / h);
      const dw = rotationError(moved, base).map((v) => v / h);
      close(dp, [J[i]!, J[7 + i]!, J[14 + i]!], 1e-5, `J linear col ${i}`);
      close(dw, [J[21 + i]!, J[28 + i]!, J[35 + i]!], 1e-5, `J angular col ${i}`);
    }
  }
});

test("transform helpers: quaternion round trip, compose with inverse rotation", () => {
  const t = compose(translation(0.1, -0.2, 0.3), compose(rotZ(0.7), rotX(2.9)));
  const p = toPose(t);
  const back = fromPose(p);
  close(Array.from(back), Array.from(t), 1e-12, "round trip");
  close(rotationError(t, t), [0, 0, 0], 1e-12, "zero error");
});

test("IK reaches reachable top-down targets within 1 mm / 0.01 rad and respects limits", () => {
  let reached = 0;
  for (let i = 0; i < 30; i++) {
    const yaw = -1 + (i % 5) * 0.4;
    const target = fromPose({ position: [0.35 + 0.25 * ((i * 7) % 10) / 10, -0.3 + 0.6 * ((i * 3) % 10) / 10, 0.05 + 0.25 * ((i * 11) % 10) / 10], quaternion: [Math.cos(yaw / 2), Math.sin(yaw / 2), 0, 0] });
    const r = pandaChain.solveIk(target, PANDA_READY);
    for (let k = 0; k < 7; k++) {
      assert.ok(r.positions[k]! >= PANDA_LOWER[k]! && r.positions[k]! <= PANDA_UPPER[k]!, `joint ${k + 1} = ${r.positions[k]} outside [${PANDA_LOWER[k]}, ${PANDA_UPPER[k]}]`);
    }
    if (r.ok) {
      reached++;
      const fk = pandaChain.fk(r.positions);
      assert.ok(Math.hypot(...translationOf(fk.tcp).map((v, k) => v - translationOf(target)[k]!)) <= 1e-3);
      assert.ok(Math.hypot(...rotationError(target, fk.tcp)) <= 0.01);
    }
  }
  assert.equal(reached, 30, `IK reached ${reached}/30 targets`);
});

test("IK on an unreachable target reports not ok with its residual, limits still respected", () => {
  const r = pandaChain.solveIk(fromPose({ position: [1.6, 0, 0.3], quaternion: [1, 0, 0, 0] }), PANDA_READY, { maxIterations: 100 });
  assert.equal(r.ok, false);
  assert.ok(r.positionErrorM > 0.5, `residual ${r.positionErrorM}`);
  r.positions.forEach((v, k) => assert.ok(v >= PANDA_LOWER[k]! && v <= PANDA_UPPER[k]!));
});

test("IK respects a tight joint limit by finding another solution or reporting failure", () => {
  const lower = [...PANDA_LOWER]; const upper = [...PANDA_UPPER];
  lower[0] = -0.1; upper[0] = 0.1; // joint 1 nearly locked
  const m = pandaArm("arm", lower, upper, identity());
  const c = new DhChain(m.kinematics, m.baseInWorld);
  const r = c.solveIk(fromPose({ position: [0.4, 0.3, 0.2], quaternion: [1, 0, 0, 0] }), PANDA_READY);
  assert.ok(r.positions[0]! >= -0.1 && r.positions[0]! <= 0.1, `joint 1 = ${r.positions[0]}`);
});
