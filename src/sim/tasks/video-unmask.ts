/**
 * Video Unmask (RoboMME, Permanence) on the Franka: a red, a green and a blue cube stand in a row in
 * random order, an empty container parked in front of each. The demonstration covers each cube with
 * the container in front of it, then the arm returns home; the identical containers hide the cubes
 * from every camera. Execution: lift the container hiding the named cube (and, in half of the
 * scenes, put it back down and finally lift the one hiding a second named cube).
 * NOTE: a container is a compound box open at the bottom with a cube-sized knob on top, the part
 * the gripper holds (the twin's grasp works on an object's main shape).
 */
import type { ObjectId, SimWorldApi, Vec3 } from "../world/types.js";
import { PlanExpert, type ExpertOp, type PlannedSubtask } from "../expert/PlanExpert.js";
import { ReactiveGoalsExpert, type ReactiveGoal } from "../expert/ReactiveGoalsExpert.js";
import { homeOps, homePose } from "../expert/orientedOps.js";
import { armFor, gripWidths, pickOps, placeOps, type GripWidths } from "../expert/primitives.js";
import { TABLE_Z, at, distXy } from "./geometry.js";
import { COLORS, addBlock } from "./props.js";
import { letGo, released } from "./progress.js";
import { UNMASK_TEXTS, VIDEO_UNMASK, type UnmaskColour, type VideoUnmaskGoal } from "../../task/video-unmask.js";
import { defineTask, type TaskDefinition, type TaskScene } from "./types.js";

/** The knob's half extents, m (as wide as a task cube, so the gripper closes on it as on a cube). */
const KNOB_HALF: Vec3 = [0.022, 0.022, 0.024];
const PLATE_HALF: Vec3 = [0.045, 0.045, 0.004];
/** Half height of the walls, from the plate down to the table, m. */
const WALL_HALF_Z = 0.026;
const WALL_T = 0.004;
/** Resting height of a container's knob centre above the table, m. */
const KNOB_REST_DZ = 2 * WALL_HALF_Z + 2 * PLATE_HALF[2] + KNOB_HALF[2];
const CONTAINER_COLOUR: Vec3 = [120, 100, 80];
/** A container counts as lifted once held this far above its resting height, m. */
const LIFTED_M = 0.04;
/** ...and as held up clear once this far (the rim well above the cubes), m. */
const HELD_UP_M = 0.08;
/** The grasp height the experts lift and carry containers at, m (rim above the other containers' knobs). */
const CARRY_Z = TABLE_Z + KNOB_REST_DZ + 0.12;
/** A container hides a cube when centred over it within this, m. */
const COVER_TOL_M = 0.025;

/** Scene state of Video Unmask. */
export interface VideoUnmaskScene extends TaskScene, VideoUnmaskGoal {
  /** The cubes left (+y) to right, with their colours. */
  cubes: { id: ObjectId; colour: UnmaskColour }[];
  /** Container i starts parked at parks[i], in front of cube i, and the demonstration puts it over cube i. */
  containers: ObjectId[];
  parks: Vec3[];
  /** Per colour, the container over its cube at execution start (-1: none), set on the first update. */
  hiding: Record<UnmaskColour, number> | null;
  /** Containers in the order they were lifted during execution (a re-lift of the last one is not repeated). */
  lifts: number[];
  /** Whether each container is lifted now (held, LIFTED_M up), and whether it was ever held up HELD_UP_M. */
  up: boolean[];
  heldUpOnce: boolean[];
}

function addContainer(world: SimWorldApi, name: string, x: number, y: number): ObjectId {
  const wallZ = -(KNOB_HALF[2] + 2 * PLATE_HALF[2] + WALL_HALF_Z);
  const off = PLATE_HALF[0] - WALL_T;
  const c = CONTAINER_COLOUR;
  return world.addObject({
    name, body: "dynamic", color: c, massKg: 0.15, friction: 0.9,
    shape: { kind: "box", halfExtents: KNOB_HALF }, pose: at([x, y, TABLE_Z + KNOB_REST_DZ]),
    parts: [
      { shape: { kind: "box", halfExtents: PLATE_HALF }, offset: [0, 0, -(KNOB_HALF[2] + PLATE_HALF[2])], color: c },
      { shape: { kind: "box", halfExtents: [WALL_T, PLATE_HALF[1], WALL_HALF_Z] }, offset: [off, 0, wallZ], color: c },
      { shape: { kind: "box", halfExtents: [WALL_T, PLATE_HALF[1], WALL_HALF_Z] }, offset: [-off, 0, wallZ], color: c },
      { shape: { kind: "box", halfExtents: [off - WALL_T, WALL_T, WALL_HALF_Z] }, offset: [0, off, wallZ], color: c },
      { shape: { kind: "box", halfExtents: [off - WALL_T, WALL_T, WALL_HALF_Z] }, offset: [0, -off, wallZ], color: c },
    ],
  });
}

