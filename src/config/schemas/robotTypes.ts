/**
 * The robot profile model, as validated from `robots/<name>.yaml` (robotProfile.ts and
 * calibration.ts here must infer exactly these types; the robot layer re-exports them). Units are
 * in the field names; angles in rad, lengths in m.
 * Joint order always travels with joint names; nothing assumes an order.
 */

export interface JointSpec {
  name: string;
  /** "revolute" arm joint (rad) or "gripper" (opening width, m). */
  kind: "revolute" | "gripper";
  lower: number;
  upper: number;
  /** Max speed, rad/s (revolute) or m/s (gripper). */
  velocity_limit: number;
}

export interface ArmSpec {
  name: string;                 // "left" | "right" | "arm"
  joints: string[];             // revolute joint names, proximal to distal (as many as the kinematic model's)
  gripper: string;              // gripper joint name
  base_frame: string;           // frame the arm's kinematics are expressed in
  ee_frame: string;             // end-effector (flange/TCP) frame
}

export interface CameraSpec {
  name: string;                 // "head", "left_wrist", ...
  topic: string;                // image topic; CameraInfo goes on `<dirname(topic)>/camera_info` unless info_topic is set
  info_topic: string;
  encoding: "rgb8" | "jpeg";    // rgb8 → sensor_msgs/Image, jpeg → sensor_msgs/CompressedImage
  rate_hz: number;
  frame_id: string;             // optical frame id stamped on every image
  calibration: string;          // path to the camera_info YAML, relative to the profile's folder
  /** Max age before the control loop treats the camera as stale and holds. */
  stale_after_ms: number;
}

export type LayoutSpec =
  | { kind: "joint"; names: string[] }                                   // policy vector = these joints, in this order
  | { kind: "end_effector"; arm: string; frame: string; dims: ["x", "y", "z", "roll", "pitch", "yaw", "gripper"] };

export interface CommandSpec {
  /** Which output adapter drives this robot. */
  interface: "trajectory" | "stream" | "pose";
  /** JointTrajectory topic for a joint_trajectory_controller (trajectory), or JointState target topic (stream). */
  joint_topic: string;
  /** Joint order the driver expects; the output adapter publishes in this order. */
  joint_order: string[];
  /** PoseStamped target topic (pose interface). */
  pose_topic?: string;
  /** Gripper command topic (std_msgs/Float32, opening width in m) for the pose interface. */
  gripper_topic?: string;
  /** On hold: command the measured position, or stop publishing. */
  hold: "measured_position" | "stop_publishing";
}

export interface SafetySpec {
  max_step_rad: number;         // per-tick joint delta limit
  gripper_max_step_m: number;   // per-tick gripper delta limit
  workspace: { frame: string; min: [number, number, number]; max: [number, number, number] };
  estop_topic: string;          // std_msgs/Bool, true = stop (latched)
  resume_topic: string;         // std_msgs/Bool, true = resume after e-stop
  deadman_topic?: string;       // std_msgs/Bool, commands flow only while true (optional)
  joint_state_stale_after_ms: number;
}

/**
 * The robot's kinematic model: what every trial's safety filter runs forward kinematics with (the
 * workspace box, the measured pose of pose holds) and what the sim twin moves its arms by.
 */
export interface KinematicsSpec {
  /** Id of a model in src/robot/kinematics/models.ts: each arm's DH chain and end-effector frame. */
  model: string;
  /** Frame the arm bases are placed in and FK answers in; the same as safety.workspace.frame. */
  frame: string;
  /** Origin of each arm's base_frame in `frame`, m (its axes aligned with `frame`'s), by frame name. */
  bases: Record<string, [number, number, number]>;
  /**
   * Origin of `frame` in the world frame, m (axes aligned): where the sim twin stands the robot and
   * the frame of the HDF5 export's end poses (RoboTwin's world). Absent: the world is `frame`.
   */
  world?: [number, number, number];
}

export interface RobotProfile {
  name: string;
  description: string;
  /** Robot's own joint order (what the driver's JointState uses). */
  joints: JointSpec[];
  arms: ArmSpec[];
  home: Record<string, number>;
  joint_state: { topic: string; rate_hz: number };
  cameras: CameraSpec[];
  command: CommandSpec;
  teleop: { leader_topic: string };
  /** Policy-facing layouts by name, e.g. "bimanual_16d", "joint_8d", "ee_7d". */
  layouts: Record<string, LayoutSpec>;
  control_hz: number;
  safety: SafetySpec;
  /** Absent: no forward kinematics, so the workspace box binds only end-effector layouts. */
  kinematics?: KinematicsSpec;
  /**
   * The robot kind the sim twin's tasks lay out scenes and experts for (a task lists the kinds it
   * supports, src/sim/tasks). Absent: no sim task runs on this robot.
   */
  task_robot?: string;
}

/** Camera intrinsics (ROS camera_info YAML) plus extrinsics, from `calibration/<robot>/<camera>.yaml`. */
export interface CameraCalibration {
  image_width: number;
  image_height: number;
  camera_name: string;
  camera_matrix: { rows: 3; cols: 3; data: number[] };
  distortion_model: string;
  distortion_coefficients: { rows: 1; cols: number; data: number[] };
  rectification_matrix: { rows: 3; cols: 3; data: number[] };
  projection_matrix: { rows: 3; cols: 4; data: number[] };
  /** Pose of the camera optical frame (z forward, x right, y down) in `parent_frame`. */
  extrinsics: { parent_frame: string; translation: [number, number, number]; quaternion_xyzw: [number, number, number, number] };
}
