/**
 * The safety filter (class SafetyFilter below). NOTE: over 300 lines: the chunk check and the
 * per-tick step are the one place every command is judged, in a fixed order (shape, names,
 * finite values, limits, rate, workspace, stop latch); kept in one file so that order reads top to
 * bottom, as ros2_controllers' joint_trajectory_controller validates a goal.
 */
import type { ActionChunk } from "../policy/types.js";
import type { LayoutSpec, RobotProfile } from "../robot/types.js";
import { angleDelta, clamp, resolveLimits, sameNames, type DimLimit, type EeStepLimits } from "./limits.js";
import type { Hold, Intervention, JointCommand, JointPositions, Verdict, WorkspaceExit } from "./types.js";
import {
  describeExit, forwardKinematicsOf, measuredPoseOf, outsideDistances, workspaceExitFrom, type ForwardKinematics,
} from "./workspace.js";

export type { ForwardKinematics } from "./workspace.js";

/** Every arm's end-effector point, as the FK gives them. */
type EePoints = ReturnType<ForwardKinematics>;

/** How a SafetyFilter is built. */
export interface SafetyFilterOptions {
  profile: RobotProfile;
  /** The policy-facing layout the chunks use (a value of `profile.layouts`). */
  layout: LayoutSpec;
  /** Control rate; defaults to profile.control_hz. Sets the velocity bound velocity_limit / control_hz. */
  controlHz?: number;
  /** FK for joint layouts (default: the profile's declared kinematics); boxes every arm's end effector. */
  forwardKinematics?: ForwardKinematics;
  /** End-effector layouts: per-tick translation/rotation bounds (see EeStepLimits for defaults). */
  eeStep?: EeStepLimits;
  /**
   * End-effector layouts: the measured pose [x, y, z, roll, pitch, yaw] (layout frame) from joint
   * positions, so the first target after start or a hold ramps from where the hand is (default:
   * from the profile's declared kinematics). Without it that first target is only boxed; later
   * ones are rate-limited against the previous one.
   */
  measuredPose?: (measured: JointPositions) => readonly number[] | null;
}

/** At most this many offending values travel in a hold (the event log stays readable). */
const MAX_VALUES = 16;

/**
 * The safety filter between the action scheduler and the output adapter (on by default; limits
 * from the robot profile). Two checks:
 * - `checkChunk` validates a whole chunk when it arrives: shape, joint names, NaN/Inf (any of these
 *   rejects the whole chunk → hold, the chunk is dropped), then clamps every row into position
 *   limits / gripper range / workspace box and limits each row's delta to the previous row; in a
 *   joint layout with FK, the chunk stops at the last row whose end effectors are all inside the
 *   workspace box, or no further outside than the row before (later rows repeat it; a hold when
 *   row 0 already leaves); given a
 *   start position (the measured one), row 0 is also limited against it, so the whole chunk is a
 *   trajectory the robot may follow from where it is (what the trajectory output publishes).
 *   Its only effect on the filter: a chunk accepted from a start position also restarts
 *   `checkStep`'s reference there, so the chunk's row 0 (already ramped from `from`) is not judged
 *   against the last command of the chunk it replaces.
 * - `checkStep` checks the command of one tick and rate-limits it against the last command sent,
 *   or the measured position after start or a hold (the ramp); a command whose end effector
 *   leaves the box (or goes further out) holds. Stateful: remembers the last command.
 *
 * NOTE: a joint target is never projected into the box: that needs IK, which would choose joint
 * motions the policy never asked for. The arm stops at the edge, as a JTC goal past a limit stops.
 *
 * Never throws on bad actions: returns a Verdict. Throws only at construction on a bad profile.
 */
export class SafetyFilter {
  /** Per-dim limits in layout order. */
  readonly limits: readonly DimLimit[];
  private readonly byName: Map<string, DimLimit>;
  private readonly fk?: ForwardKinematics;
  private readonly measuredPose?: (measured: JointPositions) => readonly number[] | null;
  private readonly workspace: RobotProfile["safety"]["workspace"];
  private readonly robot: string;
  private last: JointCommand | null = null;

