/**
 * The sim twin's physical world (rapier3d, z up): a fixed table, kinematic arms posed by forward
 * kinematics of the measured joints, a rate-limited joint controller, dynamic objects that never
 * sleep, and a grasp made of a fixed joint when a closing gripper touches an object with both
 * fingers (released when it opens). Deterministic: the same calls in the same order give
 * bit-identical states. Implements SimWorldApi (types.ts) for tasks and experts.
 */
import RAPIER from "@dimforge/rapier3d-compat";
import type { RobotProfile } from "../../robot/types.js";
import { fromPose, toPose, type Transform } from "../../robot/kinematics/transform.js";
import { armModelsFor, fixedFrames, type ArmModel } from "../robots/index.js";
import { armFrame, createArmBodies, poseArm, type ArmBodies } from "./armBodies.js";
import { GraspManager } from "./grasp.js";
import { trackTargets, type JointLimits } from "./jointController.js";
import { ObjectStore } from "./objects.js";
import { worldMeshes } from "./meshes.js";
import { TABLE } from "./table.js";
import type { ObjectId, ObjectSpec, Pose3, RenderMesh, SimWorldApi, Vec3 } from "./types.js";


/** Options of a SimWorld: the robot profile and the physics rate. */
export interface SimWorldOptions {
  profile: RobotProfile;
  /** Physics steps per second; at least 240 (default 240). */
  physicsHz?: number;
  /** Arm models; default armModelsFor(profile). */
  models?: ArmModel[];
}

let rapierReady: Promise<void> | null = null;

/** Loads rapier's wasm once per process. */
export function initPhysics(): Promise<void> {
  rapierReady ??= RAPIER.init();
  return rapierReady;
}

/**
 * rapier's World.step without its per-step `mapNewSoftBodies()`, which walks every body and collider
 * handle through wasm callbacks to wrap what soft-body tears create (an eighth of a step's CPU here):
 * this world has no soft bodies, and the bodies and colliders it removes are unmapped on removal.
 */
function stepRigidBodies(w: RAPIER.World): void {
  w.physicsPipeline.step(w.gravity, w.integrationParameters, w.islands, w.broadPhase, w.narrowPhase, w.bodies, w.colliders,
    w.softBodies, w.impulseJoints, w.multibodyJoints, w.ccdSolver);
}

/** The rapier world of one robot. Create with `SimWorld.create`, call `reset()` per episode, `step()` per physics tick. */
export class SimWorld implements SimWorldApi {
  readonly physicsHz: number;
  readonly dtS: number;
  readonly armNames: string[];
  private world!: RAPIER.World;
  private arms: ArmBodies[] = [];
  private objects!: ObjectStore;
  private grasp!: GraspManager;
  private readonly limits: JointLimits;
  private readonly names: string[];
  private readonly models: ArmModel[];
  private readonly fixed: Record<string, Transform>;
  private measured: Float64Array;
  private velocity: Float64Array;
  private targets: Float64Array;
  private floor: Float64Array;
  private steps = 0;

  private constructor(readonly profile: RobotProfile, physicsHz: number, models: ArmModel[]) {
    if (!(physicsHz >= 240)) throw new Error(`sim: physics rate ${physicsHz} Hz is below the minimum 240 Hz`);
    this.physicsHz = physicsHz;
    this.dtS = 1 / physicsHz;
    this.models = models;
    this.fixed = fixedFrames(profile);
    this.armNames = profile.arms.map((a) => a.name);
    this.names = profile.joints.map((j) => j.name);
    const n = this.names.length;
    this.limits = {
      lower: Float64Array.from(profile.joints, (j) => j.lower),
      upper: Float64Array.from(profile.joints, (j) => j.upper),
      velocity: Float64Array.from(profile.joints, (j) => j.velocity_limit),
    };
    this.measured = new Float64Array(n);
    this.velocity = new Float64Array(n);
    this.targets = new Float64Array(n);
    this.floor = new Float64Array(n).fill(-Infinity);
  }

