/** Policy layer public surface: the Policy contract, the Mem-0 execution module and the planners. */
export type { ActionChunk, EpisodeInfo, ObserveResult, Policy, PolicySpec, PreparedObservation } from "./types.js";
export { loadPolicy, policyBundleIssues, readBundleFit, type BundleFit, type PolicyDefinition, type PolicyLoadOptions } from "./registry.js";
export {
  loadMem0Policy, mem0MemorySpec, Mem0Policy, type Mem0Ablation, type Mem0Event, type Mem0Options,
} from "./mem0/Mem0Policy.js";
export { RemotePolicy, type RemoteEvent, type RemoteOptions } from "./remote/RemotePolicy.js";
export { loadRemotePolicy } from "./remote/definition.js";
export { RoboMMEPolicy } from "./remote/RoboMMEPolicy.js";
export { openMem0Bundle, closeMem0Bundle, mem0BundleIssues, manifestFileOf, type Mem0Bundle } from "./mem0/bundle.js";
export { readManifest, type LoadedManifest, type PolicyManifest } from "./mem0/manifest.js";
export type { MemoryOp } from "../memory/index.js";
export type { ExecutionProvider } from "./mem0/ortSession.js";
export { canonicalInstruction } from "./mem0/tokenizer.js";
export { PlannerFailure, type Planner, type PlannerAnswer, type PlannerContext, type FinishedSubtask, type PlannerFailureKind } from "./planner/types.js";
export { shouldCallPlanner, plannerContext, type MemoryComplexity, type PlannerTrigger } from "./planner/gating.js";
export { OpenAIPlanner, chatCompletionsUrl, type OpenAIPlannerOptions } from "./planner/openai.js";
export { mem0Messages, parseMem0Answer, parseNextSubtask, type PromptFormat } from "./planner/prompt.js";
export { OracleListPlanner } from "./planner/oracleList.js";
export { LearnedPlanner, learnedPlannerIssues, openLearnedPlanner } from "./planner/learned.js";
export { OraclePlanner } from "./planner/oracle.js";