  constructor(opts: SafetyFilterOptions) {
    this.limits = resolveLimits(opts.profile, opts.layout, opts.controlHz ?? opts.profile.control_hz, opts.eeStep);
    const ee = opts.layout.kind === "end_effector";
    this.measuredPose = ee ? opts.measuredPose ?? measuredPoseOf(opts.profile, opts.layout) : undefined;
    this.byName = new Map(this.limits.map((l) => [l.name, l]));
    this.fk = opts.layout.kind === "joint" ? opts.forwardKinematics ?? forwardKinematicsOf(opts.profile) : undefined;
    this.workspace = opts.profile.safety.workspace;
    this.robot = opts.profile.name;
  }

  /** Validates and clamps a whole chunk (range, then row-to-row delta); with `from`, row 0 also ramps from it. */
  checkChunk(chunk: ActionChunk, from?: JointPositions): Verdict<ActionChunk> {
    const dims = this.resolveNames(chunk.jointNames, chunk.dim, chunk.horizon, chunk.actions.length);
    if (!Array.isArray(dims)) return dims;
    const bad = nonFinite(chunk.actions, chunk.jointNames, chunk.dim);
    if (bad) return bad;
    const out = new Float64Array(chunk.actions);
    const acc = new Map<string, Intervention>();
    let prev: Float64Array | null = null;
    if (from) {
      const start = this.startFrom(dims, from);
      if (!(start instanceof Float64Array)) return start;
      prev = start;
    }
    let accepted: EePoints | null = null;
    let before = from && prev ? this.outside(chunk.jointNames, prev, from) : null;
    for (let k = 0; k < chunk.horizon; k++) {
      const row = out.subarray(k * chunk.dim, (k + 1) * chunk.dim);
      const rowAcc = new Map<string, Intervention>();
      limitRow(row, dims, prev, rowAcc, k);
      const ee = this.endEffectors(chunk.jointNames, row, from);
      const exit = ee && workspaceExitFrom(ee, this.workspace, before);
      if (exit) {
        if (k === 0 || !accepted) return this.workspaceHold(exit, k);
        stopAt(out, k, chunk, exit, accepted, acc);
        break;
      }
      for (const i of rowAcc.values()) merge(acc, i);
      accepted = ee;
      before = ee && outsideDistances(ee, this.workspace);
      prev = row;
    }
    if (from) this.last = null;
    const command: ActionChunk = { jointNames: [...chunk.jointNames], actions: out, horizon: chunk.horizon, dim: chunk.dim };
    return acc.size === 0 ? { kind: "pass", command } : { kind: "clamped", command, interventions: [...acc.values()] };
  }

  /**
   * Checks one tick's command. Rate-limits against the last command this filter let through, or
   * against `measured` after start, `noteHold()` or a hold verdict (the first command ramps).
   */
  checkStep(command: JointCommand, measured?: JointPositions): Verdict<JointCommand> {
    const dim = command.jointNames.length;
    const dims = this.resolveNames(command.jointNames, dim, 1, command.positions.length);
    if (!Array.isArray(dims)) return this.holding(dims);
    const bad = nonFinite(command.positions, command.jointNames, dim);
    if (bad) return this.holding(bad);
    let prev: Float64Array | null = null;
    if (this.last && sameNames(this.last.jointNames, command.jointNames)) {
      prev = this.last.positions;
    } else {
      // No command yet (start), after a hold, or the layout changed: ramp from the measured position.
      if (!measured) {
        return this.holding({ kind: "hold", reason: "stale", details: `no measured joint state to ramp the first command from [robot=${this.robot}]` });
      }
      const start = this.startFrom(dims, measured);
      if (!(start instanceof Float64Array)) return this.holding(start);
      prev = start;
    }
    const row = new Float64Array(command.positions);
    const acc = new Map<string, Intervention>();
    limitRow(row, dims, prev, acc, undefined);
    const ee = this.endEffectors(command.jointNames, row, measured);
    const exit = ee && workspaceExitFrom(ee, this.workspace, this.outside(command.jointNames, prev, measured));
    if (exit) return this.holding(this.workspaceHold(exit, undefined));
    const out: JointCommand = { jointNames: [...command.jointNames], positions: row };
    this.last = out;
    return acc.size === 0 ? { kind: "pass", command: out } : { kind: "clamped", command: out, interventions: [...acc.values()] };
  }

