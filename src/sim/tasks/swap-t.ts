/**
 * Swap T (RMBench, M(1)): a red and a blue T-block lie side by side, each at a random yaw. Swap
 * their poses, position and orientation: the red T ends where the blue one started, turned the way
 * the blue one was, and the other way round. Both are lifted and carried back to the arms' home
 * poses first, so while they are in the air the table is empty and the hands hold them in the same
 * way whatever their starting poses were: both starting poses must be remembered.
 */
import type { ObjectId, Quat, SimWorldApi, Vec3 } from "../world/types.js";
import { PlanExpert, type ExpertOp } from "../expert/PlanExpert.js";
import { gripWidths, pickOps, placeOps } from "../expert/primitives.js";
import { homeOps, homePose, turnOps } from "../expert/orientedOps.js";
import { TABLE_Z, distXy, wrapAngle, yawOf, yawQuat } from "./geometry.js";
import { armHome, handsClear, letGo, released } from "./progress.js";
import { SWAP_T } from "../../task/swap-t.js";
import { defineTask, type TaskDefinition, type TaskScene } from "./types.js";

/** T-block pieces: the stem (the body's origin, where it is grasped) and the bar across its end. */
const STEM_HALF: Vec3 = [0.016, 0.035, 0.018];
const BAR_HALF: Vec3 = [0.055, 0.016, 0.018];
const BAR_OFFSET: Vec3 = [0, STEM_HALF[1] + BAR_HALF[1], 0];
const REST_Z = TABLE_Z + STEM_HALF[2];
/** RMBench's tolerances: position within 2.5 cm, orientation within 15 degrees. */
const POS_TOL_M = 0.025;
const YAW_TOL_RAD = (15 * Math.PI) / 180;
/** A held T-block is "up" once this far above its resting height, m. */
const UP_M = 0.05;
/** Hands back home: grasp point within this of the home position, m. */
const HOME_TOL_M = 0.02;

/** Scene state of Swap T. */
export interface SwapTScene extends TaskScene {
  red: ObjectId;
  blue: ObjectId;
  /** Starting positions (resting centres) and yaws of the red and blue T-blocks. */
  redStart: { position: Vec3; yawRad: number };
  blueStart: { position: Vec3; yawRad: number };
  /** Grasp-point positions of the arms at home (at scene creation). */
  home: Record<string, Vec3>;
  bothUpStep: number | null;
}

function addT(world: SimWorldApi, name: string, position: Vec3, yawRad: number, color: Vec3): ObjectId {
  const shade = color.map((c) => Math.round(c * 0.8)) as Vec3;
  return world.addObject({
    name, body: "dynamic", color, massKg: 0.06, friction: 0.9,
    shape: { kind: "box", halfExtents: STEM_HALF }, pose: { position, quaternion: yawQuat(yawRad) },
    parts: [{ shape: { kind: "box", halfExtents: BAR_HALF }, offset: BAR_OFFSET, color: shade }],
  });
}

/** True when the T-block rests, let go, at `pose` within RMBench's tolerances. */
function restsAtPose(world: SimWorldApi, id: ObjectId, pose: { position: Vec3; yawRad: number }): boolean {
  const p = world.objectPose(id);
  return distXy(p.position, pose.position) <= POS_TOL_M && Math.abs(p.position[2] - REST_Z) <= 0.01
    && Math.abs(wrapAngle(yawOf(p.quaternion) - pose.yawRad)) <= YAW_TOL_RAD && released(world, [id]);
}

function up(world: SimWorldApi, id: ObjectId): boolean {
  return !released(world, [id]) && world.objectPose(id).position[2] >= REST_Z + UP_M;
}

function swapped(world: SimWorldApi, s: SwapTScene): boolean {
  return restsAtPose(world, s.red, s.blueStart) && restsAtPose(world, s.blue, s.redStart);
}