  /** Loads rapier and builds a world for `profile`, reset to the home pose. */
  static async create(opts: SimWorldOptions): Promise<SimWorld> {
    await initPhysics();
    const w = new SimWorld(opts.profile, opts.physicsHz ?? 240, opts.models ?? armModelsFor(opts.profile));
    w.reset();
    // NOTE: the first rapier steps compile wasm code paths lazily (seconds on a loaded machine);
    // pay that here, with a resting object in contact, not inside a real-time loop.
    w.addObject({ name: "warmup", shape: { kind: "box", halfExtents: [0.02, 0.02, 0.02] }, color: [0, 0, 0], pose: { position: [0.45, 0, 0.77], quaternion: [0, 0, 0, 1] }, body: "dynamic" });
    for (let i = 0; i < 3; i++) w.step();
    w.reset();
    return w;
  }

  /** Sim time since reset, ns (step count × physics period, rounded to the ns). */
  get timeNs(): bigint {
    return BigInt(Math.round((this.steps * 1e9) / this.physicsHz));
  }

  /** Physics steps since reset. */
  get stepCount(): number {
    return this.steps;
  }

  /** Time of physics step `k` since reset, ns. */
  stepTimeNs(k: number): bigint {
    return BigInt(Math.round((k * 1e9) / this.physicsHz));
  }

  /** Drops every object and the old physics world; joints back to the profile's home pose (targets too). */
  reset(): void {
    this.world?.free();
    this.world = new RAPIER.World({ x: 0, y: 0, z: -9.81 });
    this.world.timestep = this.dtS;
    this.steps = 0;
    const home = this.profile.home;
    this.names.forEach((name, i) => {
      const v = home[name];
      if (v === undefined) throw new Error(`robot profile "${this.profile.name}": home has no value for joint "${name}"`);
      this.measured[i] = v;
    });
    this.targets.set(this.measured);
    this.velocity.fill(0);
    this.floor.fill(-Infinity);
    const [tx, ty, tz] = TABLE.center, [hx, hy, hz] = TABLE.halfExtents;
    const table = this.world.createRigidBody(RAPIER.RigidBodyDesc.fixed().setTranslation(tx, ty, tz - hz));
    this.world.createCollider(RAPIER.ColliderDesc.cuboid(hx, hy, hz).setFriction(0.8), table);
    this.arms = this.profile.arms.map((spec, k) => {
      const jointIdx = spec.joints.map((j) => this.indexOf(j));
      const gripperIdx = this.indexOf(spec.gripper);
      return createArmBodies(RAPIER, this.world, this.models[k]!, jointIdx, gripperIdx, jointIdx.map((i) => this.measured[i]!), this.measured[gripperIdx]!);
    });
    this.objects = new ObjectStore(RAPIER, this.world);
    this.grasp = new GraspManager(RAPIER, this.world, this.objects);
  }

  /** One physics step: joint controller, arm posing, rapier step, grasp make/break. */
  step(): void {
    for (const arm of this.arms) this.floor[arm.gripperIdx] = this.grasp.heldWidth(arm) ?? -Infinity;
    trackTargets(this.measured, this.targets, this.limits, this.dtS, this.velocity, this.floor);
    for (const arm of this.arms) poseArm(arm, arm.jointIdx.map((i) => this.measured[i]!), this.measured[arm.gripperIdx]!);
    stepRigidBodies(this.world);
    for (const arm of this.arms) this.grasp.update(arm, this.measured[arm.gripperIdx]!, this.targets[arm.gripperIdx]!, this.velocity[arm.gripperIdx]!);
    this.steps++;
  }

  /** Frees the wasm world. */
  dispose(): void {
    this.world.free();
  }

  private indexOf(joint: string): number {
    const i = this.names.indexOf(joint);
    if (i < 0) throw new Error(`robot profile "${this.profile.name}": joint "${joint}" is not in joints[]`);
    return i;
  }

  private arm(name: string): ArmBodies {
    const k = this.armNames.indexOf(name);
    if (k < 0) throw new Error(`sim: unknown arm "${name}" (arms: ${this.armNames.join(", ")})`);
    return this.arms[k]!;
  }