  /** Forget the last command: the next `checkStep` ramps from the measured position. Call on every hold. */
  noteHold(): void {
    this.last = null;
  }

  /** The last command let through by `checkStep`, or null after start/hold. */
  lastCommand(): JointCommand | null {
    return this.last;
  }

  private holding(h: Hold): Hold {
    this.last = null;
    return h;
  }

  /** Maps names to limits; a hold when shape or names are wrong. */
  private resolveNames(names: string[], dim: number, horizon: number, length: number): DimLimit[] | Hold {
    const expected = this.limits.length;
    if (dim !== expected || names.length !== expected || !(horizon >= 1) || length !== horizon * dim) {
      return {
        kind: "hold", reason: "wrong_length",
        details: `action shape horizon=${horizon} dim=${dim} names=${names.length} values=${length}; expected dim ${expected} and values = horizon x dim [robot=${this.robot}]`,
        values: [{ value: length }],
      };
    }
    const dims: DimLimit[] = [];
    for (const n of names) {
      const l = this.byName.get(n);
      if (!l) {
        return { kind: "hold", reason: "unknown_joint", details: `action joint "${n}" is not in the layout (${this.limits.map((x) => x.name).join(", ")}) [robot=${this.robot}]`, values: [{ joint: n, value: n }] };
      }
      dims.push(l);
    }
    if (new Set(names).size !== names.length) {
      return { kind: "hold", reason: "wrong_joints", details: `action joint names repeat a joint: ${names.join(", ")} [robot=${this.robot}]` };
    }
    return dims;
  }

  /** Ramp start vector from measured positions (NaN for pose dims, which have no rate bound). */
  private startFrom(dims: DimLimit[], measured: JointPositions): Float64Array | Hold {
    const start = new Float64Array(dims.length);
    const pose = this.measuredPose?.(measured) ?? null;
    for (let i = 0; i < dims.length; i++) {
      const key = dims[i]!.measuredKey;
      if (key === null) {
        // End-effector pose dim: from FK when given (x, y, z, roll, pitch, yaw = EE_DIMS order), else unbounded.
        const v = pose?.[["x", "y", "z", "roll", "pitch", "yaw"].indexOf(dims[i]!.name)];
        start[i] = v !== undefined && Number.isFinite(v) ? v : Number.NaN;
        continue;
      }
      const v = measured[key];
      if (v === undefined || !Number.isFinite(v)) {
        return { kind: "hold", reason: "stale", details: `measured joint state lacks a finite position for "${key}" (got ${v}) to ramp from [robot=${this.robot}]`, values: [{ joint: key, value: String(v) }] };
      }
      start[i] = v;
    }
    return start;
  }

  /** End-effector points of `row` (the rest of the joints from `measured`), or null without FK. */
  private endEffectors(names: string[], row: Float64Array, measured: JointPositions | undefined): EePoints | null {
    if (!this.fk) return null;
    const full: Record<string, number> = { ...(measured ?? {}) };
    names.forEach((n, i) => { full[n] = row[i]!; });
    return this.fk(full);
  }

  /** How far `row`'s hands are outside the box, by arm (the reference a next row may not exceed). */
  private outside(names: string[], row: Float64Array, measured?: JointPositions): Map<string, number> | null {
    const ee = this.endEffectors(names, row, measured);
    return ee && outsideDistances(ee, this.workspace);
  }

  private workspaceHold(exit: WorkspaceExit, step: number | undefined): Hold {
    const i = "xyz".indexOf(exit.axis);
    return {
      kind: "hold", reason: "workspace",
      details: `${describeExit(exit)}${step === undefined ? "" : ` at step ${step}`}; not sent [robot=${this.robot}]`,
      values: [{ step, joint: exit.arm, value: exit.point[i]! }],
      workspace: exit,
    };
  }
}

