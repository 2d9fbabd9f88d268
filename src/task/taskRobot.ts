/** Which task robot a robot profile is: the scenes and experts that fit its arms. */
import { listTaskSpecs } from "./registry.js";
import type { TaskRobot } from "./types.js";

/** The robot kinds some task supports (what a profile's `task_robot` may name). */
export function knownTaskRobots(): TaskRobot[] {
  return [...new Set(listTaskSpecs().flatMap((t) => t.robots))];
}

/**
 * The robot kind a profile declares (`task_robot`); throws naming the profile and the known kinds if
 * none. Takes the two fields it reads, so the task layer needs nothing from the robot layer.
 */
export function taskRobotOf(profile: { name: string; task_robot?: string }): TaskRobot {
  const robot = profile.task_robot;
  if (robot === undefined) {
    const known = knownTaskRobots().join(", ");
    const why = `it declares no task_robot (kinds the tasks know: ${known})`;
    throw new Error(`robot profile "${profile.name}" is not a task robot: ${why}`);
  }
  return robot;
}
