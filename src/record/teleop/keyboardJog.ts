/**
 * Keyboard jog as a teleop source: the operator moves the tool frame of one arm in small steps
 * along the base x/y/z axes (orientation kept) and toggles its gripper; each move is solved by IK
 * on the arm's declared kinematic model (src/robot/kinematics, the chains the sim twin moves) and the whole
 * target vector is published as the leader arm's JointState, so it reaches the follower through the
 * LeaderForwarder and its SafetyFilter like any leader arm. A move IK cannot reach is refused.
 */
import { RELIABLE_QOS, type Bus } from "../../bus/types.js";
import { encode } from "../../msgs/codec.js";
import { timeFromNs } from "../../msgs/types.js";
import type { RobotProfile } from "../../robot/types.js";
import { armChains } from "../../robot/kinematics/armChains.js";
import type { DhChain } from "../../robot/kinematics/DhChain.js";
import type { JogKey } from "./keys.js";

/** Outcome of one jog key. */
export type JogResult = { kind: "moved"; arm: string; tcp: [number, number, number] } | { kind: "gripper"; arm: string; opening: number } | { kind: "arm"; arm: string } | { kind: "refused"; reason: string };

/** Jog state: the target vector (profile joint order) and which arm the keys move. */
export class KeyboardJog {
  private readonly chains: DhChain[];
  private readonly targets: Float64Array;
  private readonly names: string[];
  private armIndex = 0;
  private readonly publish: (cdr: Uint8Array) => void;

  /** `start`: initial targets by joint name (the measured pose); `stepM`: translation per key press. */
  constructor(private readonly profile: RobotProfile, bus: Bus, start: Readonly<Record<string, number>>, private readonly stepM = 0.01, private readonly clock = bus.clock) {
    this.chains = armChains(profile, "world").map((c) => c.chain);
    this.names = profile.joints.map((j) => j.name);
    this.targets = Float64Array.from(this.names, (n) => start[n] ?? profile.home[n] ?? 0);
    this.publish = bus.advertise(profile.teleop.leader_topic, "sensor_msgs/msg/JointState", RELIABLE_QOS);
  }

  /** Name of the arm the keys move. */
  get arm(): string { return this.profile.arms[this.armIndex]!.name; }

  /** Current target vector by joint name. */
  get target(): Record<string, number> { return Object.fromEntries(this.names.map((n, i) => [n, this.targets[i]!])); }

  /** Applies one jog key to the targets (IK for moves). */
  apply(jog: JogKey): JogResult {
    const arm = this.profile.arms[this.armIndex]!;
    switch (jog.kind) {
      case "arm":
        this.armIndex = (this.armIndex + 1) % this.profile.arms.length;
        return { kind: "arm", arm: this.arm };
      case "gripper": {
        const gi = this.names.indexOf(arm.gripper);
        const spec = this.profile.joints[gi]!;
        const mid = (spec.lower + spec.upper) / 2;
        this.targets[gi] = this.targets[gi]! > mid ? spec.lower : spec.upper;
        return { kind: "gripper", arm: arm.name, opening: this.targets[gi]! };
      }
      case "move": {
        const idx = arm.joints.map((n) => this.names.indexOf(n));
        const q = idx.map((i) => this.targets[i]!);
        const chain = this.chains[this.armIndex]!;
        const goal = [...chain.fk(q).tcp];
        goal[3 + jog.axis * 4] = goal[3 + jog.axis * 4]! + jog.sign * this.stepM;
        const ik = chain.solveIk(goal, q);
        if (!ik.ok) return { kind: "refused", reason: `arm "${arm.name}": IK cannot reach the jogged pose (position error ${ik.positionErrorM.toFixed(4)} m, rotation error ${ik.rotationErrorRad.toFixed(3)} rad)` };
        idx.forEach((i, k) => { this.targets[i] = ik.positions[k]!; });
        const t = chain.fk(ik.positions).tcp;
        return { kind: "moved", arm: arm.name, tcp: [t[3]!, t[7]!, t[11]!] };
      }
    }
  }

  /** Publishes the targets on the leader topic (call once per control tick). */
  publishTargets(): void {
    this.publish(encode("sensor_msgs/msg/JointState", {
      header: { stamp: timeFromNs(this.clock.nowNs()), frame_id: "" },
      name: this.names, position: Float64Array.from(this.targets), velocity: [], effort: [],
    }));
  }
}
