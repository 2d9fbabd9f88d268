/**
 * A one-arm oracle expert in reactive form for tasks that are a sequence of object goals (place an
 * object at a resting spot, lift an object to a height): the task says, from the twin's ground truth
 * now, which goal is current (`stage`), and every command is decided from the world as it is, so it
 * labels any state a policy reaches (DAgger) as ReactivePutBackBlockExpert does for its task. `chunk`
 * rolls the view forward on the commands; `next` executes such chunks, re-planning every few ticks.
 */
import type { RobotProfile } from "../../robot/types.js";
import type { ObjectId, SimWorldApi, Vec3 } from "../world/types.js";
import { TABLE_Z, topDownQuat, yawOf } from "../tasks/geometry.js";
import { gripWidths, TRAVEL_Z } from "./primitives.js";
import {
  PUSH, cubeGraspYaw, dirXy, lift, pick, place, push, pushing, rollView, withdraw,
  type ArmCommand, type ReactiveView, type Widths,
} from "./reactive.js";
import type { ExpertStep, ReactiveExpert, SubtaskAnnotation } from "./types.js";

/**
 * One goal: put `object` down resting at `restCentre` (world, m), or push it there along the table
 * without lifting it, or hold it up with the grasp at `graspZ`.
 */
export type ReactiveGoal =
  | { kind: "place"; object: ObjectId; restCentre: Vec3 }
  | { kind: "push"; object: ObjectId; restCentre: Vec3 }
  | { kind: "lift"; object: ObjectId; graspZ: number };

/** What the expert is given. */
export interface ReactiveGoalsOptions {
  arm: string;
  /**
   * The goals in order, one per subtask text in `texts`; asked once, when the expert first decides
   * (after a video task's demonstration, so goals may depend on where it left the objects).
   */
  goals: () => ReactiveGoal[];
  texts: string[];
  /** Index of the current goal from ground truth now; goals.length once all are achieved. */
  stage: (world: SimWorldApi) => number;
  controlHz: number;
  /** Ticks between re-plans when executing (`next`); default 4. */
  replanTicks?: number;
  /** Chunk length, ticks; default 8. */
  horizon?: number;
}

/** Largest step of an idle arm's joints toward home per tick, rad. */
const IDLE_STEP_RAD = 0.1;

/** The reactive expert over a goal sequence. Throws when goals and texts differ in length. */
export class ReactiveGoalsExpert implements ReactiveExpert {
  private readonly widths: Widths;
  private readonly home: Float64Array;
  private readonly dtS: number;
  private plan: Float64Array[] = [];
  private planTick = 0;
  private readonly notes: SubtaskAnnotation[] = [];
  private resolved: ReactiveGoal[] | null = null;

  constructor(world: SimWorldApi, profile: RobotProfile, private readonly o: ReactiveGoalsOptions) {
    this.widths = gripWidths(world, profile);
    this.home = Float64Array.from(world.jointNames().map((n) => profile.home[n] ?? 0));
    this.dtS = 1 / o.controlHz;
  }

  /** The goals, asked for on first use; throws when their count differs from the subtask texts'. */
  get goals(): ReactiveGoal[] {
    if (this.resolved) return this.resolved;
    const goals = this.o.goals();
    if (goals.length !== this.o.texts.length) {
      const n = this.o.texts.length;
      throw new Error(`reactive expert: ${goals.length} goals but ${n} subtask texts [arm=${this.o.arm}]`);
    }
    return (this.resolved = goals);
  }

  /** The working arm's view of goal `goal`'s object now (ground truth). */
  view(world: SimWorldApi, goal: ReactiveGoal | undefined): ReactiveView {
    const idx = world.armJointIndices(this.o.arm);
    const cmd = world.jointTargets()[idx.gripper]!;
    const object = goal ? world.objectPose(goal.object) : null;
    const grasp = world.graspPoint(this.o.arm);
    return {
      grasp,
      yawRad: yawOf(world.graspPose(this.o.arm).quaternion),
      gripperM: world.jointPositions()[idx.gripper]!,
      // A policy may command any width: read it as the nearer of open and closed.
      gripperCmdM: cmd >= this.widths.openM / 2 ? this.widths.openM : this.widths.closedM,
      held: goal !== undefined && world.heldObject(this.o.arm) === goal.object,
      object: object ? object.position : grasp,
      objectYawRad: object ? cubeGraspYaw(object.quaternion) : 0,
      pressed: false,
    };
  }

