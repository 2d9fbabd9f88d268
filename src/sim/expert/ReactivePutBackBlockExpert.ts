/**
 * Put Back Block's oracle expert in reactive form: every decision is made from the twin's ground
 * truth now (arm joints, block pose, what the gripper holds, whether the press after the centre
 * happened) and the remembered original mat, so it labels any state a policy reaches (DAgger) and
 * solves the task from perturbed starts. `chunk` is the H-step command a correct expert would send
 * from here (rolled forward as a tracking arm would follow it); `next` executes such chunks,
 * re-planning every few ticks, as the runtime executes a policy's chunks.
 */
import type { RobotProfile } from "../../robot/types.js";
import type { SimWorldApi, Vec3 } from "../world/types.js";
import { distXy, topDownQuat, yawOf } from "../tasks/geometry.js";
import type { PutBackBlockScene } from "../tasks/put-back-block.js";
import { armFor, gripWidths, TRAVEL_Z } from "./primitives.js";
import { cubeGraspYaw, pick, place, press, rollView, withdraw, type ArmCommand, type ReactiveView, type Widths } from "./reactive.js";
import type { ExpertStep, ReactiveExpert, SubtaskAnnotation } from "./types.js";

/** What the expert is doing; the first three are the task's subtasks in order. */
export type PutBackBlockPhase = "to-centre" | "press" | "put-back" | "done";
const PHASES: PutBackBlockPhase[] = ["to-centre", "press", "put-back"];

/** Same tolerances as the task's success checks (src/sim/tasks/put-back-block.ts). */
const AT_CENTRE_TOL_M = 0.04;
const ON_MAT_TOL_M = 0.03;
const REST_TOL_Z_M = 0.015;
/** Largest step of the idle arm's joints toward home per tick, rad. */
const IDLE_STEP_RAD = 0.1;

export interface ReactiveOptions {
  controlHz: number;
  /** Ticks between re-plans when executing (`next`); default 4. */
  replanTicks?: number;
  /** Chunk length, ticks; default 8. */
  horizon?: number;
}

export class ReactivePutBackBlockExpert implements ReactiveExpert {
  readonly arm: string;
  private readonly widths: Widths;
  private readonly home: Float64Array;
  private readonly dtS: number;
  private readonly restZ: number;
  private plan: Float64Array[] = [];
  private planTick = 0;
  private readonly notes: SubtaskAnnotation[] = [];

  constructor(
    world: SimWorldApi, private readonly scene: PutBackBlockScene, private readonly texts: string[],
    profile: RobotProfile, private readonly options: ReactiveOptions,
  ) {
    const original = scene.mats[scene.originalMat]!;
    this.arm = armFor(world, original[1]);
    this.widths = gripWidths(world, profile);
    this.home = Float64Array.from(world.jointNames().map((n) => profile.home[n] ?? 0));
    this.dtS = 1 / options.controlHz;
    this.restZ = original[2];
  }

  /** The working arm's view of the world now (ground truth). */
  view(world: SimWorldApi): ReactiveView {
    const idx = world.armJointIndices(this.arm);
    const cmd = world.jointTargets()[idx.gripper]!;
    const block = world.objectPose(this.scene.block);
    return {
      grasp: world.graspPoint(this.arm),
      yawRad: yawOf(world.graspPose(this.arm).quaternion),
      gripperM: world.jointPositions()[idx.gripper]!,
      // A policy may command any width: read it as the nearer of open and closed.
      gripperCmdM: cmd >= this.widths.openM / 2 ? this.widths.openM : this.widths.closedM,
      held: world.heldObject(this.arm) === this.scene.block,
      object: block.position,
      objectYawRad: cubeGraspYaw(block.quaternion),
      heldObjectYawRad: yawOf(block.quaternion),
      wristRad: world.jointPositions()[idx.joints.at(-1)!]!,
      pressed: this.scene.pressedAfterCentreStep !== null,
    };
  }

