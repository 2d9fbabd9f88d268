/**
 * An oracle expert in reactive form for tasks that are a sequence of goals (place an object at a
 * resting spot, push it there, lift it, press a button): the task says, from the twin's ground
 * truth now, which subtask is current (`stage`) and what its goal is, and every command is decided
 * from the world as it is, so it labels any state a policy reaches (DAgger) as
 * ReactivePutBackBlockExpert does for its task. A goal names the arm that works it (two-arm X-One
 * tasks); the other arms rise clear and go home. `chunk` rolls the view forward on the commands;
 * `next` executes such chunks, re-planning every few ticks.
 */
import type { RobotProfile } from "../../robot/types.js";
import type { ObjectId, Quat, SimWorldApi, Vec3 } from "../world/types.js";
import type { Button } from "../tasks/props.js";
import { TABLE_Z, topDownQuat, wrapAngle, yawOf } from "../tasks/geometry.js";
import { gripperSpec } from "./PlanExpert.js";
import { gripWidths, TRAVEL_Z } from "./primitives.js";
import {
  GRIPPER_MPS, PUSH, cubeGraspYaw, dirXy, lift, pick, place, press, push, pushing, rollView, turnToward, withdraw,
  type ArmCommand, type ReactiveView, type Widths,
} from "./reactive.js";
import type { ExpertStep, ReactiveExpert, SubtaskAnnotation } from "./types.js";

/** The arm that works a goal; options.arm where the goal names none. */
interface GoalArm { arm?: string }

/**
 * One goal: put `object` down resting at `restCentre` (world, m), turned to `objectYawRad` when
 * given (picked across `graspYaw` of its orientation, default square to a cube's faces); push it
 * there along the table without lifting it; hold it up with the grasp at `graspZ`; or press
 * `button` once (`counted`: this subtask's press has counted, so the hand only rises off it).
 */
export type ReactiveGoal = GoalArm & (
  | { kind: "place"; object: ObjectId; restCentre: Vec3; objectYawRad?: number; graspYaw?: (q: Quat) => number }
  | { kind: "push"; object: ObjectId; restCentre: Vec3 }
  | { kind: "lift"; object: ObjectId; graspZ: number }
  | { kind: "press"; button: Button; counted: boolean }
);

/** What the expert is given. */
export interface ReactiveGoalsOptions {
  /** The arm of goals that name none, and the one that withdraws once all are achieved. */
  arm: string;
  /**
   * The goals in order, one per subtask text in `texts`; asked once, when the expert first decides
   * (after a video task's demonstration, so goals may depend on where it left the objects).
   * Give this or `goalAt`.
   */
  goals?: () => ReactiveGoal[];
  /** The current goal of subtask `stage`, decided from the ground truth now (tasks whose steps depend on it). */
  goalAt?: (world: SimWorldApi, stage: number) => ReactiveGoal | undefined;
  texts: string[];
  /** Index of the current subtask from ground truth now; texts.length once all are achieved. */
  stage: (world: SimWorldApi) => number;
  controlHz: number;
  /** Ticks between re-plans when executing (`next`); default 4. */
  replanTicks?: number;
  /** Chunk length, ticks; default 8. */
  horizon?: number;
}

/** Largest step of an idle arm's joints toward home per tick, rad. */
const IDLE_STEP_RAD = 0.1;
/** An idle arm lower than this below travel height rises before it goes home, m. */
const IDLE_RISE_M = 0.03;
/** A command this far outside the fingers' width on a held object still squeezes it, m. */
const SQUEEZE_M = 0.005;
/** The hand rises this far above a cap after its press counted (past the withdrawn height), m. */
const PRESS_RISE_M = 0.07;

/**
 * The stage of a task's ground-truth subtask predicates, latched in order as SubtaskProgress does:
 * `done(world, i)` is asked only for the first unfinished subtask (call it every control tick).
 */
export function latchedStage(count: number, done: (world: SimWorldApi, index: number) => boolean): (world: SimWorldApi) => number {
  let stage = 0;
  return (world) => {
    while (stage < count && done(world, stage)) stage++;
    return stage;
  };
}

/** The reactive expert over a goal sequence. Throws when goals and texts differ in length. */
export class ReactiveGoalsExpert implements ReactiveExpert {
  private readonly widths: Widths;
  private readonly home: Float64Array;
  private readonly dtS: number;
  /** How fast the roll-forward's gripper moves: as the robot's own (a command faster than its limit is clamped). */
  private readonly gripperMps: number;
  private plan: Float64Array[] = [];
  private planTick = 0;
  private readonly notes: SubtaskAnnotation[] = [];
  private resolved: ReactiveGoal[] | null = null;

  constructor(world: SimWorldApi, profile: RobotProfile, private readonly o: ReactiveGoalsOptions) {
    if ((o.goals === undefined) === (o.goalAt === undefined)) {
      throw new Error(`reactive expert: give goals or goalAt, not ${o.goals ? "both" : "neither"} [arm=${o.arm}]`);
    }
    this.widths = gripWidths(world, profile);
    this.home = Float64Array.from(world.jointNames().map((n) => profile.home[n] ?? 0));
    this.dtS = 1 / o.controlHz;
    this.gripperMps = Math.min(GRIPPER_MPS, gripperSpec(world, profile, o.arm).velocity_limit);
  }

