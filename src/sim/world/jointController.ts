/**
 * The sim's joint-level controller: each physics step, every joint moves toward its target by at
 * most its velocity limit × dt (a rate-limited position servo, like a stiff position-controlled
 * arm). Pure; the world calls it once per step.
 */

/** Per-joint limits the controller respects. */
export interface JointLimits {
  lower: Float64Array;
  upper: Float64Array;
  /** rad/s or m/s. */
  velocity: Float64Array;
}

/**
 * Advances `measured` (in place) toward `targets` for one step of `dtS` seconds, clamped to the
 * joint limits and to `floor` where given (a held object stops the gripper closing further).
 * Writes the achieved velocities into `velocity` and returns it.
 */
export function trackTargets(
  measured: Float64Array,
  targets: Float64Array,
  limits: JointLimits,
  dtS: number,
  velocity: Float64Array,
  floor?: Float64Array,
): Float64Array {
  for (let i = 0; i < measured.length; i++) {
    const maxStep = limits.velocity[i]! * dtS;
    const lo = Math.max(limits.lower[i]!, floor ? floor[i]! : -Infinity);
    const goal = Math.min(limits.upper[i]!, Math.max(lo, targets[i]!));
    const before = measured[i]!;
    const step = Math.max(-maxStep, Math.min(maxStep, goal - before));
    measured[i] = Math.min(limits.upper[i]!, Math.max(lo, before + step));
    velocity[i] = (measured[i]! - before) / dtS;
  }
  return velocity;
}
