/**
 * QoS profiles, as ROS 2 names them: part of a topic's contract (what a publisher offers, what a
 * recording declares for `ros2 bag play`), so they sit with the message types below the bus.
 */

/** QoS as ROS 2 names it; only what changes delivery semantics here. */
export interface Qos {
  reliability: "reliable" | "best_effort";
  durability: "volatile" | "transient_local";
  history: "keep_last" | "keep_all";
  /** Keep-last queue depth per subscriber. */
  depth: number;
}

/** Sensor data profile (rclcpp's SensorDataQoS): best effort, keep last 5. */
export const SENSOR_QOS: Qos = { reliability: "best_effort", durability: "volatile", history: "keep_last", depth: 5 };
/** Default reliable profile, keep last 10. */
export const RELIABLE_QOS: Qos = { reliability: "reliable", durability: "volatile", history: "keep_last", depth: 10 };

/**
 * What the sim twin offers its camera and camera_info topics with: reliable, keep last 5 (matches
 * both reliable and best-effort subscribers). A recording of the twin declares it as the topics'
 * offered QoS.
 */
export const SIM_SENSOR_QOS: Qos = { ...RELIABLE_QOS, depth: 5 };
