/**
 * Mem-0 subtask-end debounce (pure): a subtask end is declared when the number of ticks with
 * sigmoid(logit) >= threshold since the last switch reaches `switchCount`. Ticks need not be
 * consecutive; the count restarts at 0 after every declared end (and on reset).
 *
 * With `rearm`, the count after a declared end starts only once a tick has fallen below the threshold:
 * one run of positive ticks declares one end. A classifier that stays high through its whole end target
 * (the last frames of a subtask, and the first of the next while its memory refills) would otherwise
 * declare a second end `switchCount` ticks after the first.
 */

/** Manifest `classifier` settings. */
export interface DebounceConfig {
  threshold: number;
  switchCount: number;
  /** Manifest `classifier.rearm` (absent: false). */
  rearm?: boolean;
}

/** Count of positive ticks since the last switch; `armed` false while a rearming debounce waits for a negative tick. */
export interface DebounceState {
  positives: number;
  armed: boolean;
}

/** Result of one tick. */
export interface DebounceStep {
  state: DebounceState;
  probability: number;
  positive: boolean;
  ended: boolean;
}

/** Numerically stable logistic function. */
export function sigmoid(x: number): number {
  if (x >= 0) return 1 / (1 + Math.exp(-x));
  const e = Math.exp(x);
  return e / (1 + e);
}

/** Initial state (after reset). */
export function initialDebounce(): DebounceState {
  return { positives: 0, armed: true };
}

/**
 * Advances the debounce by one classifier logit. A non-finite logit (NaN, ±Inf: a classifier that
 * overflowed) counts as negative, so a broken model never declares an end.
 */
export function debounceStep(state: DebounceState, logit: number, cfg: DebounceConfig): DebounceStep {
  const probability = sigmoid(logit);
  const positive = Number.isFinite(logit) && probability >= cfg.threshold;
  if (!state.armed) return { state: { positives: 0, armed: !positive }, probability, positive, ended: false };
  const positives = state.positives + (positive ? 1 : 0);
  if (positives >= cfg.switchCount) return { state: { positives: 0, armed: !cfg.rearm }, probability, positive, ended: true };
  return { state: { positives, armed: true }, probability, positive, ended: false };
}
