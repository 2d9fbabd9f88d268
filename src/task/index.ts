/**
 * Task layer public surface: what a task is (id, memory class, instruction, subtasks, checkpoint
 * labels, step limit), below config/, trial/, record/ and sim/ so all of them read one spec. The
 * sim twin's scenes, success checks and experts live in src/sim/tasks/ and take their spec from
 * here. Adding a task: its id in ids.ts, its spec file and entry in registry.ts, its sim file.
 */
export { TASK_IDS, type TaskId } from "./ids.js";
export {
  stepLimit, type CheckpointLabel, type CheckpointSpec, type TaskMemoryClass, type TaskRobot, type TaskSpec,
} from "./types.js";
export { getTaskSpec, isTaskId, listTaskSpecs, nominalTexts, type TaskTexts } from "./registry.js";
export { mulberry32, type Rng } from "./rng.js";
export { knownTaskRobots, taskRobotOf } from "./taskRobot.js";