  /** One tick's command toward `goal` (undefined: all achieved) from view `v`. */
  decide(v: ReactiveView, goal: ReactiveGoal | undefined): ArmCommand {
    if (!goal) return withdraw(v, this.widths, this.dtS);
    if (goal.kind === "push") return push(v, goal.restCentre, TABLE_Z, this.dtS);
    if (!v.held) return pick(v, this.widths, this.dtS);
    switch (goal.kind) {
      case "place": {
        // Aim the object, not the hand: shift the goal by where the fingers hold it (xy).
        const c = goal.restCentre;
        const aim: Vec3 = [c[0] + v.grasp[0] - v.object[0], c[1] + v.grasp[1] - v.object[1], c[2]];
        return place(v, aim, this.widths, this.dtS);
      }
      case "lift": return lift(v, goal.graspZ, this.dtS);
    }
  }

  /** The next `horizon` full joint-target vectors (world joint order) a correct expert commands from here. */
  chunk(world: SimWorldApi, horizon = this.o.horizon ?? 8): Float64Array[] {
    const goal = this.goals[this.o.stage(world)];
    let v = this.view(world, goal);
    const out: Float64Array[] = [];
    let targets = world.jointPositions();
    for (let k = 0; k < horizon; k++) {
      const cmd = this.decide(v, goal);
      targets = this.targetsFor(world, targets, cmd);
      out.push(targets);
      const contact = goal?.kind === "push" && pushing(v, goal.restCentre, TABLE_Z);
      const rolled = rollView(v, cmd, this.dtS);
      if (contact) {
        // A pushed object moves ahead of the fingers (rollView knows only grasps).
        const [ux, uy] = dirXy(v.object, goal.restCentre);
        rolled.object = [cmd.grasp[0] + ux * PUSH.contactM, cmd.grasp[1] + uy * PUSH.contactM, v.object[2]];
      }
      v = rolled;
    }
    return out;
  }

  private targetsFor(world: SimWorldApi, previous: Float64Array, cmd: ArmCommand): Float64Array {
    const t = Float64Array.from(previous);
    const { joints, gripper } = world.armJointIndices(this.o.arm);
    // Seeded from the home posture, so the arm's posture at a pose does not depend on the path there.
    const seed = joints.map((j) => this.home[j]!);
    const ik = world.solveIk(this.o.arm, { position: cmd.grasp, quaternion: topDownQuat(cmd.yawRad) }, seed);
    if (ik.ok || ik.positionErrorM <= 0.02) joints.forEach((j, k) => { t[j] = ik.positions[k]!; });
    t[gripper] = cmd.gripperM;
    for (const arm of world.armNames.filter((a) => a !== this.o.arm)) {
      const ix = world.armJointIndices(arm);
      for (const j of [...ix.joints, ix.gripper]) {
        t[j] = t[j]! + Math.max(-IDLE_STEP_RAD, Math.min(IDLE_STEP_RAD, this.home[j]! - t[j]!));
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
    const finished = stage >= this.goals.length;
    const done = finished && world.graspPoint(this.o.arm)[2] >= TRAVEL_Z - 0.02;
    const out: ExpertStep = { targets: Float64Array.from(targets), done };
    if (ended !== undefined) out.subtaskEnded = ended;
    if (!finished) out.subtask = this.o.texts[stage];
    return out;
  }

  /** Annotations follow the stage: a new stage ends the running subtask on this step. */
  private note(stage: number, step: number): string | undefined {
    let ended: string | undefined;
    while (this.notes.length <= Math.min(stage, this.goals.length)) {
      const last = this.notes.at(-1);
      if (last && last.endStep === null) { last.endStep = step; ended = last.text; }
      if (this.notes.length === this.goals.length) break;
      this.notes.push({ text: this.o.texts[this.notes.length]!, startStep: step, endStep: null });
    }
    return ended;
  }

  annotations(): SubtaskAnnotation[] {
    return this.notes.map((n) => ({ ...n }));
  }
}
