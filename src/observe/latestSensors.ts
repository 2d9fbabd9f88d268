/**
 * The latest message per sensor topic, decoded on demand (STYLE.md, "RxJS"): bus callbacks only
 * store bytes (rclnodejs runs them on the main thread), and each control tick decodes what it uses.
 */
import { codecFor } from "../msgs/codec.js";
import type { CompressedImage, Image, RosTypeMap } from "../msgs/types.js";
import type { CameraSpec, JointSpec } from "../robot/types.js";
import { readJointState, type CheckedPositions, type JointStateCheck } from "./checkJointState.js";
import type { CameraFrame } from "./preprocess.js";

/** One stored message: its CDR bytes and when the bus delivered it. */
export interface LatestMessage { cdr: Uint8Array; receivedNs: bigint }

/** Joint positions by profile joint name, radians (prismatic grippers: metres), checked against the profile. */
export type MeasuredPositions = CheckedPositions;

/**
 * Latest bytes per topic, plus the last joint state that passed `checkJointState`: a hold must
 * still command a stop when the newest joint state is malformed or lies, or a trajectory
 * controller would finish the running chunk, and it must not be built from the lying message.
 */
export class LatestSensors {
  private readonly messages = new Map<string, LatestMessage>();
  private lastGood: MeasuredPositions | null = null;

  /** `jointStateTopic`: the robot's sensor_msgs/msg/JointState topic; `joints`: the profile joints it must report. */
  constructor(private readonly jointStateTopic: string, private readonly joints: readonly JointSpec[]) {}

  /** Stores the newest bytes of `topic` (called from bus callbacks; no decoding here). */
  keep(topic: string, cdr: Uint8Array, receivedNs: bigint): void {
    this.messages.set(topic, { cdr, receivedNs });
  }

  /** The newest message on `topic`, or undefined before the first. */
  latest(topic: string): LatestMessage | undefined {
    return this.messages.get(topic);
  }

  /**
   * Decodes the newest joint state and checks it whole against the profile (checkJointState.ts):
   * undefined before the first message, else valid (it becomes `lastGoodPositions()`) or invalid
   * with every problem (undecodable, lengths differ, a joint missing, repeated, non-finite or
   * beyond its limits). Never throws.
   */
  measured(): JointStateCheck | undefined {
    const js = this.messages.get(this.jointStateTopic);
    if (!js) return undefined;
    const check = readJointState(js.cdr, this.joints, this.jointStateTopic);
    if (check.kind === "valid") this.lastGood = check.positions;
    return check;
  }

  /** The newest joint state's positions when it passes the check (see `measured()`), else null. */
  measuredPositions(): MeasuredPositions | null {
    const check = this.measured();
    return check?.kind === "valid" ? check.positions : null;
  }

  /** The last joint state that passed the check, or null if none yet. */
  lastGoodPositions(): MeasuredPositions | null {
    return this.lastGood;
  }

  /** Decodes the newest frame of `cam`; undefined before the first, null when malformed. */
  frame(cam: CameraSpec): CameraFrame | null | undefined {
    const entry = this.messages.get(cam.topic);
    return entry && frameOf(cam, entry.cdr);
  }
}

/** The ROS type a camera publishes: CompressedImage for `jpeg` cameras, Image otherwise. */
export function imageType(cam: CameraSpec): "sensor_msgs/msg/Image" | "sensor_msgs/msg/CompressedImage" {
  return cam.encoding === "jpeg" ? "sensor_msgs/msg/CompressedImage" : "sensor_msgs/msg/Image";
}

function frameOf(cam: CameraSpec, cdr: Uint8Array): CameraFrame | null {
  return cameraFrameOf(imageType(cam), cdr);
}

/**
 * Decodes one camera message of `type` (sensor_msgs Image or CompressedImage CDR) into the frame
 * preprocessing takes; null when it does not decode. The live sensors and recorded frames (a
 * demonstration read from an MCAP) go through it alike.
 */
export function cameraFrameOf(type: ImageType, cdr: Uint8Array): CameraFrame | null {
  if (type === "sensor_msgs/msg/CompressedImage") {
    const msg = decodeOrNull("sensor_msgs/msg/CompressedImage", cdr);
    return msg ? { kind: "compressed", msg: msg as CompressedImage } : null;
  }
  const msg = decodeOrNull("sensor_msgs/msg/Image", cdr);
  return msg ? { kind: "raw", msg: msg as Image } : null;
}

/** The two ROS types a camera frame comes in. */
export type ImageType = "sensor_msgs/msg/Image" | "sensor_msgs/msg/CompressedImage";

function decodeOrNull<K extends ImageType>(type: K, cdr: Uint8Array): RosTypeMap[K] | null {
  try { return codecFor(type).decode(cdr) as RosTypeMap[K]; } catch { return null; }
}
