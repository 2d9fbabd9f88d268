/**
 * Runs scripted-expert episodes on a SimNode in lock-step (what `engram sim --expert` does):
 * per episode a reset with the seed, the expert driving every control step, the task's ground
 * truth published on the bus, optional PNG snapshots of every camera at the start (and, after
 * a video task's demonstration, at the execution's start) and at each subtask end. Returns the
 * summary object the CLI prints.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pngFromRgb } from "../../msgs/image.js";
import type { TaskDefinition, TaskScene } from "../tasks/types.js";
import type { CheckpointReached } from "../tasks/checkpoints.js";
import type { SimNode } from "./SimNode.js";

/** One episode's line in the summary (and in episodes.jsonl). */
export interface ExpertEpisodeDetail {
  seed: number;
  success: boolean;
  /** Control steps. */
  steps: number;
  /** Sim time of the episode, s. */
  duration_s: number;
  checkpoints: CheckpointReached[];
  /** Ground-truth subtask ends (control step each ended). */
  subtasks: { text: string; step: number }[];
  /** Wall time the episode took, s. */
  wall_s: number;
}

/** The summary `engram sim --expert` prints. */
export interface ExpertSummary {
  task: string;
  robot: string;
  episodes: number;
  successes: number;
  success_rate: number;
  episodes_detail: ExpertEpisodeDetail[];
}

/** Options of an expert run. */
export interface ExpertRunOptions {
  task: TaskDefinition<TaskScene>;
  episodes: number;
  seed: number;
  /** Folder for PNG snapshots (created), or null. */
  snapshotDir?: string | null;
  /** Called after each episode (progress lines). */
  onEpisode?: (detail: ExpertEpisodeDetail, index: number) => void;
}

async function snapshot(node: SimNode, dir: string, prefix: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const shot of node.sensors.renderAll()) {
    const png = await pngFromRgb(shot.frame.rgb, shot.frame.width, shot.frame.height);
    await writeFile(join(dir, `${prefix}_${shot.camera.name}.png`), png);
  }
}

/** Runs `episodes` expert episodes with seeds seed, seed+1, ... on `node`. */
export async function runExpertEpisodes(node: SimNode, o: ExpertRunOptions): Promise<ExpertSummary> {
  const details: ExpertEpisodeDetail[] = [];
  for (let i = 0; i < o.episodes; i++) {
    const seed = o.seed + i;
    const t0 = performance.now();
    const episode = node.reset({ task: o.task, seed, expert: true })!;
    const dir = o.snapshotDir ? join(o.snapshotDir, o.task.id, `seed${seed}`) : null;
    if (dir) await snapshot(node, dir, "00_start");
    // A video task's demonstration runs first; its end is the execution's start.
    if (episode.inDemonstration) {
      await node.runDemonstration();
      if (dir) await snapshot(node, dir, "00_execution_start");
    }
    let ends = 0;
    const unhook = dir
      ? node.onTickHook(async (tick) => {
        if (tick.subtaskEnded !== undefined) await snapshot(node, dir, `${String(++ends).padStart(2, "0")}_subtask_end`);
      })
      : () => undefined;
    await node.runEpisode();
    unhook();
    const detail: ExpertEpisodeDetail = {
      seed, success: episode.success, steps: episode.stepCount,
      duration_s: Number(node.world.timeNs) / 1e9,
      checkpoints: episode.checkpoints(), subtasks: episode.ends(),
      wall_s: (performance.now() - t0) / 1000,
    };
    details.push(detail);
    o.onEpisode?.(detail, i);
  }
  const successes = details.filter((d) => d.success).length;
  return {
    task: o.task.id, robot: node.world.profile.name, episodes: details.length, successes,
    success_rate: details.length > 0 ? successes / details.length : 0, episodes_detail: details,
  };
}
