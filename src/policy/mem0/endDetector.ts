/**
 * Subtask-end detectors for Mem0Policy (STYLE.md, "Interfaces": behaviour passed in, not a flag):
 * the learned classifier's debounce, or the sim's ground truth (the oracle ablation).
 */
import { debounceStep, initialDebounce, sigmoid, type DebounceConfig } from "./subtaskDebounce.js";

/** One tick's decision, with what the `subtask_end` event reports. */
export interface EndDecision {
  ended: boolean;
  source: "classifier" | "oracle";
  /** sigmoid(logit) of this tick's classifier output. */
  probability: number;
  /** Positive ticks counted towards the end (the switch count when it ends; 0 for the oracle). */
  positives: number;
}

/** Decides on every observe() whether the current subtask has ended. */
export interface EndDetector {
  /** Called once per observe() with the classifier's logit. */
  decide(logit: number): EndDecision;
  /** Clears what was counted (episode reset). */
  reset(): void;
}

/** The manifest's debounce: an end when `switchCount` logits with σ ≥ threshold have come since the last end (and, with `rearm`, since a tick below it). */
export function debounceDetector(cfg: DebounceConfig): EndDetector {
  let state = initialDebounce();
  return {
    decide(logit) {
      const d = debounceStep(state, logit, cfg);
      state = d.state;
      return { ended: d.ended, source: "classifier", probability: d.probability, positives: d.ended ? cfg.switchCount : d.state.positives };
    },
    reset() { state = initialDebounce(); },
  };
}

/** The sim's ground truth: `signalEnd()` (wired to /sim/subtask_end = true) makes the next decision an end. */
export interface OracleDetector extends EndDetector {
  signalEnd(): void;
}

/** The oracle classifier ablation: the logit is ignored, the sim says when a subtask ended. */
export function oracleDetector(): OracleDetector {
  let pending = false;
  return {
    signalEnd() { pending = true; },
    decide(logit) {
      const ended = pending;
      pending = false;
      return { ended, source: "oracle", probability: sigmoid(logit), positives: 0 };
    },
    reset() { pending = false; },
  };
}
