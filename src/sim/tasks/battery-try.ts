/**
 * Battery Try (RMBench, M(n)): two batteries lie on the table beside a two-slot holder with an
 * indicator lamp. Put both batteries into the holder, then flip them one at a time, trying the
 * polarity combinations in RMBench's order (both positive, left flipped, both flipped, right
 * flipped) until the lamp lights. The right combination is random (never both positive).
 * NOTE: RMBench's holder has a needle gauge; the twin's lamp turns green. The holder's end clamps
 * cover the battery ends, so once a battery is in its slot its polarity mark (the red cap) is out of
 * sight: which combinations were already tried is only in memory (see src/sim/README.md).
 */
import type { ObjectId, SimWorldApi, Vec3 } from "../world/types.js";
import { PlanExpert, type ExpertOp, type PlannedSubtask } from "../expert/PlanExpert.js";
import { ReactiveGoalsExpert, latchedStage, type ReactiveGoal } from "../expert/ReactiveGoalsExpert.js";
import { armFor, gripWidths, pickOps, placeOps, TRAVEL_Z } from "../expert/primitives.js";
import { homeOps, homePose, turnOps } from "../expert/orientedOps.js";
import { TABLE_Z, at, distXy, wrapAngle, yawOf, yawQuat } from "./geometry.js";
import { addPatch } from "./props.js";
import { handsClear, released } from "./progress.js";
import {
  BATTERY_TRY, TRIAL_ORDER, flippedBattery, sameCombination as same, type Combination,
} from "../../task/battery-try.js";
import { defineTask, type TaskDefinition, type TaskScene } from "./types.js";

/** Battery body along its local x; the cap (+ terminal) at its +x end. */
const BODY_HALF: Vec3 = [0.035, 0.014, 0.016];
const CAP_HALF: Vec3 = [0.006, 0.01, 0.012];
const REST_Z = TABLE_Z + BODY_HALF[2];
/** Slot centres sit this far either side of the holder centre (y), m. */
const SLOT_OFFSET_M = 0.045;
/** A battery is in its slot when its centre is within this of the slot centre (RMBench: 2 cm). */
const IN_SLOT_TOL_M = 0.02;
const LAMP_OFF: Vec3 = [90, 90, 90];
const LAMP_ON: Vec3 = [40, 220, 70];

/** Scene state of Battery Try. */
export interface BatteryTryScene extends TaskScene {
  /** Left and right battery. */
  batteries: [ObjectId, ObjectId];
  /** Left (+y) and right slot centres (resting battery centres). */
  slots: [Vec3, Vec3];
  lamp: ObjectId;
  correct: Combination;
  lampOn: boolean;
  /** Combinations tried so far: each time both batteries came to rest in the slots, let go. */
  attempts: Combination[];
}

function addBattery(world: SimWorldApi, name: string, position: Vec3, yawRad: number): ObjectId {
  return world.addObject({
    name, body: "dynamic", color: [60, 70, 80], massKg: 0.03, friction: 0.9,
    shape: { kind: "box", halfExtents: BODY_HALF }, pose: { position, quaternion: yawQuat(yawRad) },
    parts: [{ shape: { kind: "box", halfExtents: CAP_HALF }, offset: [BODY_HALF[0] + CAP_HALF[0], 0, 0], color: [210, 40, 40] }],
  });
}

/** Polarity of a battery from its yaw. */
function polarity(world: SimWorldApi, id: ObjectId): number {
  return Math.cos(yawOf(world.objectPose(id).quaternion)) >= 0 ? 0 : 1;
}

/** Battery `i` rests in its slot (held or not). */
function inSlot(world: SimWorldApi, s: BatteryTryScene, i: number): boolean {
  const p = world.objectPose(s.batteries[i]!).position;
  return distXy(p, s.slots[i]!) <= IN_SLOT_TOL_M && Math.abs(p[2] - REST_Z) <= 0.01;
}

/** Both batteries rest in their slots and nobody holds them. */
function seated(world: SimWorldApi, s: BatteryTryScene): boolean {
  return inSlot(world, s, 0) && inSlot(world, s, 1) && released(world, s.batteries);
}

function combination(world: SimWorldApi, s: BatteryTryScene): Combination {
  return [polarity(world, s.batteries[0]), polarity(world, s.batteries[1])];
}