/**
 * Stops a chunk at the workspace edge: rows `k`.. repeat row k-1 (the last one `accepted`), with
 * an intervention naming the arm that would have left the box.
 */
function stopAt(
  out: Float64Array, k: number, chunk: ActionChunk, exit: WorkspaceExit, accepted: EePoints,
  acc: Map<string, Intervention>,
): void {
  const last = out.slice((k - 1) * chunk.dim, k * chunk.dim);
  for (let r = k; r < chunk.horizon; r++) out.set(last, r * chunk.dim);
  const i = "xyz".indexOf(exit.axis);
  const held = accepted.find((p) => p.name === exit.arm)?.xyz[i] ?? Number.NaN;
  acc.set(`workspace|${exit.arm}`, {
    kind: "workspace", joint: exit.arm, requested: exit.point[i]!, applied: held, limit: exit.bound,
    step: k, count: chunk.horizon - k, workspace: exit,
  });
}

/** Adds one row's intervention into the chunk's, merging as `note` does. */
function merge(acc: Map<string, Intervention>, i: Intervention): void {
  const had = acc.get(`${i.kind}|${i.joint}`);
  if (!had) { acc.set(`${i.kind}|${i.joint}`, { ...i }); return; }
  had.count += i.count;
  if (Math.abs(i.requested - i.applied) > Math.abs(had.requested - had.applied)) {
    had.requested = i.requested;
    had.applied = i.applied;
  }
}

/** Clamps one row in place: range, then per-tick delta against `prev`, then range again (the ramp never leaves the limits). */
function limitRow(row: Float64Array, dims: DimLimit[], prev: Float64Array | null, acc: Map<string, Intervention>, step: number | undefined): void {
  for (let i = 0; i < dims.length; i++) {
    const d = dims[i]!;
    const requested = row[i]!;
    let v = clamp(requested, d.lower, d.upper);
    if (v !== requested) note(acc, d.rangeKind, d.name, requested, v, requested < d.lower ? d.lower : d.upper, step);
    const p = prev ? prev[i]! : Number.NaN;
    if (d.maxStep !== Infinity && !Number.isNaN(p)) {
      let limited: number;
      if (d.angular) {
        const delta = angleDelta(v, p);
        limited = Math.abs(delta) <= d.maxStep ? v : angleDelta(p + Math.sign(delta) * d.maxStep, 0); // wrapped into (-π, π]
      } else {
        limited = clamp(v, p - d.maxStep, p + d.maxStep);
      }
      if (limited !== v) note(acc, d.stepKind, d.name, v, limited, d.maxStep, step);
      v = clamp(limited, d.lower, d.upper);
    }
    row[i] = v;
  }
}

/** Adds an intervention, merging with one of the same kind on the same joint (keeps the worst). */
function note(acc: Map<string, Intervention>, kind: Intervention["kind"], joint: string, requested: number, applied: number, limit: number, step: number | undefined): void {
  const key = `${kind}|${joint}`;
  const had = acc.get(key);
  if (!had) {
    acc.set(key, step === undefined ? { kind, joint, requested, applied, limit, count: 1 } : { kind, joint, requested, applied, limit, step, count: 1 });
    return;
  }
  had.count++;
  if (Math.abs(requested - applied) > Math.abs(had.requested - had.applied)) {
    had.requested = requested;
    had.applied = applied;
  }
}

/** A hold naming every NaN/Inf entry (row, joint, value), or null when all are finite. */
function nonFinite(values: Float64Array, names: string[], dim: number): Hold | null {
  const found: NonNullable<Hold["values"]> = [];
  let total = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (Number.isFinite(v)) continue;
    total++;
    if (found.length < MAX_VALUES) found.push({ step: Math.floor(i / dim), joint: names[i % dim]!, value: String(v) });
  }
  if (total === 0) return null;
  const first = found[0]!;
  return {
    kind: "hold", reason: "non_finite",
    details: `${total} non-finite action value(s), first ${first.value} at step ${first.step} joint "${first.joint}"; whole chunk rejected`,
    values: found,
  };
}
