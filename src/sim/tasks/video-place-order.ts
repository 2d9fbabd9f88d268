/**
 * Video Place Order (RoboMME, Reference) on the Franka: four identical grey targets around a start
 * spot; the demonstration carries the cube onto three of them in turn and back to the start, then
 * the arm returns home. Execution: place the cube on the target of the asked visit (first, second
 * or third). The targets look alike, so which one the cube visited at that ordinal is only in the video.
 */
import type { ObjectId, SimWorldApi, Vec3 } from "../world/types.js";
import { PlanExpert, type PlannedSubtask } from "../expert/PlanExpert.js";
import { ReactiveGoalsExpert } from "../expert/ReactiveGoalsExpert.js";
import { homeOps, homePose } from "../expert/orientedOps.js";
import { armFor, gripWidths, moveObjectOps } from "../expert/primitives.js";
import { TABLE_Z, distXy } from "./geometry.js";
import { BLOCK_HALF, COLORS, addBlock, addPatch, restsAt } from "./props.js";
import { letGo, released } from "./progress.js";
import { VIDEO_PLACE_ORDER, type VideoPlaceOrderGoal } from "../../task/video-place-order.js";
import { defineTask, type TaskDefinition, type TaskScene } from "./types.js";

/** Cube on a target: centre within this of the target's centre, m. */
const ON_TARGET_TOL_M = 0.03;
/** The held cube is over a target when within this horizontally, m. */
const OVER_TOL_M = 0.03;
/** The cube has been picked once it is this far above its resting height, m. */
const LIFTED_M = 0.03;
const REST_Z = TABLE_Z + BLOCK_HALF;

/** Scene state of Video Place Order. */
export interface VideoPlaceOrderScene extends TaskScene, VideoPlaceOrderGoal {
  targets: Vec3[];
  start: Vec3;
  /** Indices into targets, in the order the demonstration visits them. */
  visits: number[];
  cube: ObjectId;
  /** Execution steps at which the cube was first lifted and first carried over the asked target, or null. */
  pickedStep: number | null;
  overRecalledStep: number | null;
}

/** The target the instruction asks for: the one the demonstration visited at the ordinal. */
function recalled(s: VideoPlaceOrderScene): Vec3 {
  return s.targets[s.visits[s.ordinal]!]!;
}

function placedOnRecalled(world: SimWorldApi, s: VideoPlaceOrderScene): boolean {
  return restsAt(world, s.cube, recalled(s), ON_TARGET_TOL_M, REST_Z) && released(world, [s.cube]);
}

/** The Video Place Order task definition. */
export const videoPlaceOrder = defineTask<VideoPlaceOrderScene>(VIDEO_PLACE_ORDER, {
  createScene(world, rng, robot) {
    const { dx, dy, colour, visits, ordinal } = VIDEO_PLACE_ORDER.draw(rng);
    const targets: Vec3[] = [[0.40, 0.2], [0.62, 0.2], [0.40, -0.2], [0.62, -0.2]]
      .map(([x, y]) => [x! + dx, y! + dy, REST_Z]);
    targets.forEach((t, i) => addPatch(world, `target_${i}`, t[0], t[1], 0.045, COLORS.mat));
    const start: Vec3 = [0.51 + dx, dy, REST_Z];
    addPatch(world, "start", start[0], start[1], 0.035, COLORS.lid);
    const cube = addBlock(world, `${colour}_cube`, start[0], start[1], COLORS[colour]);
    return {
      taskId: "video-place-order", robot, step: 0, colour, ordinal, targets, start, visits, cube,
      pickedStep: null, overRecalledStep: null,
    };
  },

  subtaskDone: (world, s, index) => index === 0 && placedOnRecalled(world, s) && letGo(world, s.cube),

  update(world, s) {
    const step = s.step++;
    const p = world.objectPose(s.cube).position;
    const held = world.armNames.some((a) => world.heldObject(a) === s.cube);
    if (s.pickedStep === null && held && p[2] > REST_Z + LIFTED_M) s.pickedStep = step;
    if (s.overRecalledStep === null && held && distXy(p, recalled(s)) <= OVER_TOL_M) s.overRecalledStep = step;
  },

  success: (world, s) => placedOnRecalled(world, s),

  predicates: {
    "cube-picked": (_w, s) => s.pickedStep !== null,
    "over-recalled-target": (_w, s) => s.overRecalledStep !== null,
    "placed-on-recalled": (w, s) => placedOnRecalled(w, s),
  },

  // The video: the cube onto each visited target in turn, back to its start, the arm home.
  demonstration(world, s, robot) {
    const widths = gripWidths(world, robot);
    const arm = armFor(world, 0);
    const home = homePose(world);
    const plan: PlannedSubtask[] = s.visits.map((v, i) => ({
      text: `demonstration: place the cube on target ${i + 1} of the video`,
      ops: (w: SimWorldApi) => moveObjectOps(w, arm, s.cube, s.targets[v]!, widths),
    }));
    plan.push({ text: "demonstration: bring the cube back to its start",
      ops: (w) => [...moveObjectOps(w, arm, s.cube, s.start, widths), ...homeOps(w, home, arm)] });
    return new PlanExpert(world, plan, { controlHz: robot.control_hz });
  },

  expert(world, s, robot) {
    const widths = gripWidths(world, robot);
    const [text] = this.subtasks(s) as [string];
    return new PlanExpert(world, [
      { text, ops: (w) => moveObjectOps(w, armFor(w, 0), s.cube, recalled(s), widths) },
    ], { controlHz: robot.control_hz });
  },

  reactiveExpert(world, s, robot) {
    return new ReactiveGoalsExpert(world, robot, {
      arm: armFor(world, 0), texts: this.subtasks(s), controlHz: robot.control_hz,
      goals: () => [{ kind: "place", object: s.cube, restCentre: recalled(s) }],
      stage: (w) => (placedOnRecalled(w, s) ? 1 : 0),
    });
  },
});