/** The Swap T task definition. */
export const swapT = defineTask<SwapTScene>(SWAP_T, {
  createScene(world, rng, robot) {
    const dx = rng.int(-2, 2) / 100, dy = rng.int(-2, 2) / 100;
    const redStart = { position: [0.48 + dx, 0.1 + dy, REST_Z] as Vec3, yawRad: rng.uniform(-0.6, 0.6) };
    const blueStart = { position: [0.48 + dx, -0.1 + dy, REST_Z] as Vec3, yawRad: rng.uniform(-0.6, 0.6) };
    const red = addT(world, "red_t_block", redStart.position, redStart.yawRad, [220, 40, 40]);
    const blue = addT(world, "blue_t_block", blueStart.position, blueStart.yawRad, [40, 80, 220]);
    const home = Object.fromEntries(world.armNames.map((a) => [a, world.graspPoint(a)]));
    return { taskId: "swap-t", robot, step: 0, red, blue, redStart, blueStart, home, bothUpStep: null };
  },

  subtaskDone(world, s, index) {
    switch (index) {
      // Both held up in the air and both hands back home.
      case 0: return up(world, s.red) && up(world, s.blue) && world.armNames.every((a) => armHome(world, s.home, a, HOME_TOL_M));
      case 1: return restsAtPose(world, s.red, s.blueStart) && letGo(world, s.red);
      case 2: return restsAtPose(world, s.blue, s.redStart) && letGo(world, s.blue) && handsClear(world, [s.redStart.position, s.blueStart.position]);
      default: return false;
    }
  },

  update(world, s) {
    const step = s.step++;
    if (s.bothUpStep === null && up(world, s.red) && up(world, s.blue)) s.bothUpStep = step;
  },

  success: (world, s) => swapped(world, s),

  predicates: {
    "both-lifted": (_w, s) => s.bothUpStep !== null,
    "red-at-blue-pose": (w, s) => s.bothUpStep !== null && restsAtPose(w, s.red, s.blueStart),
    "swapped": (w, s) => s.bothUpStep !== null && swapped(w, s),
  },

  expert(world, s, robot) {
    const widths = gripWidths(world, robot);
    const home = homePose(world);
    const [t1, t2, t3] = this.subtasks(s) as [string, string, string];
    // Each arm keeps its own T: left the red one (starts at +y), right the blue one.
    const grasps = new Map<ObjectId, { graspYaw: number; objectYaw: number }>();
    const pick = (w: SimWorldApi, arm: string, id: ObjectId, goalYaw: number): ExpertOp[] => {
      const q: Quat = w.objectPose(id).quaternion;
      const objectYaw = yawOf(q);
      // Fingers across the stem: the grasp yaw is the T's yaw + 90 degrees, turned by 180 degrees
      // where that keeps both the grasp and the placing yaw small (the wrist's range).
      const turn = goalYaw - objectYaw;
      const base = wrapAngle(objectYaw + Math.PI / 2);
      const graspYaw = [base, base - Math.PI, base + Math.PI].reduce((a, b) => (Math.max(Math.abs(a), Math.abs(a + turn)) <= Math.max(Math.abs(b), Math.abs(b + turn)) ? a : b));
      grasps.set(id, { graspYaw, objectYaw });
      return pickOps(w, arm, id, widths, graspYaw);
    };
    const place = (arm: string, id: ObjectId, goal: { position: Vec3; yawRad: number }): ExpertOp[] => {
      // Turned at home (yaw 0 there) to the yaw that puts the T at the goal's yaw, then placed.
      const g = grasps.get(id)!;
      const yaw = g.graspYaw + (goal.yawRad - g.objectYaw);
      return [...turnOps(arm, home.grasp[arm]!, 0, yaw), ...placeOps(arm, goal.position, widths, yaw)];
    };
    return new PlanExpert(world, [
      { text: t1, ops: (w) => [
        ...pick(w, "left", s.red, s.blueStart.yawRad), ...homeOps(world, home, "left"),
        ...pick(w, "right", s.blue, s.redStart.yawRad), ...homeOps(world, home, "right"),
      ] },
      { text: t2, ops: () => place("left", s.red, s.blueStart) },
      { text: t3, ops: () => [...homeOps(world, home, "left"), ...place("right", s.blue, s.redStart)] },
    ], { controlHz: robot.control_hz });
  },
});
