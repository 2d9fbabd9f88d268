/**
 * Robot profiles for control tests, built in code so each test states the limits it checks.
 * Shaped like robots/x-one.yaml and robots/franka-droid.yaml (RobotProfile), with round numbers.
 */
import type { JointSpec, RobotProfile } from "../../src/robot/types.js";

const ARM = (side: string): JointSpec[] => [
  ...Array.from({ length: 7 }, (_, i): JointSpec => ({
    name: `${side}_joint${i + 1}`, kind: "revolute", lower: -2.5, upper: 2.5,
    // joint 7 is slow: its velocity bound (1.0 rad/s / 10 Hz = 0.1 rad) is tighter than max_step_rad (0.2)
    velocity_limit: i === 6 ? 1.0 : 3.0,
  })),
  { name: `${side}_gripper`, kind: "gripper", lower: 0, upper: 0.08, velocity_limit: 0.1 },
];

/** 16-D layout names: left arm + gripper, right arm + gripper (policy order). */
export const X_ONE_16D = [...ARM("left"), ...ARM("right")].map((j) => j.name);

/** Driver order: right arm first, grippers last (differs from the policy order on purpose). */
export const X_ONE_DRIVER_ORDER = [
  ...Array.from({ length: 7 }, (_, i) => `right_joint${i + 1}`),
  ...Array.from({ length: 7 }, (_, i) => `left_joint${i + 1}`),
  "right_gripper", "left_gripper",
];

/** A dual-arm profile with the trajectory interface at 10 Hz. */
export function xOneProfile(over: Partial<RobotProfile["command"]> = {}): RobotProfile {
  return {
    name: "x-one-test", description: "control test profile",
    joints: [...ARM("left"), ...ARM("right")],
    arms: ["left", "right"].map((s) => ({
      name: s, joints: Array.from({ length: 7 }, (_, i) => `${s}_joint${i + 1}`), gripper: `${s}_gripper`,
      base_frame: `${s}_base`, ee_frame: `${s}_tcp`,
    })),
    home: Object.fromEntries(X_ONE_16D.map((n) => [n, 0])),
    joint_state: { topic: "/joint_states", rate_hz: 100 },
    cameras: [
      { name: "head", topic: "/cam/head/image_raw", info_topic: "/cam/head/camera_info", encoding: "rgb8", rate_hz: 30, frame_id: "head_optical", calibration: "", stale_after_ms: 200 },
      { name: "left_wrist", topic: "/cam/left/image_raw", info_topic: "/cam/left/camera_info", encoding: "jpeg", rate_hz: 30, frame_id: "left_optical", calibration: "", stale_after_ms: 300 },
    ],
    command: { interface: "trajectory", joint_topic: "/arm_controller/joint_trajectory", joint_order: X_ONE_DRIVER_ORDER, hold: "measured_position", ...over },
    teleop: { leader_topic: "/leader/joint_states" },
    layouts: { bimanual_16d: { kind: "joint", names: X_ONE_16D } },
    control_hz: 10,
    safety: {
      max_step_rad: 0.2, gripper_max_step_m: 0.02,
      workspace: { frame: "base_link", min: [-0.2, -0.6, 0.0], max: [0.8, 0.6, 0.9] },
      estop_topic: "/engram/estop", resume_topic: "/engram/resume", deadman_topic: "/engram/deadman",
      joint_state_stale_after_ms: 100,
    },
  };
}

/** A Franka-like profile with the pose interface and an end-effector layout. */
export function frankaProfile(): RobotProfile {
  const joints: JointSpec[] = [
    ...[[-2.8973, 2.8973], [-1.7628, 1.7628], [-2.8973, 2.8973], [-3.0718, -0.0698], [-2.8973, 2.8973], [-0.0175, 3.7525], [-2.8973, 2.8973]]
      .map(([lower, upper], i): JointSpec => ({ name: `panda_joint${i + 1}`, kind: "revolute", lower: lower!, upper: upper!, velocity_limit: 2.0 })),
    { name: "panda_finger_joint1", kind: "gripper", lower: 0, upper: 0.08, velocity_limit: 0.1 },
  ];
  const arm = joints.slice(0, 7).map((j) => j.name);
  return {
    name: "franka-test", description: "control test profile",
    joints,
    arms: [{ name: "arm", joints: arm, gripper: "panda_finger_joint1", base_frame: "panda_link0", ee_frame: "panda_hand_tcp" }],
    home: Object.fromEntries(joints.map((j) => [j.name, 0])),
    joint_state: { topic: "/franka/joint_states", rate_hz: 100 },
    cameras: [],
    command: {
      interface: "pose", joint_topic: "/joint_trajectory", joint_order: arm,
      pose_topic: "/cartesian_target", gripper_topic: "/gripper/target_width", hold: "measured_position",
    },
    teleop: { leader_topic: "/leader/joint_states" },
    layouts: {
      joint_8d: { kind: "joint", names: joints.map((j) => j.name) },
      ee_7d: { kind: "end_effector", arm: "arm", frame: "panda_link0", dims: ["x", "y", "z", "roll", "pitch", "yaw", "gripper"] },
    },
    control_hz: 15,
    safety: {
      max_step_rad: 0.1, gripper_max_step_m: 0.01,
      workspace: { frame: "panda_link0", min: [0.2, -0.5, 0.05], max: [0.8, 0.5, 0.8] },
      estop_topic: "/engram/estop", resume_topic: "/engram/resume",
      joint_state_stale_after_ms: 100,
    },
  };
}