/** Per colour, the container hiding its cube, taken the first time it is asked in execution (the video's end). */
function hidingOf(world: SimWorldApi, s: VideoUnmaskScene): Record<UnmaskColour, number> {
  const over = s.cubes.map((c) => [c.colour, containerOver(world, s, c.id)]);
  return (s.hiding ??= Object.fromEntries(over) as Record<UnmaskColour, number>);
}

/** The containers the goal names, in order (-1 where a named cube is not hidden). */
function named(world: SimWorldApi, s: VideoUnmaskScene): number[] {
  const h = hidingOf(world, s);
  return s.c1 === null ? [h[s.c0]] : [h[s.c0], h[s.c1]];
}

function liftedInOrder(world: SimWorldApi, s: VideoUnmaskScene): boolean {
  const want = named(world, s);
  return !want.includes(-1) && s.lifts.join(",") === want.join(",");
}

/** The first named container was lifted first and held up clear at some point. */
function firstDone(world: SimWorldApi, s: VideoUnmaskScene): boolean {
  const first = named(world, s)[0]!;
  return first !== -1 && s.lifts[0] === first && s.heldUpOnce[first] === true;
}

/** Success: every named container lifted in order, no other, the last held up clear now. */
function unmasked(world: SimWorldApi, s: VideoUnmaskScene): boolean {
  return liftedInOrder(world, s) && heldUp(world, s, named(world, s).at(-1)!);
}

function heldUp(world: SimWorldApi, s: VideoUnmaskScene, container: number): boolean {
  const id = s.containers[container];
  return id !== undefined && world.armNames.some((a) => world.heldObject(a) === id)
    && world.objectPose(id).position[2] >= TABLE_Z + KNOB_REST_DZ + HELD_UP_M;
}

/** Container `container` is held with its knob within 1.5 cm of the carry height. */
function atCarry(world: SimWorldApi, s: VideoUnmaskScene, container: number): boolean {
  const id = s.containers[container];
  return id !== undefined && world.armNames.some((a) => world.heldObject(a) === id)
    && world.objectPose(id).position[2] >= CARRY_Z - 0.015;
}

function restsDown(world: SimWorldApi, s: VideoUnmaskScene, container: number): boolean {
  const id = s.containers[container]!;
  return released(world, [id]) && Math.abs(world.objectPose(id).position[2] - (TABLE_Z + KNOB_REST_DZ)) <= 0.01;
}

/** The container over cube `id` now, or -1. */
function containerOver(world: SimWorldApi, s: VideoUnmaskScene, id: ObjectId): number {
  const p = world.objectPose(id).position;
  return s.containers.findIndex((c) => distXy(world.objectPose(c).position, p) <= COVER_TOL_M);
}

/** Carry container `c` from where it rests to rest at `to` (knob centre), through the carry height. */
function carryOps(world: SimWorldApi, arm: string, c: ObjectId, to: Vec3, widths: GripWidths): ExpertOp[] {
  const [x, y] = world.objectPose(c).position;
  return [
    ...pickOps(world, arm, c, widths, 0),
    { kind: "move", arm, to: [x, y, CARRY_Z], speedMps: 0.18, nearContact: true },
    { kind: "move", arm, to: [to[0], to[1], CARRY_Z], yawRad: 0 },
    ...placeOps(arm, to, widths, 0),
  ];
}

