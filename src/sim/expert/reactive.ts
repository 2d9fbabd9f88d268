/**
 * Reactive expert behaviours: from what is true *now* (grasp point, gripper opening, what the hand
 * holds, where the object is) they return the next commanded grasp pose and gripper opening. Unlike
 * PlanExpert, which steers to the points of a plan made when a subtask starts, they re-approach
 * when the fingers are off the object, re-grasp after a drop and carry on from any state, so they
 * can label the states a learned policy visits (DAgger). Pure functions of a `ReactiveView`; a
 * chunk is made by rolling the view forward on the commands (`rollView`), as a tracking arm would.
 */
import type { Quat, Vec3 } from "../world/types.js";
import { BLOCK_HALF, BUTTON } from "../tasks/props.js";
import { distXy, foldYawQuarter, wrapAngle } from "../tasks/geometry.js";
import { TRAVEL_Z } from "./primitives.js";

/** Lateral speed (m/s) and the slower vertical speed near objects, as PlanExpert's moves. */
const LATERAL_MPS = 0.3;
const VERTICAL_MPS = 0.18;
/** Gripper opening speed in the roll-forward, m/s, unless the robot's gripper is slower (its velocity limit). */
export const GRIPPER_MPS = 0.2;
/** The fingers are over their goal when the grasp point is this close horizontally, m. */
const ALIGNED_M = 0.012;
/** Off by more than this while low: rise before moving sideways (never drag through objects), m. */
const RISE_FIRST_M = 0.03;
/** Largest change of the grasp yaw per second, rad/s (keeps each tick's wrist step small). */
const YAW_RATE_RADPS = 1.0;
/** Height the fingers release a carried block at, above its resting centre, m (as placeOps). */
const RELEASE_ABOVE_M = 0.006;
/** The grasp yaw is near enough its goal to descend onto an object (pick) or a slot (place), rad. */
const YAW_ALIGNED_RAD = 0.15;

/** What a behaviour sees of one arm and one object. */
export interface ReactiveView {
  /** Grasp point of the working arm (world), m, and the yaw of its top-down grasp frame, rad. */
  grasp: Vec3;
  yawRad: number;
  /** Gripper opening now and as last commanded, m. */
  gripperM: number;
  gripperCmdM: number;
  /** The arm holds the object. */
  held: boolean;
  /** The object's centre (world) and the yaw a top-down grasp must have to be square to its side faces. */
  object: Vec3;
  objectYawRad: number;
  /** The object's own yaw (world), rad: what a turning hand turns. */
  heldObjectYawRad: number;
  /** The arm's last (wrist) joint, rad: unlike the yaw it does not wrap, so it tells the two ways of a half turn apart. */
  wristRad: number;
  /** Ground truth flags a task may need (e.g. Put Back Block's press). */
  pressed: boolean;
}

/** One tick's command for the working arm. */
export interface ArmCommand { grasp: Vec3; yawRad: number; gripperM: number }

/** The gripper's open and closed widths, m. */
export interface Widths { openM: number; closedM: number }

/** The point `maxStepM` along the straight line from `from` to `to` (or `to` when nearer), m. */
export function stepTo(from: Vec3, to: Vec3, maxStepM: number): Vec3 {
  const d = [to[0] - from[0], to[1] - from[1], to[2] - from[2]] as Vec3;
  const n = Math.hypot(...d);
  if (n <= maxStepM) return [...to];
  const k = maxStepM / n;
  return [from[0] + d[0] * k, from[1] + d[1] * k, from[2] + d[2] * k];
}

/**
 * The next grasp point on the way to `goal` for a control period of `dtS`: rise first when low and
 * far off, cross at travel height, small corrections at the current height, and the last part
 * (once aligned) straight down at the vertical speed.
 */
export function moveVia(from: Vec3, goal: Vec3, dtS: number): Vec3 {
  const off = distXy(from, goal);
  if (off <= ALIGNED_M) return stepTo(from, goal, VERTICAL_MPS * dtS);
  if (off <= RISE_FIRST_M) return stepTo(from, [goal[0], goal[1], from[2]], VERTICAL_MPS * dtS);
  if (from[2] < TRAVEL_Z - 0.01) return [from[0], from[1], Math.min(TRAVEL_Z, from[2] + VERTICAL_MPS * dtS)];
  return stepTo(from, [goal[0], goal[1], Math.max(TRAVEL_Z, goal[2])], LATERAL_MPS * dtS);
}

/**
 * Grasp yaw square to a cube's side faces in any resting orientation (a dropped cube may land on
 * any face): the yaw of whichever body axis lies flattest, folded into [-π/4, π/4].
 */
export function cubeGraspYaw(q: Quat): number {
  const [x, y, z, w] = q;
  // Columns of the rotation matrix: the body x, y, z axes in the world frame.
  const axes: Vec3[] = [
    [1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y)],
    [2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x)],
    [2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y)],
  ];
  const flattest = axes.reduce((a, b) => (Math.abs(b[2]) < Math.abs(a[2]) ? b : a));
  return foldYawQuarter(Math.atan2(flattest[1], flattest[0]));
}