  /** The phase a view is in: the first subtask not yet achieved. */
  phase(v: ReactiveView): PutBackBlockPhase {
    const rests = (target: Vec3, tol: number) => !v.held && distXy(v.object, target) <= tol && Math.abs(v.object[2] - this.restZ) <= REST_TOL_Z_M;
    if (!v.pressed) return rests(this.scene.centre, AT_CENTRE_TOL_M) ? "press" : "to-centre";
    return rests(this.scene.mats[this.scene.originalMat]!, ON_MAT_TOL_M) ? "done" : "put-back";
  }

  /** One tick's command for the working arm from view `v`. */
  decide(v: ReactiveView): ArmCommand {
    const w = this.widths;
    switch (this.phase(v)) {
      case "to-centre": return v.held ? place(v, this.scene.centre, w, this.dtS) : pick(v, w, this.dtS);
      case "press": return press(v, this.scene.button.capTop, w, this.dtS);
      case "put-back": return v.held ? place(v, this.scene.mats[this.scene.originalMat]!, w, this.dtS) : pick(v, w, this.dtS);
      case "done": return withdraw(v, w, this.dtS);
    }
  }

  /** The next `horizon` full joint-target vectors (world joint order) a correct expert commands from here. */
  chunk(world: SimWorldApi, horizon = this.options.horizon ?? 8): Float64Array[] {
    let v = this.view(world);
    const out: Float64Array[] = [];
    let targets = world.jointPositions();
    const idle = world.armNames.filter((a) => a !== this.arm);
    for (let k = 0; k < horizon; k++) {
      const cmd = this.decide(v);
      targets = this.targetsFor(world, targets, cmd, idle);
      out.push(targets);
      v = rollView(v, cmd, this.dtS, this.scene.button.capTop);
    }
    return out;
  }

  private targetsFor(world: SimWorldApi, previous: Float64Array, cmd: ArmCommand, idle: string[]): Float64Array {
    const t = Float64Array.from(previous);
    const { joints, gripper } = world.armJointIndices(this.arm);
    // Seeded from the home posture, not the measured joints: the 7-joint arm's posture at a grasp pose then
    // does not depend on the path there, so the joints do not tell which mat the block came from (only the
    // anchor memory should).
    const seed = joints.map((j) => this.home[j]!);
    const ik = world.solveIk(this.arm, { position: cmd.grasp, quaternion: topDownQuat(cmd.yawRad) }, seed);
    if (ik.ok || ik.positionErrorM <= 0.02) joints.forEach((j, k) => { t[j] = ik.positions[k]!; });
    t[gripper] = cmd.gripperM;
    for (const arm of idle) {
      const ix = world.armJointIndices(arm);
      for (const j of [...ix.joints, ix.gripper]) {
        const d = this.home[j]! - t[j]!;
        t[j] = t[j]! + Math.max(-IDLE_STEP_RAD, Math.min(IDLE_STEP_RAD, d));
      }
    }
    return t;
  }

  next(world: SimWorldApi, step: number): ExpertStep {
    const v = this.view(world);
    const phase = this.phase(v);
    const ended = this.note(phase, step);
    if (this.planTick >= (this.options.replanTicks ?? 4) || this.planTick >= this.plan.length) {
      this.plan = this.chunk(world);
      this.planTick = 0;
    }
    const targets = this.plan[this.planTick++]!;
    const done = phase === "done" && v.grasp[2] >= TRAVEL_Z - 0.02;
    const out: ExpertStep = { targets: Float64Array.from(targets), done };
    if (ended !== undefined) out.subtaskEnded = ended;
    if (phase !== "done") out.subtask = this.texts[PHASES.indexOf(phase)];
    return out;
  }

  /** Annotations follow the phase: a new phase ends the running subtask on this step. */
  private note(phase: PutBackBlockPhase, step: number): string | undefined {
    const index = phase === "done" ? PHASES.length : PHASES.indexOf(phase);
    let ended: string | undefined;
    while (this.notes.length <= index) {
      const last = this.notes.at(-1);
      if (last && last.endStep === null) { last.endStep = step; ended = last.text; }
      if (this.notes.length === PHASES.length) break;
      this.notes.push({ text: this.texts[this.notes.length]!, startStep: step, endStep: null });
    }
    return ended;
  }

  annotations(): SubtaskAnnotation[] {
    return this.notes.map((n) => ({ ...n }));
  }
}
