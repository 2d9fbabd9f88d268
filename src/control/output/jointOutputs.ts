import { timeFromNs, type Duration, type JointTrajectory, type JointTrajectoryPoint } from "../../msgs/types.js";
import type { ActionChunk } from "../../policy/types.js";
import type { RobotProfile } from "../../robot/types.js";
import { clamp } from "../limits.js";
import type { JointCommand, JointPositions } from "../types.js";
import { routeJoints, type JointRouting } from "./jointOrder.js";
import type { OutputAdapter, Outgoing } from "./types.js";

/** Options shared by the joint-space adapters. */
export interface JointOutputOptions {
  /** Rate the points are spaced at; default profile.control_hz. */
  controlHz?: number;
  /** Stream only: publish sensor_msgs/JointState (default) or a one-point JointTrajectory. */
  streamAs?: "joint_state" | "trajectory_point";
}

/** header.stamp zero: joint_trajectory_controller starts the trajectory when it receives it. */
const START_ON_RECEIPT = Object.freeze({ sec: 0, nanosec: 0 });

/** time_from_start of point k (0-based) at `hz`: (k+1)/hz, as builtin_interfaces/Duration. */
export function pointTime(k: number, hz: number): Duration {
  const ns = Math.round(((k + 1) * 1e9) / hz);
  return { sec: Math.floor(ns / 1e9), nanosec: ns % 1e9 };
}

/** One JointTrajectory point with positions only (the controller interpolates velocities). */
function point(positions: Float64Array, k: number, hz: number): JointTrajectoryPoint {
  return { positions, velocities: [], accelerations: [], effort: [], time_from_start: pointTime(k, hz) };
}

/**
 * `trajectory` interface: each new chunk becomes one trajectory_msgs/JointTrajectory for ros2_controllers'
 * joint_trajectory_controller: H points, time_from_start = (k+1)/control_hz, joint_names =
 * command.joint_order (driver order; joints the layout lacks hold their measured position), header
 * stamp zero: the controller starts it on receipt, so neither the bus's lag nor a skew between the
 * runtime's clock and the controller's can make a chunk or a hold "in the past" (JTC rejects a
 * nonzero-stamped trajectory that ends before its own now). A new
 * trajectory replaces the running one in the controller. Hold: a one-point
 * trajectory at the measured position (reached in 1/control_hz), or with hold = stop_publishing an
 * EMPTY trajectory, which the controller takes as "stop and hold" (NOTE: publishing nothing would
 * let it finish the running chunk).
 */
export function trajectoryOutput(profile: RobotProfile, layoutNames: readonly string[], opts: JointOutputOptions = {}): OutputAdapter {
  const hz = opts.controlHz ?? profile.control_hz;
  const route = routeJoints(profile, layoutNames);
  const topic = profile.command.joint_topic;
  const names = [...profile.command.joint_order];
  const traj = (points: JointTrajectoryPoint[]): Outgoing => ({
    topic, type: "trajectory_msgs/msg/JointTrajectory",
    message: {
      header: { stamp: START_ON_RECEIPT, frame_id: "" }, joint_names: names, points,
    } satisfies JointTrajectory,
  });
  return {
    kind: "trajectory",
    advertisements: advertised(topic, "trajectory_msgs/msg/JointTrajectory", route),
    buildChunk(chunk: ActionChunk, _stampNs: bigint, measured?: JointPositions): Outgoing[] {
      const d = chunk.dim;
      const points: JointTrajectoryPoint[] = [];
      for (let k = 0; k < chunk.horizon; k++) {
        points.push(point(route.map.permute(chunk.actions.subarray(k * d, (k + 1) * d), measured), k, hz));
      }
      return [traj(points)];
    },
    buildStep(command: JointCommand): Outgoing[] {
      return gripperOut(route, command.positions);
    },
    buildHold(measured: JointPositions): Outgoing[] {
      if (profile.command.hold === "stop_publishing") return [traj([])];
      const held = Float64Array.from(names, (n) => heldOf(profile, measured, n));
      return [traj([point(held, 0, hz)]), ...gripperHold(profile, route, measured)];
    },
  };
}

