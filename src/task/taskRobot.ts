/** Which task robot a robot profile is: the scenes and experts that fit its arms. */
import type { RobotProfile } from "../robot/types.js";
import type { TaskRobot } from "./types.js";

/** Which task robot's scenes and experts fit each kinematic model (the arms' reach and layout). */
const TASK_ROBOT_BY_MODEL: Readonly<Record<string, TaskRobot>> = {
  "x-one-arm": "x-one",
  "franka-panda": "franka-droid",
};

/** The task robot id of a profile ("x-one" or "franka-droid"), from its kinematics.model; throws for any other. */
export function taskRobotOf(profile: RobotProfile): TaskRobot {
  const model = profile.kinematics?.model;
  const known = model !== undefined && Object.hasOwn(TASK_ROBOT_BY_MODEL, model);
  const robot = known ? TASK_ROBOT_BY_MODEL[model] : undefined;
  if (!robot) {
    const declared = model === undefined ? "not declared" : `"${model}"`;
    const robots = Object.entries(TASK_ROBOT_BY_MODEL).map(([m, r]) => `${m} → ${r}`).join(", ");
    throw new Error(`robot profile "${profile.name}" is not a task robot: kinematics.model is ${declared} (${robots})`);
  }
  return robot;
}