const stay = (v: ReactiveView, gripperM: number, yawRad = v.yawRad): ArmCommand => ({ grasp: [...v.grasp], yawRad, gripperM });

/** Pick the (unheld) object: open, go over it, descend square to its faces, close; open and retry after a miss. */
export function pick(v: ReactiveView, w: Widths, dtS: number): ArmCommand {
  const maxTurn = YAW_RATE_RADPS * dtS;
  const yawRad = v.yawRad + Math.max(-maxTurn, Math.min(maxTurn, v.objectYawRad - v.yawRad));
  const over = distXy(v.grasp, v.object) <= ALIGNED_M * 1.5;
  const atBottom = over && v.grasp[2] <= v.object[2] + 0.008;
  if (v.gripperCmdM === w.closedM) {
    // Closing at the object: wait for the grasp; closed on nothing (a miss) or elsewhere: open again.
    if (atBottom && v.gripperM > w.closedM + 0.01) return stay(v, w.closedM);
    return stay(v, w.openM);
  }
  if (atBottom) return stay(v, w.closedM);
  // Never descend onto the object with the fingers half open, or turned across it.
  if (v.gripperM < w.openM - 0.01 && over && v.grasp[2] < TRAVEL_Z - 0.02) return stay(v, w.openM, yawRad);
  if (over && Math.abs(v.objectYawRad - v.yawRad) > YAW_ALIGNED_RAD) return stay(v, w.openM, yawRad);
  return { grasp: moveVia(v.grasp, v.object, dtS), yawRad, gripperM: w.openM };
}

/** Carry the held object to `restCentre` (its resting centre there) and let go. */
export function place(v: ReactiveView, restCentre: Vec3, w: Widths, dtS: number): ArmCommand {
  const goal: Vec3 = [restCentre[0], restCentre[1], restCentre[2] + RELEASE_ABOVE_M];
  if (v.gripperCmdM === w.openM) return stay(v, w.openM);   // letting go: wait until released
  if (distXy(v.grasp, goal) <= ALIGNED_M && v.grasp[2] <= goal[2] + 0.004) return stay(v, w.openM);
  return { grasp: moveVia(v.grasp, goal, dtS), yawRad: v.yawRad, gripperM: v.gripperCmdM };
}

/**
 * Carry the held object to `restCentre` with the hand turned to `handYawRad` (the object turns with
 * it): far off that yaw, turn over the goal at travel height; near it, place while finishing the turn.
 */
export function turnToward(v: ReactiveView, restCentre: Vec3, handYawRad: number, w: Widths, dtS: number): ArmCommand {
  // Of the two ways round, the one that leaves the wrist joint nearer zero (a top-down hand's yaw
  // turns against its wrist joint): fixed for the whole turn, where the wrapped yaws would tie at a half turn.
  const short = wrapAngle(handYawRad - v.yawRad);
  const long = short - 2 * Math.PI * Math.sign(short);
  const turn = Math.abs(v.wristRad - long) < Math.abs(v.wristRad - short) ? long : short;
  const maxTurn = YAW_RATE_RADPS * dtS;
  const yawRad = v.yawRad + Math.max(-maxTurn, Math.min(maxTurn, turn));
  if (Math.abs(turn) <= 2 * YAW_ALIGNED_RAD) return { ...place(v, restCentre, w, dtS), yawRad };
  const above: Vec3 = [restCentre[0], restCentre[1], TRAVEL_Z];
  return { grasp: moveVia(v.grasp, above, dtS), yawRad, gripperM: v.gripperCmdM };
}

/** Push the closed fingertips onto a button cap (top centre `capTop`). */
export function press(v: ReactiveView, capTop: Vec3, w: Widths, dtS: number): ArmCommand {
  // Close only once clear of the object just let go (closing next to it could grasp it again).
  const nearObject = distXy(v.grasp, v.object) < 0.06 && v.grasp[2] < TRAVEL_Z - 0.03;
  const gripperM = nearObject ? v.gripperCmdM : w.closedM;
  const goal: Vec3 = [capTop[0], capTop[1], capTop[2] - 0.002];
  return { grasp: moveVia(v.grasp, goal, dtS), yawRad: v.yawRad, gripperM };
}

/** Raise the held object straight up to grasp height `toZ` (world z, m), the gripper kept as commanded. */
export function lift(v: ReactiveView, toZ: number, dtS: number): ArmCommand {
  const grasp = stepTo(v.grasp, [v.grasp[0], v.grasp[1], toZ], VERTICAL_MPS * dtS);
  return { grasp, yawRad: v.yawRad, gripperM: v.gripperCmdM };
}

/** Rise to travel height where the hand is and keep the gripper open (the task is done). */
export function withdraw(v: ReactiveView, w: Widths, dtS: number): ArmCommand {
  const gripperM = v.held ? v.gripperCmdM : w.openM;
  return { grasp: stepTo(v.grasp, [v.grasp[0], v.grasp[1], TRAVEL_Z], VERTICAL_MPS * dtS), yawRad: v.yawRad, gripperM };
}

