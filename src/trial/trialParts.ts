/**
 * The pieces every trial shares, whoever the robot is (the in-process sim twin in runTrial.ts, or
 * hardware / a sim in another process in hardwareTrial.ts): the policy with its events wired, the
 * per-episode control parts, the planner, the oracle feeds and the recorded topic list.
 */
import type { Bus } from "../bus/types.js";
import type { LoadedRunConfig } from "../config/loaders.js";
import { Secrets } from "../config/secrets.js";
import { ActionScheduler, createOutput, SafetyFilter, StopLatch, Watchdog, watchedTopics, type OutputAdapter } from "../control/index.js";
import { SIM_SUBTASK, SIM_SUBTASK_END } from "../msgs/simTopics.js";
import type { ImageSpec } from "../observe/preprocess.js";
import { manifestFileOf } from "../policy/mem0/bundle.js";
import { type OracleDetector, oracleDetector } from "../policy/mem0/endDetector.js";
import { loadPolicy, readBundleFit } from "../policy/registry.js";
import { RemotePolicy } from "../policy/remote/RemotePolicy.js";
import { RoboMMEPolicy } from "../policy/remote/RoboMMEPolicy.js";
import type { Policy } from "../policy/types.js";
import { OpenAIPlanner } from "../policy/planner/openai.js";
import { OraclePlanner } from "../policy/planner/oracle.js";
import { OracleListPlanner } from "../policy/planner/oracleList.js";
import { openLearnedPlanner, type LearnedPlanner } from "../policy/planner/learned.js";
import type { Planner } from "../policy/planner/types.js";
import { PRIVILEGED_CLASSIFIERS, PRIVILEGED_PLANNERS, readManifestKind } from "../config/index.js";
import { layoutDim } from "../robot/layout.js";
import type { LayoutSpec, RobotProfile } from "../robot/types.js";
import type { EpisodeEnd } from "./episodeLoop.js";
import type { EventLog } from "./eventLog.js";
import type { ControlParts } from "./tick.js";

type RunCfg = LoadedRunConfig["config"];

/** Policy tick rate: the run config's control_hz, else the robot profile's. */
export function controlHzOf(cfg: RunCfg, profile: RobotProfile): number {
  return cfg.control.control_hz ?? profile.control_hz;
}

/** The oracle classifier ablation's end detector (`classifier: oracle`), else null (the bundle's learned classifier). */
export function oracleEndsOf(cfg: RunCfg): OracleDetector | null {
  return cfg.policy.classifier === "oracle" ? oracleDetector() : null;
}

/** A loaded policy as trials drive it: Mem0Policy (in process) or RemotePolicy (a policy server). */
export type TrialPolicy = Policy & { close(): Promise<void> };

/** A loaded trial policy and the count of its remote faults so far (server down, slow, bad reply; 0 in process). */
export interface LoadedTrialPolicy {
  policy: TrialPolicy;
  remoteFaults(): number;
}

/**
 * Loads the bundle with the family its manifest names (mem0, remote) and the run config's ablations
 * (for the oracle classifier, `oracleEnds` as the end detector: in-process Mem-0 only); memory and
 * classifier events and remote events (`remote_<kind>`) go to `events`. `policyUrl` overrides a
 * remote bundle's server URL (`--policy-url`).
 */
export async function loadTrialPolicy(cfg: RunCfg, profile: RobotProfile, policyPath: string, events: EventLog, oracleEnds: OracleDetector | null, policyUrl?: string): Promise<LoadedTrialPolicy> {
  if (cfg.memory && readManifestKind(manifestFileOf(policyPath)) === "remote") {
    throw new Error(`memory.strategy ${cfg.memory.strategy}: ${policyPath} is a remote policy (its server owns the memory)`);
  }
  let remoteFaults = 0;
  const policy: TrialPolicy = await loadPolicy(policyPath, {
    robot: profile, url: policyUrl, executeSteps: cfg.control.execute_steps,
    ablation: { anchor: cfg.policy.anchor, slidingWindow: cfg.policy.sliding }, memory: cfg.memory,
    ...(oracleEnds ? { endDetector: oracleEnds } : {}),
    onEvent: (e) => events.emit(e.kind === "memory" ? { event: "memory", op: e.op, step: e.step } : { event: "classifier_end", ...e }),
    onRemoteEvent: (e) => {
      if (e.kind === "fault") remoteFaults++;
      events.emit({ ...e, event: `remote_${e.kind}` });
    },
  });
  if (oracleEnds && (policy instanceof RemotePolicy || policy instanceof RoboMMEPolicy)) {
    await policy.close();
    throw new Error(`policy.classifier: oracle needs an in-process Mem-0 bundle; ${policyPath} is a remote policy (its server owns the classifier)`);
  }
  return { policy, remoteFaults: () => remoteFaults };
}

/** Preprocessing spec per policy camera (image size and pixel normalization from the manifest). */
export function imageSpecsOf(policy: Policy): Record<string, ImageSpec> {
  const { width, height } = policy.spec.imageSize;
  const norm = policy.spec.pixelNormalization ?? { mean: [0, 0, 0], std: [1, 1, 1] };
  const spec: ImageSpec = { width, height, mean: norm.mean as ImageSpec["mean"], std: norm.std as ImageSpec["std"] };
  return Object.fromEntries(policy.spec.cameras.map((c) => [c, spec]));
}

