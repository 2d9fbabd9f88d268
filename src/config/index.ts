/** Config layer: YAML loading with positions, zod schemas, and per-kind loaders. */
export { ConfigError, formatIssue, formatPath, loadYaml, loadYamlOrThrow, parseYaml, validateSource, issueAt, locate, describeValue } from "./load.js";
export type { ConfigIssue, FieldPath, YamlSource } from "./load.js";
export {
  configDir, loadCalibration, loadPolicyManifest, loadRemoteManifest, loadRunConfig, missingFileIssue, readManifestKind,
  resolveRef,
} from "./loaders.js";
export type { LoadedManifest, LoadedRemoteManifest, LoadedRunConfig } from "./loaders.js";
export { robotProfilePartialCheck, robotProfileSchema } from "./schemas/robotProfile.js";
export { calibrationSchema } from "./schemas/calibration.js";
export {
  memoryChoiceSchema, PLANNER_KINDS, PRIVILEGED_CLASSIFIERS, PRIVILEGED_PLANNERS, runConfigSchema, SCRIPTED_RENAMED,
  TASK_IDS,
} from "./schemas/runConfig.js";
export type { RunConfig } from "./schemas/runConfig.js";
export {
  policyManifestSchema, plannerSectionSchema, tensorSpecSchema, MODEL_ROLES, PLANNER_ROLES,
  TOKEN_MEMORY_INPUTS,
} from "./schemas/policyManifest.js";
export { remotePolicySchema, type RemotePolicyManifest } from "./schemas/remotePolicy.js";
export type { ModelKey, PlannerSection, PolicyManifest, TensorSpec } from "./schemas/policyManifest.js";