/**
 * The view one control period later if the arm tracks `cmd` exactly: the gripper moves toward its
 * command at the gripper speed, closing on the object at the bottom grasps it (fingers stop at its
 * width), opening lets go, a held object moves with the hand, and a fingertip at the cap presses
 * `capTop` (when given).
 */
export function rollView(
  v: ReactiveView, cmd: ArmCommand, dtS: number, capTop?: Vec3, gripperMps = GRIPPER_MPS,
): ReactiveView {
  const turn = cmd.yawRad - v.yawRad;
  const next: ReactiveView = { ...v, grasp: cmd.grasp, yawRad: cmd.yawRad, gripperCmdM: cmd.gripperM, wristRad: v.wristRad - turn };
  if (v.held) next.heldObjectYawRad = v.heldObjectYawRad + turn;
  const stepM = gripperMps * dtS;
  const width = v.gripperM + Math.max(-stepM, Math.min(stepM, cmd.gripperM - v.gripperM));
  const atObject = distXy(cmd.grasp, v.object) <= ALIGNED_M * 1.5 && Math.abs(cmd.grasp[2] - v.object[2]) <= 0.012;
  const blockWidth = 2 * BLOCK_HALF;
  if (!v.held && cmd.gripperM < v.gripperM && atObject && width <= blockWidth) {
    next.held = true;
    next.gripperM = blockWidth;
  } else if (v.held && cmd.gripperM > blockWidth + 0.005) {
    next.gripperM = width;
    next.held = width < blockWidth + 0.01;
  } else {
    next.gripperM = v.held ? blockWidth : width;
  }
  if (next.held) next.object = [cmd.grasp[0], cmd.grasp[1], cmd.grasp[2]];
  else if (v.held) next.object = [v.object[0], v.object[1], v.object[2] - RELEASE_ABOVE_M];
  if (capTop && distXy(cmd.grasp, capTop) <= BUTTON.pressRadius && cmd.grasp[2] <= capTop[2] + BUTTON.pressAboveCapM) next.pressed = true;
  return next;
}

/**
 * Pushing a cube along the table with the fingers opened to PUSH.widthM (two contact points across
 * the cube's face, no grasp): the grasp height, the widths, speeds and the grasp point's offset
 * behind the cube's centre while in contact.
 */
export const PUSH = {
  /** Grasp-point height above the table while pushing, m (the fingertips just over it). */
  heightM: 0.02,
  widthM: 0.03,
  speedMps: 0.04,
  /** Grasp point to the pushed cube's centre while in contact (measured on the Franka hand), m. */
  contactM: BLOCK_HALF + 0.036,
  /** Where the fingers go down behind the cube before pushing, m from its centre. */
  approachM: BLOCK_HALF + 0.05,
} as const;

/** Unit horizontal direction from `a` to `b` (x when they coincide). */
export function dirXy(a: Vec3, b: Vec3): [number, number] {
  const dx = b[0] - a[0], dy = b[1] - a[1], n = Math.hypot(dx, dy);
  return n < 1e-9 ? [1, 0] : [dx / n, dy / n];
}

/** True when the fingers are low in the corridor just behind the object, facing `target`. */
export function pushing(v: ReactiveView, target: Vec3, tableZ: number): boolean {
  const [ux, uy] = dirXy(v.object, target);
  const rx = v.grasp[0] - v.object[0], ry = v.grasp[1] - v.object[1];
  const along = rx * ux + ry * uy, across = Math.abs(-rx * uy + ry * ux);
  // The cube jumps ahead of the fingers on contact (a kinematic push): anywhere behind its rear face counts.
  return along <= -BLOCK_HALF && along >= -PUSH.approachM - 0.01 && across <= 0.012
    && v.grasp[2] <= tableZ + PUSH.heightM + 0.01;
}

/**
 * Push the (unheld) object toward `target` (its resting centre): go down behind it, square to the
 * line to the target, then slide it there at the pushing speed. A held object is let go first.
 */
export function push(v: ReactiveView, target: Vec3, tableZ: number, dtS: number): ArmCommand {
  const [ux, uy] = dirXy(v.object, target);
  // Fingers across the push line (the opening axis is the grasp frame's y): yaw folded by half turns only.
  const yawRad = ux >= 0 ? Math.atan2(uy, ux) : Math.atan2(-uy, -ux);
  if (v.held) return stay(v, PUSH.widthM + 0.05);
  const z = tableZ + PUSH.heightM;
  if (pushing(v, target, tableZ)) {
    const end: Vec3 = [target[0] - ux * PUSH.contactM, target[1] - uy * PUSH.contactM, z];
    return { grasp: stepTo(v.grasp, end, PUSH.speedMps * dtS), yawRad, gripperM: PUSH.widthM };
  }
  const behind: Vec3 = [v.object[0] - ux * PUSH.approachM, v.object[1] - uy * PUSH.approachM, z];
  return { grasp: moveVia(v.grasp, behind, dtS), yawRad, gripperM: PUSH.widthM };
}
