/** Scripted experts for the sim tasks and the lock-step expert episode runner. */
export type { ExpertStep, ScriptedExpert, SubtaskAnnotation } from "./types.js";
export { PlanExpert, gripperOpenWidth, type ExpertOp, type PlannedSubtask, type PlanExpertOptions } from "./PlanExpert.js";
export { armFor, gripWidths, moveObjectOps, pickOps, placeOps, pressOps, TRAVEL_Z, type GripWidths } from "./primitives.js";
export { ExpertPerturbation, checkPerturbationStd } from "./perturbation.js";
export { runExpertEpisode, type ExpertEpisodeOptions, type ExpertEpisodeResult, type ExpertTick, type SteppableWorld } from "./runExpertEpisode.js";