/**
 * `stream` interface: one target per tick on command.joint_topic, as sensor_msgs/JointState (name =
 * joint_order, position only) or a one-point JointTrajectory (time 1/control_hz). Hold: the
 * measured position, or nothing (hold = stop_publishing; a streaming driver holds its last target).
 */
export function streamOutput(profile: RobotProfile, layoutNames: readonly string[], opts: JointOutputOptions = {}): OutputAdapter {
  const hz = opts.controlHz ?? profile.control_hz;
  const route = routeJoints(profile, layoutNames);
  const topic = profile.command.joint_topic;
  const names = [...profile.command.joint_order];
  const asState = (opts.streamAs ?? "joint_state") === "joint_state";
  const target = (positions: Float64Array, stampNs: bigint): Outgoing => {
    const header = { stamp: timeFromNs(stampNs), frame_id: "" };
    // A one-point trajectory goes to a JTC: stamped zero, started on receipt (see trajectoryOutput).
    const trajHeader = { stamp: START_ON_RECEIPT, frame_id: "" };
    return asState
      ? { topic, type: "sensor_msgs/msg/JointState", message: { header, name: names, position: positions, velocity: [], effort: [] } }
      : {
        topic, type: "trajectory_msgs/msg/JointTrajectory",
        message: { header: trajHeader, joint_names: names, points: [point(positions, 0, hz)] },
      };
  };
  return {
    kind: "stream",
    advertisements: advertised(topic, asState ? "sensor_msgs/msg/JointState" : "trajectory_msgs/msg/JointTrajectory", route),
    buildChunk(): Outgoing[] {
      return [];
    },
    buildStep(command: JointCommand, stampNs: bigint, measured?: JointPositions): Outgoing[] {
      return [target(route.map.permute(command.positions, measured), stampNs), ...gripperOut(route, command.positions)];
    },
    buildHold(measured: JointPositions, stampNs: bigint): Outgoing[] {
      if (profile.command.hold === "stop_publishing") return [];
      return [target(Float64Array.from(names, (n) => heldOf(profile, measured, n)), stampNs), ...gripperHold(profile, route, measured)];
    },
  };
}

function advertised(topic: string, type: OutputAdapter["advertisements"][number]["type"], route: JointRouting): OutputAdapter["advertisements"] {
  return route.gripper ? [{ topic, type }, { topic: route.gripper.topic, type: "std_msgs/msg/Float32" }] : [{ topic, type }];
}

function gripperOut(route: JointRouting, values: ArrayLike<number>): Outgoing[] {
  const g = route.gripper;
  return g ? [{ topic: g.topic, type: "std_msgs/msg/Float32", message: { data: values[g.index]! } }] : [];
}

function gripperHold(profile: RobotProfile, route: JointRouting, measured: JointPositions): Outgoing[] {
  const g = route.gripper;
  return g ? [{ topic: g.topic, type: "std_msgs/msg/Float32", message: { data: heldOf(profile, measured, g.joint) } }] : [];
}

/**
 * The hold target of `joint`: its measured position clamped into the profile's limits (a joint
 * measured a hair past its limit is held at the limit, so no hold command leaves the limits).
 */
export function heldOf(profile: RobotProfile, measured: JointPositions, joint: string): number {
  const v = measuredOf(measured, joint);
  const spec = profile.joints.find((j) => j.name === joint);
  return spec ? clamp(v, spec.lower, spec.upper) : v;
}

/** The measured position of `joint`; throws naming it when the joint state lacks it. */
function measuredOf(measured: JointPositions, joint: string): number {
  const v = measured[joint];
  if (v === undefined) throw new Error(`hold: measured joint state has no position for "${joint}" (has: ${Object.keys(measured).join(", ")})`);
  return v;
}
