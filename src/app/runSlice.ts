/**
 * Runs the slice of a run's episodes this process owns (the whole run, a `--shard`, a `--jobs`
 * worker's share, or a shard's share) on the in-process sim twin, and writes run.json beside the
 * run folder's files so `engram merge` can check that slices belong to one run.
 */
import { mkdirSync } from "node:fs";
import { basename } from "node:path";
import { bundleDigest, comparableConfig, writeRunManifest } from "../trial/runManifest.js";
import { runTrial, type TrialOptions } from "./runTrial.js";
import { allEpisodes, sliceEpisodes, type SliceSpec } from "../trial/slices.js";
import type { RunSummary } from "../trial/summary.js";

/** runTrial's options, with the slice instead of an episode list (`episodes` is the whole run's count). */
export interface SliceOptions extends Omit<TrialOptions, "episodeIndices"> {
  shard?: SliceSpec | null;
  job?: SliceSpec | null;
}

/** The episodes a shard and job hold of a run of `episodes`. */
export function sliceOf(episodes: number, shard?: SliceSpec | null, job?: SliceSpec | null): number[] {
  let indices = allEpisodes(episodes);
  if (shard) indices = sliceEpisodes(indices, shard);
  if (job) indices = sliceEpisodes(indices, job);
  return indices;
}

/** Writes run.json, then runs the slice's episodes (runTrial) and returns the slice's summary. */
export async function runSlice(o: SliceOptions): Promise<RunSummary> {
  const indices = sliceOf(o.episodes, o.shard, o.job);
  mkdirSync(o.outDir, { recursive: true });
  writeRunManifest(o.outDir, {
    format: 1,
    config: comparableConfig(o.run.config),
    robot: o.robot.profile.name,
    policy: { bundle: basename(o.policyPath), sha256: bundleDigest(o.policyPath) },
    task: o.task,
    seed: o.seed,
    episodes: o.episodes,
    max_steps: o.maxSteps ?? null,
    camera_frames: o.cameraFrames ?? "tick",
    record: o.run.config.record.enabled && !o.noRecord,
    shard: o.shard ?? null,
    job: o.job ?? null,
    episode_indices: indices,
  });
  return runTrial({ ...o, episodeIndices: indices });
}
