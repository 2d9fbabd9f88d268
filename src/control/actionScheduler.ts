import type { ActionChunk } from "../policy/types.js";
import { sameNames } from "./limits.js";
import type { Gate } from "./types.js";

/** How the scheduler executes chunks. */
export interface SchedulerOptions {
  /** Action dimension D every chunk must have. */
  dim: number;
  /**
   * Δ: executed steps after which a new chunk is requested. Default: the chunk's horizon H (Mem-0
   * executes the whole chunk, then re-infers). With Δ < H chunks overlap by H - Δ steps.
   */
  executeSteps?: number;
  /**
   * Temporal ensembling over overlapping chunks (ACT, Zhao et al. 2023): the action for tick t is
   * Σ w_i a_i(t) / Σ w_i over every chunk i that predicts t, with w_i = exp(-decay · i) and i = 0
   * the OLDEST such chunk (ACT's convention; decay 0.01 is ACT's m). Off when absent; only has an
   * effect with executeSteps < H.
   */
  ensemble?: { decay: number };
}

/** A chunk placed on the tick timeline: row 0 is executed at `startTick`. */
export interface PlacedChunk {
  chunk: ActionChunk;
  startTick: number;
}

/** Scheduler state as a plain value; the pure functions below map it to the next state. */
export interface SchedulerState {
  /** Ticks executed since the last clear. */
  tick: number;
  /** Live chunks, oldest first (one without ensembling). */
  chunks: PlacedChunk[];
  /** Steps executed since the newest chunk arrived. */
  sinceChunk: number;
}

/** The empty state (start, or after a subtask switch). */
export const EMPTY_SCHEDULE: SchedulerState = { tick: 0, chunks: [], sinceChunk: 0 };

/**
 * Chunk replacement as a pure unit. The new chunk starts at the current tick. Without ensembling
 * it replaces the running chunk outright (the rest of the old one is dropped); with ensembling it
 * joins the live chunks and overlapping rows are blended. A chunk with other joint names than the
 * live ones replaces them all. Returns a hold (and the state unchanged) on a dim mismatch.
 * See src/control/README.md "Chunk replacement".
 */
export function acceptChunk(state: SchedulerState, chunk: ActionChunk, opts: SchedulerOptions): { state: SchedulerState; gate: Gate } {
  if (chunk.dim !== opts.dim || chunk.horizon < 1 || chunk.actions.length !== chunk.horizon * chunk.dim) {
    return {
      state,
      gate: { kind: "hold", reason: "wrong_length", details: `chunk horizon=${chunk.horizon} dim=${chunk.dim} values=${chunk.actions.length}; scheduler expects dim ${opts.dim} and values = horizon x dim` },
    };
  }
  const placed: PlacedChunk = { chunk, startTick: state.tick };
  const keep = opts.ensemble
    ? state.chunks.filter((c) => live(c, state.tick) && sameNames(c.chunk.jointNames, chunk.jointNames))
    : [];
  return { state: { tick: state.tick, chunks: [...keep, placed], sinceChunk: 0 }, gate: { kind: "ok" } };
}

/** True when no chunk is live or Δ steps of the newest chunk have been executed. */
export function needsChunk(state: SchedulerState, opts: SchedulerOptions): boolean {
  const newest = state.chunks[state.chunks.length - 1];
  if (!newest || !live(newest, state.tick)) return true;
  const delta = Math.min(opts.executeSteps ?? newest.chunk.horizon, newest.chunk.horizon);
  return state.sinceChunk >= delta;
}

