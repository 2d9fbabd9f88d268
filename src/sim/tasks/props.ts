/**
 * Task props built from world primitives: mats and trays (flat visual patches), blocks and lids
 * (dynamic boxes), buttons (fixed base + visual cap that dips while pressed) and seven-segment
 * digits (visual bars on the table). Button press counting with hysteresis is a pure function.
 */
import type { ObjectId, SimWorldApi, Vec3 } from "../world/types.js";
import { TABLE_Z, at, distXy, yawQuat } from "./geometry.js";

/** Named colours, 0..255 RGB, distinct under flat shading. */
export const COLORS = {
  red: [220, 40, 40] as Vec3,
  green: [40, 180, 60] as Vec3,
  blue: [40, 80, 220] as Vec3,
  yellow: [230, 200, 40] as Vec3,
  mat: [150, 150, 150] as Vec3,
  tray: [120, 90, 60] as Vec3,
  lid: [240, 240, 240] as Vec3,
  buttonBase: [60, 60, 60] as Vec3,
  digit: [20, 20, 20] as Vec3,
  centre: [230, 200, 40] as Vec3,
};

/** Half side of a task block, m (blocks are cubes). */
export const BLOCK_HALF = 0.022;

/** Adds a flat visual patch (mat, tray, target zone) lying on the table, centred at (x, y). */
export function addPatch(world: SimWorldApi, name: string, x: number, y: number, halfSide: number, color: Vec3): ObjectId {
  return world.addObject({
    name, body: "visual", color,
    shape: { kind: "box", halfExtents: [halfSide, halfSide, 0.001] },
    pose: at([x, y, TABLE_Z + 0.001]),
  });
}

/** Adds a dynamic cube resting on the table at (x, y) with yaw. */
export function addBlock(world: SimWorldApi, name: string, x: number, y: number, color: Vec3, yawRad = 0, half = BLOCK_HALF): ObjectId {
  return world.addObject({
    name, body: "dynamic", color, massKg: 0.05, friction: 0.9,
    shape: { kind: "box", halfExtents: [half, half, half] },
    pose: { position: [x, y, TABLE_Z + half], quaternion: yawQuat(yawRad) },
  });
}

/** True when the object's centre is within `tolXyM` of (x, y) and it rests near the table (not lifted). */
export function restsAt(world: SimWorldApi, id: ObjectId, target: Vec3, tolXyM: number, restZ: number, tolZM = 0.015): boolean {
  const p = world.objectPose(id).position;
  return distXy(p, target) <= tolXyM && Math.abs(p[2] - restZ) <= tolZM;
}

// --- buttons ---------------------------------------------------------------------------------

/** Button geometry, m. The cap top is what a fingertip presses. */
export const BUTTON = {
  baseRadius: 0.035,
  baseHalfHeight: 0.012,
  capRadius: 0.024,
  capHalfHeight: 0.005,
  /** Horizontal radius around the button axis within which a grasp point counts as on the cap. */
  pressRadius: 0.03,
  /** Grasp point below capTop + this → pressed. */
  pressAboveCapM: 0.012,
  /** Grasp point above capTop + this (or off the cap) → released, the next press may count. */
  releaseAboveCapM: 0.035,
  /** How far the cap dips while pressed (visual feedback). */
  dipM: 0.004,
};

/** A button in the scene and its press state. */
export interface Button {
  name: string;
  baseId: ObjectId;
  capId: ObjectId;
  /** Centre of the cap top surface (unpressed), world frame. */
  capTop: Vec3;
  pressed: boolean;
  count: number;
  /** Control steps at which each counted press began. */
  pressSteps: number[];
}

/** Adds a button (fixed cylinder base + visual coloured cap) at (x, y). */
export function addButton(world: SimWorldApi, name: string, x: number, y: number, capColor: Vec3): Button {
  const baseTop = TABLE_Z + 2 * BUTTON.baseHalfHeight;
  const baseId = world.addObject({
    name: `${name}_base`, body: "fixed", color: COLORS.buttonBase,
    shape: { kind: "cylinder", radius: BUTTON.baseRadius, halfHeight: BUTTON.baseHalfHeight },
    pose: at([x, y, TABLE_Z + BUTTON.baseHalfHeight]),
  });
  const capId = world.addObject({
    name: `${name}_cap`, body: "visual", color: capColor,
    shape: { kind: "cylinder", radius: BUTTON.capRadius, halfHeight: BUTTON.capHalfHeight },
    pose: at([x, y, baseTop + BUTTON.capHalfHeight]),
  });
  return { name, baseId, capId, capTop: [x, y, baseTop + 2 * BUTTON.capHalfHeight], pressed: false, count: 0, pressSteps: [] };
}

