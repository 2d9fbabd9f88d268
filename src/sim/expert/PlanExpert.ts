/**
 * A waypoint-sequence scripted expert. A plan is a list of subtasks; each subtask expands, when it
 * starts, into primitive ops (Cartesian straight-line moves of an arm's grasp frame through IK,
 * gripper commands that may wait for a grasp or release, waits). One `next` call = one control
 * tick: the expert advances the current op and returns the full joint target vector.
 */
import type { RobotProfile } from "../../robot/types.js";
import type { SimWorldApi, Vec3 } from "../world/types.js";
import { dist, lerp, topDownQuat } from "../tasks/geometry.js";
import type { ExpertStep, ScriptedExpert, SubtaskAnnotation } from "./types.js";

/** One primitive of a plan. Positions are grasp-frame positions in the world frame, m. */
export type ExpertOp =
  /**
   * Straight line from the last commanded position to `to` with a top-down grasp frame of yaw `yawRad`.
   * `nearContact`: a descent or lift next to objects, where the path must be exact (no perturbation).
   */
  | { kind: "move"; arm: string; to: Vec3; yawRad?: number; speedMps?: number; nearContact?: boolean }
  /** Sets the gripper opening; waits `minTicks`, then until the condition holds or `maxTicks` pass. */
  | { kind: "gripper"; arm: string; widthM: number; until?: "held" | "released"; minTicks: number; maxTicks: number }
  | { kind: "wait"; ticks: number }
  /**
   * Joint-space move of the arm's 7 joints to `positions` (e.g. its home pose, so the arm's
   * redundant posture is restored exactly); ends once every joint is within 0.005 rad, or after
   * twice the settle limit. Afterwards the commanded grasp frame is the measured one, yaw `yawRad`.
   */
  | { kind: "joints"; arm: string; positions: number[]; yawRad: number };

/** A subtask of a plan: its annotation text and the ops it expands to when it starts (reads world state then). */
export interface PlannedSubtask {
  text: string;
  ops: (world: SimWorldApi) => ExpertOp[];
}

/** Tuning of the expert's motions. */
export interface PlanExpertOptions {
  /** Control rate, Hz (the profile's control_hz). */
  controlHz: number;
  /** Default Cartesian speed, m/s. */
  speedMps?: number;
  /** A move ends once the measured grasp point is this close to its goal, m... */
  reachTolM?: number;
  /** ...or this many ticks after its interpolation finished. */
  maxSettleTicks?: number;
}

interface RunningOp {
  op: ExpertOp;
  tick: number;
  from?: Vec3;
  steps?: number;
}

/** The gripper opening used as "open" for an arm: its joint's upper limit from the profile (capped at 8 cm). */
export function gripperOpenWidth(world: SimWorldApi, profile: RobotProfile, arm: string): number {
  return Math.min(gripperSpec(world, profile, arm).upper, 0.08);
}

/** The profile's entry for arm `arm`'s gripper joint; throws naming a joint the profile lacks. */
export function gripperSpec(world: SimWorldApi, profile: RobotProfile, arm: string): RobotProfile["joints"][number] {
  const name = world.jointNames()[world.armJointIndices(arm).gripper];
  const spec = profile.joints.find((j) => j.name === name);
  if (!spec) throw new Error(`expert: gripper joint "${name}" of arm "${arm}" is not in robot profile "${profile.name}"`);
  return spec;
}

/** Runs a plan of subtasks as a ScriptedExpert. */
export class PlanExpert implements ScriptedExpert {
  private readonly targets: Float64Array;
  private readonly commanded = new Map<string, { position: Vec3; yawRad: number }>();
  private readonly notes: SubtaskAnnotation[] = [];
  private subtaskIndex = -1;
  private queue: ExpertOp[] = [];
  private current: RunningOp | null = null;
  private readonly speedMps: number;
  private readonly reachTolM: number;
  private readonly maxSettleTicks: number;

  constructor(world: SimWorldApi, private readonly plan: PlannedSubtask[], private readonly options: PlanExpertOptions) {
    this.targets = Float64Array.from(world.jointPositions());
    for (const arm of world.armNames) this.commanded.set(arm, { position: world.graspPose(arm).position, yawRad: 0 });
    this.speedMps = options.speedMps ?? 0.3;
    this.reachTolM = options.reachTolM ?? 0.01;
    this.maxSettleTicks = options.maxSettleTicks ?? Math.round(options.controlHz * 1.5);
  }