/** Fresh control parts for one episode (scheduler, safety filter, output adapter, stop latch, watchdog). */
export function episodeParts(cfg: RunCfg, profile: RobotProfile, layout: LayoutSpec, policy: Policy, controlHz: number): ControlParts {
  return {
    profile, layout,
    scheduler: new ActionScheduler({ dim: layoutDim(layout), executeSteps: cfg.control.execute_steps ?? undefined, ensemble: cfg.control.temporal_ensemble ? { decay: 0.1 } : undefined }),
    safety: new SafetyFilter({ profile, layout, controlHz }),
    output: createOutput(profile, layout, { controlHz }),
    stops: new StopLatch({ safety: profile.safety }),
    watchdog: new Watchdog(watchedTopics(profile, policy.spec.cameras)),
  };
}

/**
 * The planner the run config asks for: `learned` is the bundle's, opened once per run
 * (openLearnedPlanner); `subtasks` feed the privileged oracle-list one.
 */
export function plannerFor(
  p: RunCfg["policy"]["planner"], subtasks: string[], oracle: OraclePlanner | null, learned: Planner | null,
): Planner | null {
  switch (p.kind) {
    case "none": return null;
    case "learned": return learned;
    case "oracle-list": return new OracleListPlanner(subtasks);
    case "oracle": return oracle;
    case "openai": return new OpenAIPlanner({
      url: p.url!, model: p.model!, apiKey: plannerApiKey(p), prompt: p.prompt, systemPrompt: p.system_prompt, maxTokens: p.max_tokens, timeoutMs: p.timeout_ms, retries: p.retries,
    });
  }
}

/**
 * The bundle's learned planner when the run needs it (`planner.kind: learned` on an M(n) task),
 * opened once for the run; null otherwise. Throws naming the bundle when it has no planner section
 * or the section does not check (a remote bundle has none: its server plans nothing).
 */
export async function openRunPlanner(
  cfg: RunCfg, tmc: "M1" | "Mn", policyPath: string,
): Promise<LearnedPlanner | null> {
  if (cfg.policy.planner.kind !== "learned" || tmc === "M1") return null;
  return openLearnedPlanner(policyPath);
}

/** Which planner and classifier a run uses, and whether each is a privileged oracle (an ablation). */
export interface RunParts {
  planner: { kind: string; privileged: boolean };
  classifier: { kind: string; privileged: boolean };
}

/** The planner and classifier of `cfg` (summary.json, report.md and each episode_start event name them). */
export function runPartsOf(cfg: RunCfg): RunParts {
  const planner = cfg.policy.planner.kind, classifier = cfg.policy.classifier;
  return {
    planner: { kind: planner, privileged: PRIVILEGED_PLANNERS.includes(planner) },
    classifier: { kind: classifier, privileged: PRIVILEGED_CLASSIFIERS.includes(classifier) },
  };
}

/** The planner's API key from the environment variable `api_key_env` names; throws naming the variable when it is unset. */
export function plannerApiKey(p: RunCfg["policy"]["planner"], env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (!p.api_key_env) return undefined;
  const key = env[p.api_key_env];
  if (!key) throw new Error(`policy.planner.api_key_env: environment variable ${p.api_key_env} is not set (it holds the planner's API key)`);
  return key;
}

/**
 * Every secret the run holds, read once from the environment variables the configuration names:
 * the planner's key (`policy.planner.api_key_env`) and a remote bundle's server token (its
 * `token_env`). Unset variables hold nothing; a bundle that cannot be read holds nothing either
 * (loading it fails, naming the problem, before any token is sent).
 */
export function runSecrets(cfg: RunCfg, policyPath: string, env: NodeJS.ProcessEnv = process.env): Secrets {
  const planner = cfg.policy.planner.api_key_env;
  return Secrets.of([planner ? env[planner] : undefined, ...bundleTokenEnv(policyPath).map((name) => env[name])]);
}

/** The token variable a remote bundle's manifest names (`token_env`), as a list of 0 or 1. */
function bundleTokenEnv(policyPath: string): string[] {
  let manifest: object;
  try { manifest = readBundleFit(policyPath).manifest; } catch { return []; }
  const name = (manifest as Record<string, unknown>).token_env; // remote manifests only
  return typeof name === "string" ? [name] : [];
}

/** The sim's ground truth feeds the oracle classifier and the oracle planner when configured. */
export function subscribeGroundTruth(bus: Bus, oracleEnds: OracleDetector | null, oraclePlanner: OraclePlanner | null): void {
  if (oracleEnds) {
    const c = SIM_SUBTASK_END;
    bus.subscribe(c.topic, c.type, c.qos, (cdr) => { if (c.decode(cdr)) oracleEnds.signalEnd(); });
  }
  if (oraclePlanner) {
    const c = SIM_SUBTASK;
    bus.subscribe(c.topic, c.type, c.qos, (cdr) => oraclePlanner.update(c.decode(cdr)));
  }
}


/**
 * Why an episode's end stops the run, or null when the run goes on: an abort stops it (error,
 * disk, interrupt), except a dead planner's first one: the next episode tries the planner again,
 * and the run gives up only when it fails in two episodes in a row (`plannerDownBefore`); and
 * except a remote policy's fault in the episode (`remoteFault`: server down, slow, bad reply): the
 * next episode's reset() waits for the server (reconnect.give_up_s) and stops the run only if it stays away.
 */
export function runStopReason(end: EpisodeEnd, plannerDownBefore: boolean, remoteFault = false): string | null {
  if (end.kind !== "aborted" || remoteFault || (end.plannerDown && !plannerDownBefore)) return null;
  return end.reason;
}

/** "interrupted (SIGINT)": the abort reason the CLI's stop signals give, else "interrupted". */
export function interruptReason(signal: AbortSignal): string {
  const why = signal.reason instanceof Error ? signal.reason.message : typeof signal.reason === "string" ? signal.reason : "";
  return why ? `interrupted (${why})` : "interrupted";
}
