/**
 * Move Cube (RoboMME, Imitation) on the Franka: a cube on a start spot and a target 20 cm in front
 * of it. The demonstration moves the cube to the target in the drawn manner (picked and carried, or
 * pushed along the table by the open fingers), carries it back to its start and returns the arm
 * home. Execution: move it to the target the same way. Start scenes look alike for both manners.
 */
import type { ObjectId, SimWorldApi, Vec3 } from "../world/types.js";
import { PlanExpert, type ExpertOp, type PlannedSubtask } from "../expert/PlanExpert.js";
import { ReactiveGoalsExpert } from "../expert/ReactiveGoalsExpert.js";
import { homeOps, homePose } from "../expert/orientedOps.js";
import {
  armFor, gripWidths, moveObjectOps, pickOps, placeOps, TRAVEL_Z, type GripWidths,
} from "../expert/primitives.js";
import { PUSH } from "../expert/reactive.js";
import { TABLE_Z, distXy } from "./geometry.js";
import { BLOCK_HALF, COLORS, addBlock, addPatch, restsAt } from "./props.js";
import { WITHDRAWN_Z, released } from "./progress.js";
import { MOVE_CUBE, type MoveManner } from "../../task/move-cube.js";
import { defineTask, type TaskDefinition, type TaskScene } from "./types.js";

const REST_Z = TABLE_Z + BLOCK_HALF;
/** Cube on the target: centre within this of the target's, m. */
const ON_TARGET_TOL_M = 0.03;
/** Lifted: the cube's centre this far above its resting height; a push keeps it under NOT_LIFTED_M, m. */
const LIFTED_M = 0.03;
const NOT_LIFTED_M = 0.012;
/** The cube has left its start once this far from it, m. */
const LEFT_START_M = 0.03;

/** Scene state of Move Cube. */
export interface MoveCubeScene extends TaskScene {
  manner: MoveManner;
  start: Vec3;
  target: Vec3;
  cube: ObjectId;
  /** During execution: the cube's highest centre above its resting height, m, and whether it was ever held. */
  maxLiftM: number;
  /** Execution steps at which the cube first left its start and first was halfway, or null. */
  leftStartStep: number | null;
  halfwayStep: number | null;
}

/** The manner the cube has travelled in so far agrees with the demonstration's. */
function mannerKept(s: MoveCubeScene): boolean {
  return s.manner === "push" ? s.maxLiftM < NOT_LIFTED_M : s.maxLiftM >= LIFTED_M;
}

function atTarget(world: SimWorldApi, s: MoveCubeScene): boolean {
  return restsAt(world, s.cube, s.target, ON_TARGET_TOL_M, REST_Z) && released(world, [s.cube]) && mannerKept(s);
}

/** Slide the cube from where it rests to rest at `to` with the open fingers (PlanExpert ops). */
function pushOps(world: SimWorldApi, arm: string, cube: ObjectId, to: Vec3): ExpertOp[] {
  const p = world.objectPose(cube).position;
  const d = Math.max(1e-9, distXy(p, to));
  const ux = (to[0] - p[0]) / d, uy = (to[1] - p[1]) / d;
  const yawRad = ux >= 0 ? Math.atan2(uy, ux) : Math.atan2(-uy, -ux);
  const z = TABLE_Z + PUSH.heightM;
  const behind: Vec3 = [p[0] - ux * PUSH.approachM, p[1] - uy * PUSH.approachM, z];
  const end: Vec3 = [to[0] - ux * PUSH.contactM, to[1] - uy * PUSH.contactM, z];
  return [
    { kind: "gripper", arm, widthM: PUSH.widthM, minTicks: 3, maxTicks: 3 },
    { kind: "move", arm, to: [behind[0], behind[1], TRAVEL_Z], yawRad },
    { kind: "move", arm, to: behind, speedMps: 0.18, nearContact: true },
    { kind: "move", arm, to: end, speedMps: PUSH.speedMps, nearContact: true },
    { kind: "move", arm, to: [end[0] - ux * 0.02, end[1] - uy * 0.02, z], speedMps: PUSH.speedMps, nearContact: true },
    { kind: "move", arm, to: [end[0] - ux * 0.02, end[1] - uy * 0.02, TRAVEL_Z], speedMps: 0.18, nearContact: true },
  ];
}

