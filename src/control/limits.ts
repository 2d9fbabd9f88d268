import type { LayoutSpec, RobotProfile } from "../robot/types.js";
import type { InterventionKind } from "./types.js";

/** End-effector dims of the 7-D end-effector layout, in order. */
export const EE_DIMS = ["x", "y", "z", "roll", "pitch", "yaw", "gripper"] as const;

/**
 * The limits of one action dim, resolved from the robot profile once at construction.
 * `maxStep` is the per-tick delta bound (Infinity when the dim has none).
 */
export interface DimLimit {
  /** Joint name (joint layouts) or end-effector dim name. */
  name: string;
  lower: number;
  upper: number;
  rangeKind: InterventionKind;
  maxStep: number;
  stepKind: InterventionKind;
  /** Key in measured JointPositions to ramp from; null for end-effector pose dims. */
  measuredKey: string | null;
  /** Roll/pitch/yaw: deltas are taken modulo 2π (yaw 3.1 → -3.1 is a 0.08 rad step). */
  angular?: boolean;
}

/** Per-tick bounds for end-effector targets (the profile has no field for them). */
export interface EeStepLimits {
  /** Max translation per tick along each axis, m. NOTE: default 0.05 m (0.5 m/s at 10 Hz). */
  maxStepM?: number;
  /** Max change per tick of each of roll, pitch, yaw, rad. Default: safety.max_step_rad. */
  maxStepRad?: number;
}

/**
 * Resolves per-dim limits for `layout` on `profile` at `controlHz`. Revolute joints: position
 * limits and a per-tick delta of min(max_step_rad, velocity_limit / control_hz). Grippers: range and
 * min(gripper_max_step_m, velocity_limit / control_hz). End-effector x/y/z: the workspace box and
 * `ee.maxStepM` per tick; roll/pitch/yaw: `ee.maxStepRad` per tick (modulo 2π). Throws (config edge) naming the profile, layout and field.
 */
export function resolveLimits(profile: RobotProfile, layout: LayoutSpec, controlHz: number, ee: EeStepLimits = {}): DimLimit[] {
  const where = `[robot=${profile.name}]`;
  if (!(controlHz > 0) || !Number.isFinite(controlHz)) {
    throw new Error(`control_hz ${controlHz} must be a positive finite number ${where}`);
  }
  const joints = new Map(profile.joints.map((j) => [j.name, j]));
  const jointLimit = (name: string, dimName: string): DimLimit => {
    const j = joints.get(name);
    if (!j) throw new Error(`layout joint "${name}" is not in robot.joints (known: ${[...joints.keys()].join(", ")}) ${where}`);
    const velStep = j.velocity_limit / controlHz;
    if (j.kind === "gripper") {
      return {
        name: dimName, lower: j.lower, upper: j.upper, rangeKind: "gripper_range",
        maxStep: Math.min(velStep, profile.safety.gripper_max_step_m), stepKind: "gripper_rate", measuredKey: name,
      };
    }
    const velocityBinds = velStep < profile.safety.max_step_rad;
    return {
      name: dimName, lower: j.lower, upper: j.upper, rangeKind: "position_limit",
      maxStep: velocityBinds ? velStep : profile.safety.max_step_rad,
      stepKind: velocityBinds ? "velocity_limit" : "step_limit", measuredKey: name,
    };
  };
  switch (layout.kind) {
    case "joint":
      return layout.names.map((n) => jointLimit(n, n));
    case "end_effector": {
      const arm = profile.arms.find((a) => a.name === layout.arm);
      if (!arm) throw new Error(`end_effector layout arm "${layout.arm}" is not in robot.arms (known: ${profile.arms.map((a) => a.name).join(", ")}) ${where}`);
      const ws = profile.safety.workspace;
      if (ws.frame !== layout.frame) {
        throw new Error(`safety.workspace.frame "${ws.frame}" differs from end_effector layout frame "${layout.frame}"; the box must be in the frame of the targets ${where}`);
      }
      const stepM = ee.maxStepM ?? 0.05, stepRad = ee.maxStepRad ?? profile.safety.max_step_rad;
      if (!(stepM > 0) || !(stepRad > 0)) throw new Error(`end-effector step limits must be > 0 (got ${stepM} m, ${stepRad} rad) ${where}`);
      const box = (name: string, i: number): DimLimit => ({
        name, lower: ws.min[i]!, upper: ws.max[i]!, rangeKind: "workspace", maxStep: stepM, stepKind: "step_limit", measuredKey: null,
      });
      const angle = (name: string): DimLimit => ({
        name, lower: -Infinity, upper: Infinity, rangeKind: "workspace", maxStep: stepRad, stepKind: "step_limit", measuredKey: null, angular: true,
      });
      return [box("x", 0), box("y", 1), box("z", 2), angle("roll"), angle("pitch"), angle("yaw"), jointLimit(arm.gripper, "gripper")];
    }
  }
}

/** Clamps `v` into [lo, hi]. */
export function clamp(v: number, lo: number, hi: number): number {
  return v < lo ? lo : v > hi ? hi : v;
}

/** True when both name lists are identical in content and order. */
export function sameNames(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((n, i) => n === b[i]);
}

/** `a - b` wrapped into (-π, π]. */
export function angleDelta(a: number, b: number): number {
  const d = (a - b) % (2 * Math.PI);
  return d > Math.PI ? d - 2 * Math.PI : d <= -Math.PI ? d + 2 * Math.PI : d;
}
