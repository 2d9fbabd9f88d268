/**
 * Helpers for the expert tests: one lock-step expert episode on a fresh real SimWorld, and the
 * checks every expert episode must pass (success, annotation stream, subtask-end signal, checkpoints).
 */
import assert from "node:assert/strict";
import { loadRobotProfile } from "../../src/robot/loadRobotProfile.js";
import { SimWorld } from "../../src/sim/world/SimWorld.js";
import { getTask, type TaskScene } from "../../src/sim/tasks/index.js";
import { runExpertEpisode, type ExpertEpisodeResult } from "../../src/sim/expert/index.js";

export const profiles = {
  "x-one": loadRobotProfile("robots/x-one.yaml").profile,
  "franka-droid": loadRobotProfile("robots/franka-droid.yaml").profile,
};

/** Runs one expert episode on a fresh world; returns the result and the scene's subtask list. */
export async function expertEpisode(robot: keyof typeof profiles, taskId: string, seed: number): Promise<{ result: ExpertEpisodeResult; subtasks: string[] }> {
  const profile = profiles[robot];
  const world = await SimWorld.create({ profile });
  const task = getTask(taskId);
  let scene: TaskScene | null = null;
  const result = runExpertEpisode(world, task, seed, { profile, onStep: (_t, _w, s) => { scene = s; } });
  world.dispose();
  return { result, subtasks: task.subtasks(scene!) };
}

/** Checks success, the annotation stream and the ground-truth subtask ends of one episode. */
export function checkEpisode(robot: string, taskId: string, { result, subtasks }: { result: ExpertEpisodeResult; subtasks: string[] }): void {
  const where = `[${robot} ${taskId} seed=${result.seed}]`;
  assert.equal(result.success, true, `expert failed ${where}: checkpoints ${JSON.stringify(result.checkpoints)}`);
  assert.deepEqual(result.annotations.map((a) => a.text), subtasks, `annotation texts ${where}`);
  let prevEnd = -1;
  for (const a of result.annotations) {
    assert.ok(a.endStep !== null && a.startStep === prevEnd + 1 && a.endStep >= a.startStep, `annotation ${JSON.stringify(a)} after end ${prevEnd} ${where}`);
    prevEnd = a.endStep;
  }
  assert.deepEqual(result.subtaskEnds, result.annotations.map((a) => ({ text: a.text, step: a.endStep })), `subtask-end signal ${where}`);
  const ids = getTask(taskId).checkpoints.map((c) => c.id);
  assert.deepEqual(result.checkpoints.map((c) => c.id).sort(), ids.slice().sort(), `all checkpoints reached ${where}`);
  assert.ok(result.steps <= Math.ceil(getTask(taskId).timeLimitS * profiles[robot as keyof typeof profiles].control_hz));
}