function moveOps(world: SimWorldApi, s: MoveCubeScene, arm: string, to: Vec3, widths: GripWidths): ExpertOp[] {
  return s.manner === "push" ? pushOps(world, arm, s.cube, to) : moveObjectOps(world, arm, s.cube, to, widths);
}

/** The Move Cube task definition. */
export const moveCube = defineTask<MoveCubeScene>(MOVE_CUBE, {
  createScene(world, rng, robot) {
    const { dx, dy, manner } = MOVE_CUBE.draw(rng);
    const start: Vec3 = [0.40 + dx, dy, REST_Z];
    const target: Vec3 = [0.60 + dx, dy, REST_Z];
    addPatch(world, "start", start[0], start[1], 0.035, COLORS.mat);
    addPatch(world, "target", target[0], target[1], 0.04, COLORS.centre);
    const cube = addBlock(world, "cube", start[0], start[1], COLORS.blue);
    return {
      taskId: "move-cube", robot, step: 0, manner, start, target, cube,
      maxLiftM: 0, leftStartStep: null, halfwayStep: null,
    };
  },

  // Done once the hand has risen (a push ends with the fingers beside the cube, already "clear" of it).
  subtaskDone: (world, s, index) =>
    index === 0 && atTarget(world, s) && world.armNames.every((a) => world.graspPoint(a)[2] >= WITHDRAWN_Z),

  update(world, s) {
    const step = s.step++;
    const p = world.objectPose(s.cube).position;
    s.maxLiftM = Math.max(s.maxLiftM, p[2] - REST_Z);
    const left = distXy(p, s.start) > LEFT_START_M || p[2] - REST_Z >= LIFTED_M;
    if (s.leftStartStep === null && left) s.leftStartStep = step;
    if (s.halfwayStep === null && distXy(p, s.target) <= distXy(s.start, s.target) / 2) s.halfwayStep = step;
  },

  success: (world, s) => atTarget(world, s),

  predicates: {
    "moved-in-manner": (_w, s) => s.leftStartStep !== null && mannerKept(s),
    "halfway-in-manner": (_w, s) => s.halfwayStep !== null && mannerKept(s),
    "at-target-in-manner": (w, s) => atTarget(w, s),
  },

  // The video: the cube to the target in the scene's manner, carried back to its start, the arm home.
  demonstration(world, s, robot) {
    const widths = gripWidths(world, robot);
    const arm = armFor(world, 0);
    const home = homePose(world);
    const plan: PlannedSubtask[] = [
      { text: `demonstration: ${s.manner} the cube to the target`, ops: (w) => moveOps(w, s, arm, s.target, widths) },
      // Set down square (hand yaw 0): a push may have turned the cube, which would tell the manner.
      { text: "demonstration: carry the cube back to its start",
        ops: (w) => [
          ...pickOps(w, arm, s.cube, widths), ...placeOps(arm, s.start, widths, 0), ...homeOps(w, home, arm),
        ] },
    ];
    return new PlanExpert(world, plan, { controlHz: robot.control_hz });
  },

  expert(world, s, robot) {
    const widths = gripWidths(world, robot);
    const [text] = this.subtasks(s) as [string];
    const plan = [{ text, ops: (w: SimWorldApi) => moveOps(w, s, armFor(w, 0), s.target, widths) }];
    return new PlanExpert(world, plan, { controlHz: robot.control_hz });
  },

  reactiveExpert(world, s, robot) {
    const kind = s.manner === "push" ? "push" : "place";
    return new ReactiveGoalsExpert(world, robot, {
      arm: armFor(world, 0), texts: this.subtasks(s), controlHz: robot.control_hz,
      goals: () => [{ kind, object: s.cube, restCentre: s.target }],
      stage: (w) => (atTarget(w, s) ? 1 : 0),
    });
  },
});