/** The Video Unmask task definition. */
export const videoUnmask = defineTask<VideoUnmaskScene>(VIDEO_UNMASK, {
  createScene(world, rng, robot) {
    const { dx, dy, order, c0, c1 } = VIDEO_UNMASK.draw(rng);
    const ys = [0.17, 0, -0.17].map((y) => y + dy);
    const cubes = order.map((colour, i) => ({
      colour, id: addBlock(world, `${colour}_cube`, 0.58 + dx, ys[i]!, COLORS[colour]),
    }));
    const parks: Vec3[] = ys.map((y) => [0.40 + dx, y, TABLE_Z + KNOB_REST_DZ]);
    const containers = parks.map((p, i) => addContainer(world, `container_${i}`, p[0], p[1]));
    return {
      taskId: "video-unmask", robot, step: 0, c0, c1, cubes, containers, parks,
      hiding: null, lifts: [], up: [false, false, false], heldUpOnce: [false, false, false],
    };
  },

  // A pick-up subtask ends with the container raised to the carry height (as the expert's lift), held.
  subtaskDone(world, s, index) {
    const want = named(world, s);
    if (s.c1 === null) return index === 0 && unmasked(world, s) && atCarry(world, s, want[0]!);
    switch (index) {
      case 0: return firstDone(world, s) && atCarry(world, s, want[0]!);
      case 1: return restsDown(world, s, want[0]!) && letGo(world, s.containers[want[0]!]!);
      case 2: return unmasked(world, s) && atCarry(world, s, want[1]!);
      default: return false;
    }
  },

  update(world, s) {
    s.step++;
    hidingOf(world, s);
    s.containers.forEach((id, i) => {
      const held = world.armNames.some((a) => world.heldObject(a) === id);
      const dz = world.objectPose(id).position[2] - (TABLE_Z + KNOB_REST_DZ);
      const up = held && dz >= LIFTED_M;
      if (up && !s.up[i] && s.lifts.at(-1) !== i) s.lifts.push(i);
      s.up[i] = up;
      if (held && dz >= HELD_UP_M) s.heldUpOnce[i] = true;
    });
  },

  success: (world, s) => unmasked(world, s),

  predicates: {
    "first-unmasked": (w, s) => s.lifts.length >= 1 && s.lifts[0] === named(w, s)[0] && named(w, s)[0] !== -1,
    "last-unmasked": (w, s) => liftedInOrder(w, s),
    "held-up": (w, s) => unmasked(w, s),
  },

  // The video: each container over the cube behind it, left to right, then the arm home.
  demonstration(world, s, robot) {
    const widths = gripWidths(world, robot);
    const arm = armFor(world, 0);
    const home = homePose(world);
    const plan: PlannedSubtask[] = s.containers.map((c, i) => ({
      text: `demonstration: cover the ${s.cubes[i]!.colour} cube`,
      ops: (w: SimWorldApi) => {
        const cube = w.objectPose(s.cubes[i]!.id).position;
        const ops = carryOps(w, arm, c, [cube[0], cube[1], TABLE_Z + KNOB_REST_DZ], widths);
        return i === s.containers.length - 1 ? [...ops, ...homeOps(w, home, arm)] : ops;
      },
    }));
    return new PlanExpert(world, plan, { controlHz: robot.control_hz });
  },

  expert(world, s, robot) {
    const widths = gripWidths(world, robot);
    const arm = armFor(world, 0);
    const container = (w: SimWorldApi, i: number): ObjectId | undefined => s.containers[named(w, s)[i]!];
    const liftOps = (i: number) => (w: SimWorldApi): ExpertOp[] => {
      const c = container(w, i);
      if (c === undefined) return [];
      const [x, y] = w.objectPose(c).position;
      const up: ExpertOp = { kind: "move", arm, to: [x, y, CARRY_Z], speedMps: 0.18, nearContact: true };
      return [...pickOps(w, arm, c, widths, 0), up];
    };
    const texts = this.subtasks(s);
    const plan: PlannedSubtask[] = [{ text: texts[0]!, ops: liftOps(0) }];
    if (s.c1 !== null) {
      plan.push({ text: UNMASK_TEXTS.putBack, ops: (w) => {
        const c = container(w, 0);
        if (c === undefined) return [];
        const [x, y] = w.objectPose(c).position;
        return placeOps(arm, [x, y, TABLE_Z + KNOB_REST_DZ], widths, 0);
      } });
      plan.push({ text: texts[2]!, ops: liftOps(1) });
    }
    return new PlanExpert(world, plan, { controlHz: robot.control_hz });
  },

  reactiveExpert(world, s, robot) {
    const lift = (id: ObjectId): ReactiveGoal => ({ kind: "lift", object: id, graspZ: CARRY_Z });
    // Resolved after the video: the named containers, and where the first goes back down (over its cube).
    const goals = (): ReactiveGoal[] => {
      const want = named(world, s).map((i) => s.containers[i] ?? s.containers[0]!);
      if (s.c1 === null) return [lift(want[0]!)];
      const cube = world.objectPose(s.cubes.find((c) => c.colour === s.c0)!.id).position;
      const restCentre: Vec3 = [cube[0], cube[1], TABLE_Z + KNOB_REST_DZ];
      const back: ReactiveGoal = { kind: "place", object: want[0]!, restCentre };
      return [lift(want[0]!), back, lift(want[1]!)];
    };
    const stage = (w: SimWorldApi): number => {
      if (!firstDone(w, s)) return 0;
      if (s.c1 === null) return unmasked(w, s) ? 1 : 0;
      if (s.lifts.length <= 1) return restsDown(w, s, named(w, s)[0]!) ? 2 : 1;
      return unmasked(w, s) ? 3 : 2;
    };
    const texts = this.subtasks(s);
    const arm = armFor(world, 0);
    return new ReactiveGoalsExpert(world, robot, { arm, texts, controlHz: robot.control_hz, goals, stage });
  },
});
