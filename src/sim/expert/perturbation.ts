/**
 * DART-style perturbation of a scripted expert's executed commands (Laskey et al. 2017): the sim
 * executes the expert's targets plus a smooth random offset on the arm joints, while the recording
 * keeps the expert's clean targets as the action. The demonstrations then visit states off the
 * expert's path, with labels that steer back to it (PlanExpert commands absolute points of its plan),
 * which is what a learned policy needs after its own small errors. Grippers are never perturbed.
 */
import type { SimWorldApi } from "../world/types.js";
import { mulberry32, type Rng } from "../../task/rng.js";
import type { ExpertStep } from "./types.js";

/** Correlation of the offset from one control tick to the next (about half a second at 10 Hz). */
const RHO = 0.8;

/** Throws unless `stdRad` is a perturbation std this module accepts, [0, 0.3] rad; `where` names the setting. */
export function checkPerturbationStd(stdRad: number, where = "expert perturbation"): void {
  if (!(stdRad >= 0 && stdRad <= 0.3)) throw new Error(`${where}: std ${stdRad} rad is outside [0, 0.3]`);
}

/**
 * Offset o[t+1] = RHO o[t] + sqrt(1 - RHO^2) stdRad N(0, 1) per arm joint (stationary std `stdRad`),
 * scaled by sin(pi p) where p is the progress through the expert's current free-space move: zero at
 * every waypoint, so reach checks, grasps and releases run on the clean plan; zero during gripper
 * ops, waits and the descents and lifts next to objects (ExpertStep.moveProgress undefined).
 */
export class ExpertPerturbation {
  private readonly rng: Rng;
  private joints: number[] | null = null;
  private offset = new Float64Array(0);

  constructor(private readonly stdRad: number, seed: number) {
    checkPerturbationStd(stdRad);
    this.rng = mulberry32(seed ^ 0x5eed_da27);
  }

  /** The targets the sim executes for this expert step (a new array; `out.targets` is left clean). */
  apply(world: SimWorldApi, out: ExpertStep): Float64Array {
    if (!this.joints) {
      this.joints = world.armNames.flatMap((a) => world.armJointIndices(a).joints);
      this.offset = new Float64Array(this.joints.length);
    }
    const joints = this.joints;
    const drive = this.stdRad * Math.sqrt(1 - RHO * RHO);
    for (let k = 0; k < joints.length; k++) this.offset[k] = RHO * this.offset[k]! + drive * this.gaussian();
    const p = out.moveProgress;
    const envelope = p === undefined || p <= 0 || p >= 1 ? 0 : Math.sin(Math.PI * p);
    const executed = Float64Array.from(out.targets);
    joints.forEach((j, k) => { executed[j] = executed[j]! + envelope * this.offset[k]!; });
    return executed;
  }

  private gaussian(): number {
    const u = Math.max(this.rng.next(), 1e-12), v = this.rng.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }
}
