/**
 * Op sequences the task experts are written in: pick, place, press, and the arm choice. They read
 * privileged sim state (object poses) when a subtask starts.
 */
import type { ObjectId, SimWorldApi, Vec3 } from "../world/types.js";
import { TABLE_Z, foldYawQuarter, yawOf } from "../tasks/geometry.js";
import type { Button } from "../tasks/props.js";
import { gripperOpenWidth, type ExpertOp } from "./PlanExpert.js";
import type { RobotProfile } from "../../robot/types.js";

/** Grasp-point height for moving between places, m (clears blocks, lids and buttons with a held block). */
export const TRAVEL_Z = TABLE_Z + 0.16;
/** Slower speed for the last centimetres down and up, m/s. */
const VERTICAL_MPS = 0.18;

/**
 * Half-width of the centre lane, m, where the M(n) experts always use the right arm: their middle objects sit
 * within 2 cm of the centre line, and an arm chosen by the sign of that offset is a switch a camera policy
 * can hardly see (on Cover Blocks it made the middle lid's arm a coin toss for the policy).
 */
export const CENTRE_LANE_M = 0.03;

/**
 * The arm that works at lateral position y: the only arm, or on X-One the left arm for y ≥ 0, else the
 * right; with `centreLaneM`, the right arm within that distance of the centre line.
 */
export function armFor(world: SimWorldApi, y: number, centreLaneM = 0): string {
  const arms = world.armNames;
  if (arms.length === 1) return arms[0]!;
  if (arms.includes("left") && arms.includes("right")) return y >= 0 && Math.abs(y) >= centreLaneM ? "left" : "right";
  throw new Error(`expert: cannot choose an arm among [${arms.join(", ")}] (expected one arm, or "left" and "right")`);
}

/** Gripper opening widths for the ops below. */
export interface GripWidths { openM: number; closedM: number }

/** Open = the gripper joint's upper limit (capped at 8 cm), closed = 0. */
export function gripWidths(world: SimWorldApi, profile: RobotProfile): GripWidths {
  return { openM: gripperOpenWidth(world, profile, world.armNames[0]!), closedM: 0 };
}

/**
 * Open, go above the object, descend to its centre, close until held, lift to travel height.
 * `yawRad`: the grasp yaw; default square to a cube's faces.
 */
export function pickOps(world: Pick<SimWorldApi, "objectPose">, arm: string, object: ObjectId, widths: GripWidths, yawRad?: number): ExpertOp[] {
  const { position: [x, y, z], quaternion } = world.objectPose(object);
  yawRad ??= foldYawQuarter(yawOf(quaternion));   // fingers square to the block's faces
  return [
    { kind: "gripper", arm, widthM: widths.openM, minTicks: 1, maxTicks: 1 },
    { kind: "move", arm, to: [x, y, TRAVEL_Z], yawRad },
    { kind: "move", arm, to: [x, y, z], yawRad, speedMps: VERTICAL_MPS, nearContact: true },
    { kind: "gripper", arm, widthM: widths.closedM, until: "held", minTicks: 3, maxTicks: 20 },
    { kind: "move", arm, to: [x, y, TRAVEL_Z], speedMps: VERTICAL_MPS, nearContact: true },
  ];
}

/**
 * Carry the held object above `target` (the object's resting centre), lower it until its centre is
 * just above that, open until released, rise to travel height. `yawRad`: the hand's yaw on the way
 * (default: keep the current one).
 */
export function placeOps(arm: string, target: Vec3, widths: GripWidths, yawRad?: number): ExpertOp[] {
  const [x, y, z] = target;
  return [
    yawRad === undefined ? { kind: "move", arm, to: [x, y, TRAVEL_Z] } : { kind: "move", arm, to: [x, y, TRAVEL_Z], yawRad },
    { kind: "move", arm, to: [x, y, z + 0.006], speedMps: VERTICAL_MPS, nearContact: true },
    { kind: "gripper", arm, widthM: widths.openM, until: "released", minTicks: 3, maxTicks: 20 },
    { kind: "move", arm, to: [x, y, TRAVEL_Z], speedMps: VERTICAL_MPS, nearContact: true },
  ];
}

/** Pick `object` and place it at `target` (its resting centre). */
export function moveObjectOps(world: Pick<SimWorldApi, "objectPose">, arm: string, object: ObjectId, target: Vec3, widths: GripWidths): ExpertOp[] {
  return [...pickOps(world, arm, object, widths), ...placeOps(arm, target, widths)];
}

/** Close the gripper, go above the button, push the fingertips onto the cap, rise again. */
export function pressOps(arm: string, button: Button, widths: GripWidths): ExpertOp[] {
  const [x, y, top] = button.capTop;
  return [
    { kind: "gripper", arm, widthM: widths.closedM, minTicks: 1, maxTicks: 1 },
    { kind: "move", arm, to: [x, y, top + 0.07] },
    { kind: "move", arm, to: [x, y, top - 0.002], speedMps: VERTICAL_MPS, nearContact: true },
    { kind: "wait", ticks: 2 },
    { kind: "move", arm, to: [x, y, top + 0.07], speedMps: VERTICAL_MPS, nearContact: true },
  ];
}