  annotations(): SubtaskAnnotation[] {
    return this.notes.map((n) => ({ ...n }));
  }

  next(world: SimWorldApi, step: number): ExpertStep {
    if (this.subtaskIndex < 0) this.startSubtask(world, 0, step);
    let ended: string | undefined;
    // Advance ops within this subtask until one needs more ticks; a finished subtask ends the tick.
    for (let guard = 0; guard < 64 && this.subtaskIndex < this.plan.length; guard++) {
      if (!this.current) {
        const op = this.queue.shift();
        if (!op) {
          const note = this.notes[this.subtaskIndex]!;
          note.endStep = step;
          ended = note.text;
          this.startSubtask(world, this.subtaskIndex + 1, step + 1);
          break;
        }
        this.current = { op, tick: 0 };
      }
      if (!this.advance(world, this.current)) break;
      this.current = null;
    }
    const done = this.subtaskIndex >= this.plan.length;
    const out: ExpertStep = { targets: Float64Array.from(this.targets), done };
    const run = this.current;
    if (run?.op.kind === "move" && !run.op.nearContact && run.steps !== undefined) out.moveProgress = Math.min(1, run.tick / run.steps);
    if (ended !== undefined) out.subtaskEnded = ended;
    if (!done) out.subtask = this.plan[this.subtaskIndex]!.text;
    return out;
  }

  private startSubtask(world: SimWorldApi, index: number, step: number): void {
    this.subtaskIndex = index;
    this.current = null;
    if (index >= this.plan.length) { this.queue = []; return; }
    const sub = this.plan[index]!;
    this.queue = sub.ops(world);
    this.notes.push({ text: sub.text, startStep: step, endStep: null });
  }

  /** Runs one tick of an op; returns true when the op is finished. */
  private advance(world: SimWorldApi, run: RunningOp): boolean {
    const op = run.op;
    run.tick++;
    switch (op.kind) {
      case "wait":
        return run.tick >= op.ticks;
      case "joints": {
        const { joints } = world.armJointIndices(op.arm);
        joints.forEach((j, k) => { this.targets[j] = op.positions[k]!; });
        const measured = world.jointPositions();
        if (!joints.every((j, k) => Math.abs(measured[j]! - op.positions[k]!) <= 0.005) && run.tick < this.maxSettleTicks * 2) return false;
        this.commanded.set(op.arm, { position: world.graspPose(op.arm).position, yawRad: op.yawRad });
        return true;
      }
      case "gripper": {
        this.targets[world.armJointIndices(op.arm).gripper] = op.widthM;
        if (run.tick < op.minTicks) return false;
        if (run.tick >= op.maxTicks || op.until === undefined) return true;
        const held = world.heldObject(op.arm) !== null;
        return op.until === "held" ? held : !held;
      }
      case "move": {
        const cmd = this.commanded.get(op.arm);
        if (!cmd) throw new Error(`expert: arm "${op.arm}" is not in the world (arms: ${world.armNames.join(", ")})`);
        const yawRad = op.yawRad ?? cmd.yawRad;
        if (run.from === undefined) {
          run.from = cmd.position;
          const stepM = (op.speedMps ?? this.speedMps) / this.options.controlHz;
          run.steps = Math.max(1, Math.ceil(dist(run.from, op.to) / stepM));
        }
        const steps = run.steps!;
        const goal = run.tick <= steps ? lerp(run.from, op.to, run.tick / steps) : op.to;
        this.aim(world, op.arm, goal, yawRad);
        if (run.tick < steps) return false;
        this.commanded.set(op.arm, { position: op.to, yawRad });
        const reached = dist(world.graspPoint(op.arm), op.to) <= this.reachTolM;
        return reached || run.tick - steps >= this.maxSettleTicks;
      }
    }
  }

  /** Writes the IK solution for the arm's grasp frame at `goal` into the targets; holds the arm when IK is far off. */
  private aim(world: SimWorldApi, arm: string, goal: Vec3, yawRad: number): void {
    const ik = world.solveIk(arm, { position: goal, quaternion: topDownQuat(yawRad) });
    if (!ik.ok && ik.positionErrorM > 0.02) return;
    const { joints } = world.armJointIndices(arm);
    joints.forEach((j, k) => { this.targets[j] = ik.positions[k]!; });
  }
}