/** The Battery Try task definition. */
export const batteryTry = defineTask<BatteryTryScene>(BATTERY_TRY, {
  createScene(world, rng, robot) {
    const { dx, dy, yawsRad, correct } = BATTERY_TRY.draw(rng);
    const holder: Vec3 = [0.52 + dx, dy, REST_Z];
    addPatch(world, "holder", holder[0], holder[1], 0.075, [45, 45, 50]);
    const slots: [Vec3, Vec3] = [[holder[0], dy + SLOT_OFFSET_M, REST_Z], [holder[0], dy - SLOT_OFFSET_M, REST_Z]];
    // End clamps over both slots: they hide the battery ends (and the caps) once inserted.
    for (const side of [1, -1]) {
      world.addObject({
        name: `clamp_${side > 0 ? "front" : "back"}`, body: "visual", color: [140, 140, 150],
        shape: { kind: "box", halfExtents: [0.014, 0.075, 0.021] }, pose: at([holder[0] + side * 0.042, dy, TABLE_Z + 0.021]),
      });
    }
    const lamp = world.addObject({
      name: "lamp", body: "visual", color: LAMP_OFF, shape: { kind: "cylinder", radius: 0.022, halfHeight: 0.01 }, pose: at([holder[0] + 0.13, dy, TABLE_Z + 0.01]),
    });
    const batteries: [ObjectId, ObjectId] = [
      addBattery(world, "left_battery", [0.38 + dx, dy + 0.2, REST_Z], yawsRad[0]),
      addBattery(world, "right_battery", [0.38 + dx, dy - 0.2, REST_Z], yawsRad[1]),
    ];
    return { taskId: "battery-try", robot, step: 0, batteries, slots, lamp, correct, lampOn: false, attempts: [] };
  },

  // Trial k is done when both batteries are seated in TRIAL_ORDER[k] and the hands are clear of the holder.
  subtaskDone(world, s, index) {
    const want = TRIAL_ORDER[index];
    return want !== undefined && seated(world, s) && same(combination(world, s), want) && handsClear(world, s.slots);
  },

  update(world, s) {
    s.step++;
    const isSeated = seated(world, s);
    const now = combination(world, s);
    const last = s.attempts[s.attempts.length - 1];
    if (isSeated && (last === undefined || !same(last, now))) s.attempts.push(now);
    const on = isSeated && same(now, s.correct);
    if (on !== s.lampOn) world.setObjectColor(s.lamp, on ? LAMP_ON : LAMP_OFF);
    s.lampOn = on;
  },

  success: (_w, s) => s.lampOn,

  predicates: {
    "first-attempt-failed": (_w, s) => s.attempts.length >= 1 && !same(s.attempts[0]!, s.correct),
    "new-attempt": (_w, s) => s.attempts.length >= 2,
    "lamp-on-no-repeat": (_w, s) => s.lampOn && new Set(s.attempts.map((c) => c.join(""))).size === s.attempts.length,
  },

  expert(world, s, robot) {
    const widths = gripWidths(world, robot);
    const home = homePose(world);
    const texts = this.subtasks(s);
    // Each battery by the arm on its side (NOTE: on one Franka arm the half turn over the holder
    // swings the arm through the other battery: X-One only, as RMBench's two-arm task).
    const armOf = (i: number) => armFor(world, s.slots[i]![1]);
    const homeOthers = (arm: string) => world.armNames.filter((a) => a !== arm).flatMap((a) => homeOps(world, home, a));
    // Fingers across the body: the grasp yaw is the battery's yaw, folded into the wrist's range.
    const graspYaw = (w: SimWorldApi, id: ObjectId) => wrapAngle(2 * yawOf(w.objectPose(id).quaternion)) / 2;
    const insert = (w: SimWorldApi, i: number): ExpertOp[] => {
      const id = s.batteries[i]!, arm = armOf(i), g = graspYaw(w, id);
      // Held, the battery's yaw changes with the hand's: hand yaw g - (battery yaw) seats it cap +x.
      const seatYaw = wrapAngle(g - yawOf(w.objectPose(id).quaternion));
      return [...homeOthers(arm), ...pickOps(w, arm, id, widths, g), ...placeOps(arm, s.slots[i]!, widths, seatYaw)];
    };
    const flip = (w: SimWorldApi, i: number): ExpertOp[] => {
      const id = s.batteries[i]!, arm = armOf(i), g = graspYaw(w, id);
      const slot = s.slots[i]!, above: Vec3 = [slot[0], slot[1], TRAVEL_Z];
      const flipped = g >= 0 ? g - Math.PI : g + Math.PI;
      return [
        ...homeOthers(arm), ...pickOps(w, arm, id, widths, g),
        ...turnOps(arm, above, g, flipped), ...placeOps(arm, slot, widths, flipped),
      ];
    };
    const plan: PlannedSubtask[] = texts.map((text, k) => ({
      text,
      ops: k === 0
        ? (w) => [...insert(w, 0), ...insert(w, 1)]
        : (w) => flip(w, flippedBattery(k)),
    }));
    return new PlanExpert(world, plan, { controlHz: robot.control_hz });
  },

  reactiveExpert(world, s, robot) {
    const texts = this.subtasks(s);
    // Fingers across the body, as the plan's grasp.
    const graspYaw = (q: [number, number, number, number]) => wrapAngle(2 * yawOf(q)) / 2;
    // Subtask k: both batteries seated in TRIAL_ORDER[k]; the goal is the first that is not (the held one first).
    const goalAt = (w: SimWorldApi, k: number): ReactiveGoal | undefined => {
      const want = TRIAL_ORDER[k]!;
      const wrong = [0, 1].filter((i) => !inSlot(w, s, i) || polarity(w, s.batteries[i]!) !== want[i] || !released(w, [s.batteries[i]!]));
      const i = wrong.find((j) => !released(w, [s.batteries[j]!])) ?? wrong[0];
      if (i === undefined) return undefined;   // seated as wanted: the hands only rise clear
      const slot = s.slots[i]!;
      return {
        kind: "place", object: s.batteries[i]!, restCentre: slot, objectYawRad: want[i] ? Math.PI : 0, graspYaw,
        arm: armFor(w, slot[1]),
      };
    };
    const stage = latchedStage(texts.length, (w, i) => this.subtaskDone(w, s, i));
    return new ReactiveGoalsExpert(world, robot, { arm: armFor(world, 0), texts, controlHz: robot.control_hz, goalAt, stage });
  },
});