/**
 * Pure press detection with hysteresis: given whether the button is currently held down and the
 * grasp points of all arms, returns the new held state and whether a new press began. A press
 * begins when any point is over the cap and below capTop + pressAboveCapM; it ends only when no
 * point is over the cap below capTop + releaseAboveCapM, so jitter at the threshold counts once.
 */
export function pressTransition(pressed: boolean, capTop: Vec3, points: Vec3[]): { pressed: boolean; began: boolean } {
  const over = points.filter((p) => distXy(p, capTop) <= BUTTON.pressRadius);
  if (!pressed) {
    const down = over.some((p) => p[2] <= capTop[2] + BUTTON.pressAboveCapM);
    return { pressed: down, began: down };
  }
  const stillDown = over.some((p) => p[2] <= capTop[2] + BUTTON.releaseAboveCapM);
  return { pressed: stillDown, began: false };
}

/** Updates a button from the world's grasp points; returns true on the step a press is counted. */
export function updateButton(world: SimWorldApi, button: Button, step: number): boolean {
  const points = world.armNames.map((arm) => world.graspPoint(arm));
  const { pressed, began } = pressTransition(button.pressed, button.capTop, points);
  if (pressed !== button.pressed) {
    const dip = pressed ? BUTTON.dipM : 0;
    const [x, y, top] = button.capTop;
    world.setObjectPose(button.capId, at([x, y, top - BUTTON.capHalfHeight - dip]));
  }
  button.pressed = pressed;
  if (began) { button.count++; button.pressSteps.push(step); }
  return began;
}

// --- seven-segment digits ----------------------------------------------------------------------

/** Segments lit for each digit, in the order a b c d e f g (a = top, clockwise, g = middle). */
const SEGMENTS: Record<number, string> = {
  0: "abcdef", 1: "bc", 2: "abdeg", 3: "abcdg", 4: "bcfg", 5: "acdfg", 6: "acdefg", 7: "abc", 8: "abcdefg", 9: "abcdfg",
};

/**
 * Adds a seven-segment digit lying on the table as visual bars, read from the robot (standing at
 * x = 0 looking along +x): the digit's "up" is +x and its "right" is -y. `heightM` is the digit
 * height; returns the bar ids.
 */
export function addDigit(world: SimWorldApi, name: string, digit: number, cx: number, cy: number, heightM = 0.07): ObjectId[] {
  const segs = SEGMENTS[digit];
  if (segs === undefined) throw new Error(`digit ${digit} for "${name}" is not a single decimal digit (expected 0..9)`);
  const h = heightM / 2, w = heightM / 4, t = heightM / 14;   // half height, half width, bar half thickness
  const z = TABLE_Z + 0.0015;
  // Segment centre (u = along "up" = +x, v = along "right" = -y) and half extents in (x, y).
  const horiz = (u: number) => ({ c: [cx + u, cy] as [number, number], e: [t, w] as [number, number] });
  const vert = (u: number, v: number) => ({ c: [cx + u, cy - v] as [number, number], e: [h / 2, t] as [number, number] });
  const geometry: Record<string, { c: [number, number]; e: [number, number] }> = {
    a: horiz(h), g: horiz(0), d: horiz(-h),
    b: vert(h / 2, w), c: vert(-h / 2, w), e: vert(-h / 2, -w), f: vert(h / 2, -w),
  };
  return [...segs].map((s) => {
    const g = geometry[s]!;
    return world.addObject({
      name: `${name}_seg_${s}`, body: "visual", color: COLORS.digit,
      shape: { kind: "box", halfExtents: [g.e[0], g.e[1], 0.001] },
      pose: at([g.c[0], g.c[1], z]),
    });
  });
}
