/**
 * Observe and Pick Up (RMBench, M(1)): a target object stands on a shelf behind five look-alike
 * objects on the table; after a few seconds a screen drops over the shelf. Pick up the object that
 * was shown and lift it. Once the screen is down nothing in view tells which one it was.
 * NOTE: RMBench uses five random meshes and a sample of the target on the shelf; the twin's objects
 * are five same-size blocks that differ only in colour, and the screen is a box lowered over the shelf.
 */
import type { ObjectId, SimWorldApi, Vec3 } from "../world/types.js";
import { PlanExpert } from "../expert/PlanExpert.js";
import { armFor, gripWidths, pickOps } from "../expert/primitives.js";
import { TABLE_Z, at } from "./geometry.js";
import { BLOCK_HALF, addBlock } from "./props.js";
import { OBSERVE_AND_PICK_UP } from "../../task/observe-and-pick-up.js";
import { defineTask, type TaskDefinition, type TaskScene } from "./types.js";

/** The five look-alike colours (distinct under flat shading). */
export const OBJECT_COLOURS: Record<string, Vec3> = {
  red: [220, 40, 40], green: [40, 180, 60], blue: [40, 80, 220], yellow: [230, 200, 40], purple: [150, 60, 190],
};
const REST_Z = TABLE_Z + BLOCK_HALF;
/** The target counts as lifted once its centre is this far above its resting height, m. */
export const LIFTED_M = 0.13;
/** Sim seconds the target is shown before the screen drops. */
export const SHOW_S = 2;
const SHELF_HALF: Vec3 = [0.04, 0.05, 0.025];
const SCREEN_HALF: Vec3 = [0.05, 0.06, 0.035];

/** Scene state of Observe and Pick Up. */
export interface ObserveAndPickUpScene extends TaskScene {
  /** Table objects left (+y) to right, with their colour names. */
  objects: { id: ObjectId; colour: string }[];
  /** Index into objects of the target. */
  target: number;
  /** Resting centre of each object at the start. */
  spots: Vec3[];
  shelfTop: Vec3;
  screen: ObjectId | null;
  /** First object grasped (its index), or null. */
  firstGrasped: number | null;
}

function lifted(world: SimWorldApi, s: ObserveAndPickUpScene, i: number): boolean {
  const held = world.armNames.some((a) => world.heldObject(a) === s.objects[i]!.id);
  return held && world.objectPose(s.objects[i]!.id).position[2] >= REST_Z + LIFTED_M;
}

/** The Observe and Pick Up task definition. */
export const observeAndPickUp = defineTask<ObserveAndPickUpScene>(OBSERVE_AND_PICK_UP, {
  createScene(world, rng, robot) {
    // Offsets on a 1 cm grid: layouts repeat across seeds, so seeds with the same view and different targets exist.
    const dx = rng.int(-2, 2) / 100, dy = rng.int(-2, 2) / 100;
    const colours = rng.shuffle(Object.keys(OBJECT_COLOURS));
    const target = rng.int(0, colours.length - 1);
    const spots: Vec3[] = [0.2, 0.1, 0, -0.1, -0.2].map((y) => [0.46 + dx, y + dy, REST_Z]);
    const objects = colours.map((colour, i) => ({ colour, id: addBlock(world, `${colour}_object`, spots[i]![0], spots[i]![1], OBJECT_COLOURS[colour]!) }));
    const shelf: Vec3 = [0.68 + dx, dy, TABLE_Z + SHELF_HALF[2]];
    world.addObject({ name: "shelf", body: "fixed", color: [110, 85, 60], shape: { kind: "box", halfExtents: SHELF_HALF }, pose: at(shelf) });
    const shelfTop: Vec3 = [shelf[0], shelf[1], TABLE_Z + 2 * SHELF_HALF[2]];
    world.addObject({
      name: "shown_target", body: "visual", color: OBJECT_COLOURS[colours[target]!]!,
      shape: { kind: "box", halfExtents: [BLOCK_HALF, BLOCK_HALF, BLOCK_HALF] }, pose: at([shelfTop[0], shelfTop[1], shelfTop[2] + BLOCK_HALF]),
    });
    return { taskId: "observe-and-pick-up", robot, step: 0, objects, target, spots, shelfTop, screen: null, firstGrasped: null };
  },

  subtaskDone: (world, s, index) => index === 0 && s.screen !== null && lifted(world, s, s.target),

  update(world, s) {
    s.step++;
    if (s.screen === null && world.timeNs >= BigInt(SHOW_S * 1e9)) {
      const [x, y, z] = s.shelfTop;
      s.screen = world.addObject({
        name: "screen", body: "visual", color: [70, 70, 75],
        shape: { kind: "box", halfExtents: SCREEN_HALF }, pose: at([x, y, z + SCREEN_HALF[2] - 0.002]),
      });
    }
    if (s.firstGrasped === null) {
      const i = s.objects.findIndex((o) => world.armNames.some((a) => world.heldObject(a) === o.id));
      if (i >= 0) s.firstGrasped = i;
    }
  },

  // The target is lifted, and it was the first object taken (no trying the others).
  success: (world, s) => s.screen !== null && s.firstGrasped === s.target && lifted(world, s, s.target),

  predicates: {
    "target-hidden": (_w, s) => s.screen !== null,
    "target-grasped-first": (_w, s) => s.screen !== null && s.firstGrasped === s.target,
    "target-lifted": (w, s) => s.firstGrasped === s.target && lifted(w, s, s.target),
  },

  expert(world, s, robot) {
    const widths = gripWidths(world, robot);
    const [text] = this.subtasks(s) as [string];
    const target = s.objects[s.target]!;
    // Hands still until the screen is down, then the target straight off the table.
    const waitTicks = Math.ceil(SHOW_S * robot.control_hz) + 1;
    return new PlanExpert(world, [
      { text, ops: (w) => [{ kind: "wait", ticks: waitTicks }, ...pickOps(w, armFor(w, s.spots[s.target]![1]), target.id, widths)] },
    ], { controlHz: robot.control_hz });
  },
});
