/**
 * What the one episode driver (runEpisodes.ts) runs against (DESIGN.md §3): a Rig. Implementations:
 * the sim twin in process (src/app/twinRig.ts), the twin in another process or a robot over the bus
 * (busRig.ts: the twin's /sim/* topics or the operator judge), and a recording (recordingRig.ts).
 * The driver owns the policy, the control parts, the recording and the run files; the rig owns the
 * world: its bus and clock, how ticks are paced, setting each episode's scene and judging it.
 */
import type { Bus } from "../bus/types.js";
import type { OutputAdapter } from "../control/index.js";
import type { EpisodeEnd, EpisodeLoopResult } from "./tick.js";
import type { EpisodeRecord } from "./summary.js";

/** The fields of a task spec the driver reads (the full spec, scenes aside, is src/task/'s). */
export interface RigTask {
  id: string;
  /** Memory class: M(1) tasks get the global instruction, M(n) tasks a planner. */
  tmc: "M1" | "Mn";
  /** Checkpoints the task defines, for the episode record's `checkpoints_defined`. */
  checkpoints: ReadonlyArray<{ id: string; label: "storage" | "update" | "compression" }>;
}

/**
 * How control ticks are paced. `lockstep`: the rig's world advances to each tick's time and stands
 * still in between (deterministic for a seed); `wallPaced` also waits for each tick's wall-clock
 * time (benches: a remote policy's round trips weigh as on hardware). `wall`: the bus clock runs
 * by itself and the loop sleeps until each tick; ticks that finish after the next was due are late.
 */
export type Pacing =
  | { kind: "lockstep"; advanceTo(tickNs: bigint): Promise<void>; wallPaced?: boolean }
  | { kind: "wall" };

/** What the rig measured about one finished episode: the record's fields the loop cannot know. */
export interface EpisodeScore {
  duration_s: number;
  /** Checkpoints reached (ground truth; empty without one). */
  checkpoints: EpisodeRecord["checkpoints"];
  checkpoints_defined: EpisodeRecord["checkpoints_defined"];
  /** Ground-truth subtask ends as control steps; null where nothing knows them (an operator). */
  true_ends: number[] | null;
  realtime_factor: number | null;
  /** Per policy camera: frame rate and stale holds (robots over the bus, where rates vary). */
  cameras?: EpisodeRecord["cameras"];
}

/** One episode on a rig, from its reset to its end. */
export interface EpisodeHandle {
  /** The global instruction the policy is given. */
  readonly instruction: string;
  /** The subtasks in order, for the oracle-list planner (M(n) tasks; privileged). */
  readonly subtasks: string[];
  /** Step limit of the episode (the task's time limit at the control rate, or the recording's length). */
  readonly stepLimit: number;
  /** Sim rate, for the recording's identification (null where there is no physics in this process). */
  readonly physicsHz: number | null;
  /** Fields the rig adds to the `episode_start` event (after the driver's). */
  readonly startFields?: Record<string, unknown>;
  /** Where the arm is now, joint name to position (the recording's start pose); null when unknown. */
  startPose(): Record<string, number> | null;
  /** Called right before the first tick: judges and ground-truth feeds start counting. */
  begin(): void;
  /**
   * Called when the loop returns: the rig holds the robot and has the final say (an operator asked
   * at the step limit). `runGoesOn`: the end is the rig's own abort (the operator's `a`), not a
   * reason to stop the run.
   */
  finish(loopEnd: EpisodeEnd): Promise<{ end: EpisodeEnd; runGoesOn: boolean }>;
  /** The record's fields the rig measured, after `finish`. */
  score(loop: EpisodeLoopResult, end: EpisodeEnd): EpisodeScore;
  /** Fields appended after the record's in episodes.jsonl (e.g. the end's reason), or none. */
  logFields?(end: EpisodeEnd): Record<string, unknown>;
  /** Always called once the episode is over, whatever happened (stops a real-time twin, a judge). */
  close(): Promise<void>;
}

/** A world the episode driver runs episodes in (DESIGN.md §3). */
export interface Rig {
  /** The bus the policy's sensors arrive on and its commands leave on; closed by the rig's owner. */
  readonly bus: Bus;
  readonly pacing: Pacing;
  /** What publishes the sensors, for the recorded topic list: the twin's, or a robot's drivers. */
  readonly sensors: "twin" | "drivers";
  /** True where the twin's /sim/* ground truth is on the bus (the oracle ablations can use it). */
  readonly groundTruthTopics: boolean;
  /**
   * Waits until the episode's scene may start and is not recorded: an operator resetting it by
   * hand, or the twin in another process asked over the bus. False: stop the run (the operator's
   * `q`). Absent: nothing to wait for (the in-process twin sets its scene in `reset`).
   */
  prepare?(task: RigTask, seed: number, episode: number): Promise<boolean>;
  /**
   * Starts episode `episode` of `task` with `seed`, after its recording started: the scene is set
   * and the sensors publish from it.
   */
  reset(task: RigTask, seed: number, episode: number): Promise<EpisodeHandle>;
  /** The running episode's end as the rig judges it (ground truth or the operator), or null: go on. */
  verdict(): EpisodeEnd | null;
  /**
   * Advertises `output`'s command topics now and returns what publishes a hold at the newest
   * measured joints: called after each episode's loop and after an error outside it, for a robot
   * that keeps moving on its last command. Absent: the world needs no hold between episodes.
   */
  holder?(output: OutputAdapter): () => void;
  /** Releases what the rig holds (nodes, subscriptions; an owned bus). */
  close(): Promise<void>;
}