  /** The goals of a fixed sequence, asked for on first use; throws when their count differs from the subtask texts'. */
  get goals(): ReactiveGoal[] {
    if (this.resolved) return this.resolved;
    const goals = this.o.goals!();
    if (goals.length !== this.o.texts.length) {
      const n = this.o.texts.length;
      throw new Error(`reactive expert: ${goals.length} goals but ${n} subtask texts [arm=${this.o.arm}]`);
    }
    return (this.resolved = goals);
  }

  /** The subtask in progress now (its index; the subtask count once all are done), from the ground truth. */
  stageNow(world: SimWorldApi): number {
    return this.o.stage(world);
  }

  /** The goal of subtask `stage` now (undefined once all are achieved). */
  goal(world: SimWorldApi, stage: number): ReactiveGoal | undefined {
    if (stage >= this.o.texts.length) return undefined;
    return this.o.goalAt ? this.o.goalAt(world, stage) : this.goals[stage];
  }

  /** The arm that works `goal`: whichever holds its object, else the one it names. */
  armOf(world: SimWorldApi, goal: ReactiveGoal | undefined): string {
    if (goal && goal.kind !== "press") {
      const holder = world.armNames.find((a) => world.heldObject(a) === goal.object);
      if (holder) return holder;
    }
    return goal?.arm ?? this.o.arm;
  }

  /** Arm `arm`'s view of goal `goal`'s object now (ground truth). */
  view(world: SimWorldApi, goal: ReactiveGoal | undefined, arm = this.armOf(world, goal)): ReactiveView {
    const idx = world.armJointIndices(arm);
    const cmd = world.jointTargets()[idx.gripper]!;
    const object = goal && goal.kind !== "press" ? world.objectPose(goal.object) : null;
    const grasp = world.graspPoint(arm);
    const graspYaw = (goal?.kind === "place" && goal.graspYaw) || cubeGraspYaw;
    const held = object !== null && world.heldObject(arm) === (goal as { object: ObjectId }).object;
    const gripperM = world.jointPositions()[idx.gripper]!;
    // A policy may command any width: read it as the nearer of open and closed. A command at or inside
    // the fingers on a held object squeezes it: a wide one (a lid), or a close the safety filter's rate
    // limit has only begun, reads closed (read as open, the next chunk let go of it).
    const closing = cmd < this.widths.openM / 2 || (held && cmd <= gripperM + SQUEEZE_M);
    return {
      grasp,
      yawRad: yawOf(world.graspPose(arm).quaternion),
      gripperM,
      gripperCmdM: closing ? this.widths.closedM : this.widths.openM,
      held,
      object: object ? object.position : grasp,
      objectYawRad: object ? graspYaw(object.quaternion) : 0,
      heldObjectYawRad: object ? yawOf(object.quaternion) : 0,
      wristRad: world.jointPositions()[idx.joints.at(-1)!]!,
      pressed: goal?.kind === "press" && (goal.counted || goal.button.pressed),
    };
  }

  /** One tick's command toward `goal` (undefined: all achieved) from view `v`. */
  decide(v: ReactiveView, goal: ReactiveGoal | undefined): ArmCommand {
    if (!goal) return withdraw(v, this.widths, this.dtS);
    if (goal.kind === "push") return push(v, goal.restCentre, TABLE_Z, this.dtS);
    if (goal.kind === "press") {
      const cap = goal.button.capTop;
      return v.pressed ? lift(v, Math.max(v.grasp[2], cap[2] + PRESS_RISE_M), this.dtS) : press(v, cap, this.widths, this.dtS);
    }
    if (!v.held) return pick(v, this.widths, this.dtS);
    switch (goal.kind) {
      case "place": {
        // Aim the object, not the hand: shift the goal by where the fingers hold it (xy).
        const c = goal.restCentre;
        const aim: Vec3 = [c[0] + v.grasp[0] - v.object[0], c[1] + v.grasp[1] - v.object[1], c[2]];
        if (goal.objectYawRad === undefined) return place(v, aim, this.widths, this.dtS);
        // A held object turns with the hand: the hand's yaw that brings the object to its goal yaw.
        const handYaw = wrapAngle(v.yawRad + wrapAngle(goal.objectYawRad - v.heldObjectYawRad));
        return turnToward(v, aim, handYaw, this.widths, this.dtS);
      }
      case "lift": return lift(v, goal.graspZ, this.dtS);
    }
  }