/** The (ensembled) action for tick `t` (default: the current tick), or null when no chunk covers it. */
export function actionAt(state: SchedulerState, opts: SchedulerOptions, t: number = state.tick): Float64Array | null {
  const covering = state.chunks.filter((c) => t >= c.startTick && t < c.startTick + c.chunk.horizon);
  if (covering.length === 0) return null;
  const d = opts.dim;
  if (!opts.ensemble || covering.length === 1) {
    const c = covering[covering.length - 1]!;
    const k = t - c.startTick;
    return c.chunk.actions.slice(k * d, (k + 1) * d);
  }
  const out = new Float64Array(d);
  let wsum = 0;
  covering.forEach((c, i) => {
    const w = Math.exp(-opts.ensemble!.decay * i);
    const k = t - c.startTick;
    for (let j = 0; j < d; j++) out[j] = out[j]! + w * c.chunk.actions[k * d + j]!;
    wsum += w;
  });
  for (let j = 0; j < d; j++) out[j] = out[j]! / wsum;
  return out;
}

/** One tick executed: time moves on, expired chunks drop. */
export function advance(state: SchedulerState): SchedulerState {
  const tick = state.tick + 1;
  return { tick, chunks: state.chunks.filter((c) => live(c, tick)), sinceChunk: state.sinceChunk + 1 };
}

/** The actions from tick `state.tick` to the end of the newest chunk, ensembled, as a chunk (trajectory output). */
export function pendingChunk(state: SchedulerState, opts: SchedulerOptions): ActionChunk | null {
  const newest = state.chunks[state.chunks.length - 1];
  if (!newest) return null;
  const end = newest.startTick + newest.chunk.horizon;
  const horizon = end - state.tick;
  if (horizon <= 0) return null;
  const actions = new Float64Array(horizon * opts.dim);
  for (let k = 0; k < horizon; k++) actions.set(actionAt(state, opts, state.tick + k)!, k * opts.dim);
  return { jointNames: [...newest.chunk.jointNames], actions, horizon, dim: opts.dim };
}

/**
 * Holds the current chunk(s) and hands out one action per tick. The loop calls `needsChunk()` each
 * tick, `policy.act()` when it is true, `accept()` with the safety-checked chunk, then `next()`.
 * `clear()` on a declared subtask end (drops chunks and the ensemble).
 */
export class ActionScheduler {
  private state: SchedulerState = EMPTY_SCHEDULE;

  constructor(readonly opts: SchedulerOptions) {
    if (!(opts.dim >= 1)) throw new Error(`scheduler dim ${opts.dim} must be ≥ 1`);
    if (opts.executeSteps !== undefined && !(Number.isInteger(opts.executeSteps) && opts.executeSteps >= 1)) {
      throw new Error(`execute_steps ${opts.executeSteps} must be an integer ≥ 1`);
    }
    if (opts.ensemble && !(opts.ensemble.decay >= 0)) throw new Error(`ensemble decay ${opts.ensemble.decay} must be ≥ 0`);
  }

  /** True when the policy should be asked for a new chunk on this tick. */
  needsChunk(): boolean {
    return needsChunk(this.state, this.opts);
  }

  /** Installs a new chunk starting at the current tick (see `acceptChunk`). */
  accept(chunk: ActionChunk): Gate {
    const r = acceptChunk(this.state, chunk, this.opts);
    this.state = r.state;
    return r.gate;
  }

  /** This tick's action (D values, chunk joint order), advancing one tick; null when nothing covers the tick. */
  next(): { jointNames: string[]; positions: Float64Array } | null {
    const a = actionAt(this.state, this.opts);
    const names = this.state.chunks[this.state.chunks.length - 1]?.chunk.jointNames;
    this.state = advance(this.state);
    return a && names ? { jointNames: names, positions: a } : null;
  }

  /** Remaining actions of the current schedule from this tick (not advancing). */
  pending(): ActionChunk | null {
    return pendingChunk(this.state, this.opts);
  }

  /** Drops every chunk (subtask switch, hold, episode end). */
  clear(): void {
    this.state = EMPTY_SCHEDULE;
  }

  /** The current state (a plain value, for tests and logs). */
  snapshot(): SchedulerState {
    return this.state;
  }
}

function live(c: PlacedChunk, tick: number): boolean {
  return tick < c.startTick + c.chunk.horizon;
}
