/**
 * What a run checks before any bus or sim exists, and `engram check` checks of a run config: the
 * policy bundle fits the robot (cameras, layouts, dims), the task runs on the robot, and every text
 * the policy will be asked to tokenize during an episode is in a closed vocabulary. Each problem is
 * a ConfigIssue under the file that must change, after one naming the run config's field.
 */
import { issueAt, loadPolicyManifest, readManifestKind } from "../config/index.js";
import type { ConfigIssue, LoadedRunConfig, PlannerSection, PolicyManifest, YamlSource } from "../config/index.js";
import { manifestFileOf } from "../policy/mem0/bundle.js";
import { canonicalInstruction } from "../policy/mem0/tokenizer.js";
import { indexOfText } from "../policy/planner/learnedManifest.js";
import { readBundleFit } from "../policy/registry.js";
import { policyFitIssues } from "../robot/policyFit.js";
import type { RobotProfile } from "../robot/types.js";
import { getTaskSpec, nominalTexts, taskRobotOf, type TaskRobot, type TaskSpec } from "../task/index.js";

/** What a run is about to start. */
export interface PreflightInput {
  run: LoadedRunConfig;
  robot: RobotProfile;
  /** The bundle the run loads (--policy, or the config's policy.bundle). */
  policyPath: string;
  /** The task id the run uses (--task, or the config's). */
  task: string;
  seed: number;
  /** The instruction a robot run was given (--instruction), instead of the task's nominal one. */
  instruction?: string;
}

/** A text the policy will tokenize, and what it is to the task. */
interface TaskText { text: string; role: "instruction" | "subtask" }

/** Every reason the run would fail on its configuration once started; [] when it can start. */
export async function preflightIssues(o: PreflightInput): Promise<ConfigIssue[]> {
  const fit = readBundleFit(o.policyPath);
  const misfit = policyFitIssues(fit.manifest, fit.source, o.robot);
  if (misfit.length > 0) {
    const at = issueAt(o.run.source, ["policy", "bundle"], `expected a bundle that fits robot "${o.robot.name}", `
      + `found ${o.policyPath} with ${misfit.length} mismatch(es) (listed under its policy.yaml)`);
    return [at, ...misfit];
  }
  const task = getTaskSpec(o.task);
  const robotId = taskRobotOrNull(o.robot);
  if (robotId === null) return [];
  if (!task.robots.includes(robotId)) {
    const runsOn = task.robots.join(", ");
    const message = `expected a task that runs on robot "${o.robot.name}", found "${task.id}" (it runs on ${runsOn})`;
    return [issueAt(o.run.source, ["task"], message)];
  }
  const file = manifestFileOf(o.policyPath);
  const planner = o.run.config.policy.planner.kind;
  const nominal = nominalTexts(task, o.seed);
  const remote = readManifestKind(file) === "remote";
  const { manifest, source } = remote ? { manifest: null, source: null } : loadPolicyManifest(file);
  if (planner === "learned" && task.tmc === "Mn") {
    const instruction = o.instruction ?? nominal.instruction;
    const issues = learnedPlannerIssuesOf(o, task, manifest?.planner ?? null, source, instruction);
    if (issues.length > 0) return issues;
  }
  // A remote policy's vocabulary lives on its server, which checks each instruction itself.
  if (!manifest || !source) return [];
  const texts = textsToTokenize(task, planner, o.instruction ?? nominal.instruction, nominal.subtasks);
  const missing = texts.filter((t) => !inVocabulary(t.text, manifest));
  if (missing.length === 0) return [];
  const entry = (t: TaskText) => issueAt(source, ["tokenizer", "vocabulary"],
    `expected the ${t.role} of task "${task.id}" in the closed vocabulary, `
    + `found no entry for ${JSON.stringify(t.text)}${unknownWords(t.text, manifest)}`);
  const at = issueAt(o.run.source, ["task"], `expected a task bundle ${o.policyPath} can follow, found "${task.id}" `
    + `with ${missing.length} text(s) outside its vocabulary (listed under its policy.yaml)`);
  return [at, ...missing.map(entry)];
}

/**
 * Why the learned planner cannot plan this M(n) task: the bundle has no `planner` section (a remote
 * bundle never has: its server plans nothing), or the global task is not one of its planner.tasks.
 */
function learnedPlannerIssuesOf(
  o: PreflightInput, task: TaskSpec, p: PlannerSection | null, source: YamlSource | null, instruction: string,
): ConfigIssue[] {
  if (!p || !source) {
    const message = `expected a bundle with a learned planner for M(n) task "${task.id}" (kind "learned", the `
      + `default), found ${o.policyPath} without a planner section (planner.onnx); train one (engram_ml/planner), `
      + `or set kind to "openai", or "oracle-list" (privileged, ablations only)`;
    return [issueAt(o.run.source, ["policy", "planner", "kind"], message)];
  }
  if (indexOfText(p.tasks, instruction) >= 0) return [];
  return [
    issueAt(o.run.source, ["task"],
      `expected a task the bundle's learned planner knows, found "${task.id}" (listed under its policy.yaml)`),
    issueAt(source, ["planner", "tasks"], `expected the instruction of task "${task.id}" among planner.tasks, `
      + `found none matching ${JSON.stringify(instruction)}`),
  ];
}

/**
 * The texts a Mem-0 policy tokenizes in an episode: the global instruction for M(1) tasks (and
 * M(n) ones without a planner), the subtasks for M(n) tasks whose planner hands them out (the
 * oracle-list and oracle ablations); a learned planner's answers are its own vocabulary (checked
 * against the tokenizer's when the bundle loads), an OpenAI-compatible planner's only known at run time.
 */
export function textsToTokenize(
  task: TaskSpec, planner: string, instruction: string, subtasks: string[],
): TaskText[] {
  if (task.tmc === "M1" || planner === "none") return [{ text: instruction, role: "instruction" }];
  if (planner === "oracle-list" || planner === "oracle") return subtasks.map((text) => ({ text, role: "subtask" }));
  return [];
}

function inVocabulary(text: string, m: PolicyManifest): boolean {
  const key = canonicalInstruction(text);
  return Object.keys(m.tokenizer.vocabulary).some((k) => canonicalInstruction(k) === key);
}

/** `; words in no entry: shelf, screen` (which words to add), or "" when each word occurs somewhere. */
function unknownWords(text: string, m: PolicyManifest): string {
  const words = (s: string) => canonicalInstruction(s).split(/[^a-z0-9-]+/).filter(Boolean);
  const known = new Set(Object.keys(m.tokenizer.vocabulary).flatMap(words));
  const unknown = [...new Set(words(text).filter((w) => !known.has(w)))];
  return unknown.length > 0 ? `; words in no entry: ${unknown.join(", ")}` : "";
}

function taskRobotOrNull(profile: RobotProfile): TaskRobot | null {
  try { return taskRobotOf(profile); } catch { return null; }
}