  /** The next `horizon` full joint-target vectors (world joint order) a correct expert commands from here. */
  chunk(world: SimWorldApi, horizon = this.o.horizon ?? 8): Float64Array[] {
    const goal = this.goal(world, this.o.stage(world));
    const arm = this.armOf(world, goal);
    let v = this.view(world, goal, arm);
    const idle = world.armNames.filter((a) => a !== arm).map((a) => this.idleGoal(world, a));
    const capTop = goal?.kind === "press" ? goal.button.capTop : undefined;
    const out: Float64Array[] = [];
    let targets = world.jointPositions();
    // Once the roll-forward lets go of a placed object, the rest of the chunk withdraws (the goal is met
    // there; deciding again would grasp it anew).
    let letGo = false;
    for (let k = 0; k < horizon; k++) {
      const cmd = letGo ? withdraw(v, this.widths, this.dtS) : this.decide(v, goal);
      targets = this.targetsFor(world, targets, arm, cmd, idle);
      out.push(targets);
      const contact = goal?.kind === "push" && pushing(v, goal.restCentre, TABLE_Z);
      const rolled = rollView(v, cmd, this.dtS, capTop, this.gripperMps);
      if (contact) {
        // A pushed object moves ahead of the fingers (rollView knows only grasps), along its own line to
        // the goal: placing it at the fingers plus the contact offset made its sideways error swing
        // wider every step once it was nearer the goal than that offset (and the hand's yaw with it).
        const [ux, uy] = dirXy(v.object, goal.restCentre);
        const fingersAlong = (cmd.grasp[0] - v.object[0]) * ux + (cmd.grasp[1] - v.object[1]) * uy;
        const ahead = Math.max(0, fingersAlong + PUSH.contactM);
        rolled.object = [v.object[0] + ux * ahead, v.object[1] + uy * ahead, v.object[2]];
      }
      letGo ||= goal?.kind === "place" && v.held && !rolled.held;
      v = rolled;
    }
    return out;
  }

  /**
   * Where an arm without a goal heads: straight up to travel height when it is low (never swept
   * through what it just let go of), else its home joints.
   */
  private idleGoal(world: SimWorldApi, arm: string): { arm: string; joints: Float64Array } {
    const { joints, gripper } = world.armJointIndices(arm);
    const goal = Float64Array.from(this.home);
    const g = world.graspPoint(arm);
    if (g[2] < TRAVEL_Z - IDLE_RISE_M) {
      const up = { position: [g[0], g[1], TRAVEL_Z] as Vec3, quaternion: topDownQuat(yawOf(world.graspPose(arm).quaternion)) };
      const ik = world.solveIk(arm, up, joints.map((j) => world.jointPositions()[j]!));
      if (ik.ok || ik.positionErrorM <= 0.02) joints.forEach((j, k) => { goal[j] = ik.positions[k]!; });
      goal[gripper] = world.jointTargets()[gripper]!;
    }
    return { arm, joints: goal };
  }

  private targetsFor(
    world: SimWorldApi, previous: Float64Array, arm: string, cmd: ArmCommand, idle: { arm: string; joints: Float64Array }[],
  ): Float64Array {
    const t = Float64Array.from(previous);
    const { joints, gripper } = world.armJointIndices(arm);
    // Seeded from the home posture, so the arm's posture at a pose does not depend on the path there;
    // the wrist from where it is, so a hand turned near a half turn stays on its side of the wrist's range.
    const seed = joints.map((j) => this.home[j]!);
    seed[seed.length - 1] = previous[joints.at(-1)!]!;
    const ik = world.solveIk(arm, { position: cmd.grasp, quaternion: topDownQuat(cmd.yawRad) }, seed);
    if (ik.ok || ik.positionErrorM <= 0.02) joints.forEach((j, k) => { t[j] = ik.positions[k]!; });
    t[gripper] = cmd.gripperM;
    for (const other of idle) {
      const ix = world.armJointIndices(other.arm);
      for (const j of [...ix.joints, ix.gripper]) {
        t[j] = t[j]! + Math.max(-IDLE_STEP_RAD, Math.min(IDLE_STEP_RAD, other.joints[j]! - t[j]!));
      }
    }
    return t;
  }

  next(world: SimWorldApi, step: number): ExpertStep {
    const stage = this.o.stage(world);
    const ended = this.note(stage, step);
    if (this.planTick >= (this.o.replanTicks ?? 4) || this.planTick >= this.plan.length) {
      this.plan = this.chunk(world);
      this.planTick = 0;
    }
    const targets = this.plan[this.planTick++]!;
    const finished = stage >= this.o.texts.length;
    const done = finished && world.armNames.every((a) => world.graspPoint(a)[2] >= TRAVEL_Z - 0.02);
    const out: ExpertStep = { targets: Float64Array.from(targets), done };
    if (ended !== undefined) out.subtaskEnded = ended;
    if (!finished) out.subtask = this.o.texts[stage];
    return out;
  }

  /** Annotations follow the stage: a new stage ends the running subtask on this step. */
  private note(stage: number, step: number): string | undefined {
    const n = this.o.texts.length;
    let ended: string | undefined;
    while (this.notes.length <= Math.min(stage, n)) {
      const last = this.notes.at(-1);
      if (last && last.endStep === null) { last.endStep = step; ended = last.text; }
      if (this.notes.length === n) break;
      this.notes.push({ text: this.o.texts[this.notes.length]!, startStep: step, endStep: null });
    }
    return ended;
  }

  annotations(): SubtaskAnnotation[] {
    return this.notes.map((n) => ({ ...n }));
  }
}
