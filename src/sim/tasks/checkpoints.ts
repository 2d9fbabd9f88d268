/** Latching of MEMOBench-style checkpoints: each is reached once, at the first step its predicate holds. */
import type { SimWorldApi } from "../world/types.js";
import type { CheckpointDef, CheckpointLabel, TaskScene } from "./types.js";

/** A checkpoint reached during an episode. */
export interface CheckpointReached {
  id: string;
  label: CheckpointLabel;
  step: number;
}

/** Evaluates a task's checkpoints every control step and latches each the first time it holds. */
export class CheckpointTracker<S extends TaskScene> {
  private readonly reachedById = new Map<string, CheckpointReached>();

  constructor(private readonly defs: CheckpointDef<S>[]) {}

  /** Evaluates the not-yet-reached checkpoints at `step`; returns the ones reached on this step. */
  evaluate(world: SimWorldApi, scene: S, step: number): CheckpointReached[] {
    const fresh: CheckpointReached[] = [];
    for (const def of this.defs) {
      if (this.reachedById.has(def.id) || !def.predicate(world, scene)) continue;
      const hit = { id: def.id, label: def.label, step };
      this.reachedById.set(def.id, hit);
      fresh.push(hit);
    }
    return fresh;
  }

  /** All checkpoints reached so far, in the order they were reached. */
  reached(): CheckpointReached[] {
    return [...this.reachedById.values()];
  }
}
