/**
 * ROS 2 message types as plain TS records. Field names match the .msg definitions exactly, so a
 * decoded CDR message is assignable to these types. Integer fields are numbers; `stamp` uses
 * builtin_interfaces/Time {sec, nanosec}.
 */

/** Message type names this project uses directly; any other type decodes from a recording's schema. */
export type KnownRosType =
  | "std_msgs/msg/String"
  | "std_msgs/msg/Bool"
  | "std_msgs/msg/Float32"
  | "std_msgs/msg/Header"
  | "builtin_interfaces/msg/Time"
  | "sensor_msgs/msg/Image"
  | "sensor_msgs/msg/CompressedImage"
  | "sensor_msgs/msg/CameraInfo"
  | "sensor_msgs/msg/JointState"
  | "trajectory_msgs/msg/JointTrajectory"
  | "trajectory_msgs/msg/JointTrajectoryPoint"
  | "geometry_msgs/msg/PoseStamped"
  | "rosgraph_msgs/msg/Clock";

/** A fully qualified ROS 2 type name, `pkg/msg/Name`. */
export type RosType = KnownRosType | (string & {});

export interface Time { sec: number; nanosec: number }
export interface Duration { sec: number; nanosec: number }
export interface Header { stamp: Time; frame_id: string }

export interface StringMsg { data: string }
export interface BoolMsg { data: boolean }
export interface Float32Msg { data: number }

export interface Image {
  header: Header;
  height: number;
  width: number;
  encoding: string;
  is_bigendian: number;
  step: number;
  data: Uint8Array;
}

export interface CompressedImage { header: Header; format: string; data: Uint8Array }

export interface RegionOfInterest { x_offset: number; y_offset: number; height: number; width: number; do_rectify: boolean }

export interface CameraInfo {
  header: Header;
  height: number;
  width: number;
  distortion_model: string;
  d: Float64Array | number[];
  k: Float64Array | number[]; // 9
  r: Float64Array | number[]; // 9
  p: Float64Array | number[]; // 12
  binning_x: number;
  binning_y: number;
  roi: RegionOfInterest;
}

export interface JointState {
  header: Header;
  name: string[];
  position: Float64Array | number[];
  velocity: Float64Array | number[];
  effort: Float64Array | number[];
}

export interface JointTrajectoryPoint {
  positions: Float64Array | number[];
  velocities: Float64Array | number[];
  accelerations: Float64Array | number[];
  effort: Float64Array | number[];
  time_from_start: Duration;
}

export interface JointTrajectory { header: Header; joint_names: string[]; points: JointTrajectoryPoint[] }

export interface Point { x: number; y: number; z: number }
export interface Quaternion { x: number; y: number; z: number; w: number }
export interface Pose { position: Point; orientation: Quaternion }
export interface PoseStamped { header: Header; pose: Pose }

export interface Clock { clock: Time }

/** Maps each known type name to its TS record, for typed publish/subscribe helpers. */
export interface RosTypeMap {
  "std_msgs/msg/String": StringMsg;
  "std_msgs/msg/Bool": BoolMsg;
  "std_msgs/msg/Float32": Float32Msg;
  "std_msgs/msg/Header": Header;
  "builtin_interfaces/msg/Time": Time;
  "sensor_msgs/msg/Image": Image;
  "sensor_msgs/msg/CompressedImage": CompressedImage;
  "sensor_msgs/msg/CameraInfo": CameraInfo;
  "sensor_msgs/msg/JointState": JointState;
  "trajectory_msgs/msg/JointTrajectory": JointTrajectory;
  "trajectory_msgs/msg/JointTrajectoryPoint": JointTrajectoryPoint;
  "geometry_msgs/msg/PoseStamped": PoseStamped;
  "rosgraph_msgs/msg/Clock": Clock;
}

/** Converts nanoseconds since the epoch (the unit MCAP logTime uses) to builtin_interfaces/Time. */
export function timeFromNs(ns: bigint): Time {
  return { sec: Number(ns / 1_000_000_000n), nanosec: Number(ns % 1_000_000_000n) };
}

/** Converts builtin_interfaces/Time to nanoseconds. */
export function nsFromTime(t: Time): bigint {
  return BigInt(t.sec) * 1_000_000_000n + BigInt(t.nanosec);
}