  addObject(spec: ObjectSpec): ObjectId { return this.objects.add(spec); }
  removeObject(id: ObjectId): void { this.grasp.forget(id); this.objects.remove(id); }
  objectPose(id: ObjectId): Pose3 { return this.objects.pose(id); }
  setObjectPose(id: ObjectId, pose: Pose3): void { this.grasp.forget(id); this.objects.setPose(id, pose); }
  objectSpec(id: ObjectId): ObjectSpec { return this.objects.spec(id); }
  setObjectColor(id: ObjectId, color: Vec3): void { this.objects.setColor(id, color); }
  /** Ids of every object in the world, in creation order. */
  objectIds(): ObjectId[] { return this.objects.ids(); }

  jointPositions(): Float64Array { return Float64Array.from(this.measured); }
  /** Measured joint velocities (rad/s, m/s), robot joint order. */
  jointVelocities(): Float64Array { return Float64Array.from(this.velocity); }
  /** Current joint targets, robot joint order. */
  jointTargets(): Float64Array { return Float64Array.from(this.targets); }
  jointNames(): string[] { return [...this.names]; }

  setJointTargets(targets: Float64Array): void {
    if (targets.length !== this.names.length) throw new Error(`sim: setJointTargets got ${targets.length} values, expected ${this.names.length} (${this.names.join(", ")})`);
    for (let i = 0; i < targets.length; i++) {
      if (!Number.isFinite(targets[i]!)) throw new Error(`sim: setJointTargets joint "${this.names[i]}" target ${targets[i]} is not finite`);
    }
    this.targets.set(targets);
  }

  flangePose(arm: string): Pose3 { return toPose(this.arm(arm).fk.flange); }
  graspPose(arm: string): Pose3 { return toPose(this.arm(arm).fk.tcp); }
  graspPoint(arm: string): Vec3 { return this.graspPose(arm).position; }
  armJointIndices(arm: string): { joints: number[]; gripper: number } {
    const a = this.arm(arm);
    return { joints: [...a.jointIdx], gripper: a.gripperIdx };
  }

  solveIk(arm: string, target: Pose3, seed?: ArrayLike<number>): { ok: boolean; positions: Float64Array; positionErrorM: number; rotationErrorRad: number } {
    const a = this.arm(arm);
    const t = fromPose(target);
    if (seed && seed.length !== a.jointIdx.length) throw new Error(`sim: solveIk seed for arm "${arm}" has ${seed.length} values, expected ${a.jointIdx.length}`);
    let r = a.chain.solveIk(t, seed ? Array.from(seed) : a.jointIdx.map((i) => this.measured[i]!));
    if (!r.ok) {
      // NOTE: DLS can stall near a limit; one retry from the home pose, keep the better answer.
      const home = a.jointIdx.map((i) => this.profile.home[this.names[i]!]!);
      const r2 = a.chain.solveIk(t, home);
      if (r2.ok || r2.positionErrorM + 0.4 * r2.rotationErrorRad < r.positionErrorM + 0.4 * r.rotationErrorRad) r = r2;
    }
    return { ok: r.ok, positions: r.positions, positionErrorM: r.positionErrorM, rotationErrorRad: r.rotationErrorRad };
  }

  heldObject(arm: string): ObjectId | null { return this.grasp.held(this.arm(arm)); }

  /**
   * World pose of a named frame: "world", "base_link", the arm base frames, or an arm frame
   * (<prefix>link0..8, <prefix>flange, <prefix>hand, <prefix>tcp, e.g. "left_link7", "panda_hand").
   * Null when the name is unknown. Cameras use it for their extrinsics' parent_frame.
   */
  framePose(name: string): Pose3 | null {
    const base = Object.hasOwn(this.fixed, name) ? this.fixed[name] : undefined;
    if (base) return toPose(base);
    for (const arm of this.arms) {
      const t = armFrame(arm, name);
      if (t) return toPose(t);
    }
    const spec = this.profile.arms.find((a) => a.ee_frame === name);
    return spec ? this.graspPose(spec.name) : null;
  }

  /** True for the frames nothing moves ("world", "base_link", the arm bases): a camera on one has one pose. */
  frameFixed(name: string): boolean { return Object.hasOwn(this.fixed, name); }

  /** Everything visible, as world-frame triangle meshes: table, arm links, hands, fingers, objects. */
  meshes(): RenderMesh[] {
    return worldMeshes(this.arms.map((a) => ({ arm: a, widthM: this.measured[a.gripperIdx]! })), this.objects);
  }
}
