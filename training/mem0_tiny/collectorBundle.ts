/**
 * The bundle collect.ts rolls out while the expert acts on every chunk (beta 1): a tiny random-weight
 * mem0 bundle with the policy's cameras, image size and layout, whose vocabulary holds the sim tasks'
 * texts and every instruction the task's scenes can ask for (the same list collect.ts writes into
 * vocabulary.json, so a trained policy tokenizes alike).
 *
 *   npx tsx training/mem0_tiny/collectorBundle.ts --task video-unmask --out data/video/collector-video-unmask \
 *     --cameras exterior_left,wrist --layout joint_8d --state-dim 8 [--size 128x96] [--planner training/planner/mn]
 * `--planner` puts a trained planner's planner.onnx and section into it (M(n) tasks need one to run).
 */
import { resolve } from "node:path";
import { DEFAULT_INSTRUCTIONS, writeTestBundle } from "../../src/policy/mem0/testBundle.js";
import { addPlannerFrom } from "../../src/policy/planner/testPlanner.js";
import { getTaskSpec } from "../../src/task/registry.js";
import { mulberry32 } from "../../src/task/rng.js";

/** Every instruction the task's scenes can ask for (sorted, so every collection tokenizes alike). */
export function taskInstructions(taskId: string): string[] {
  const task = getTaskSpec(taskId);
  if (!task.draw || !task.instructionFor) return [task.instruction];
  const all = new Set<string>();
  for (let seed = 0; seed < 2000; seed++) all.add(task.instructionFor(task.draw(mulberry32(seed))));
  return [...all].sort();
}

/** The sim tasks' texts, then the task's instructions they lack: what collect.ts's vocabulary holds. */
export function collectInstructions(taskId: string): string[] {
  return [...DEFAULT_INSTRUCTIONS, ...taskInstructions(taskId).filter((t) => !DEFAULT_INSTRUCTIONS.includes(t))];
}

function main(args: string[]): void {
  const flag = (name: string, def?: string): string => {
    const i = args.indexOf(`--${name}`);
    if (i >= 0 && args[i + 1] !== undefined) return args[i + 1]!;
    if (def === undefined) {
      throw new Error(`collectorBundle: --${name} is required (usage: collectorBundle.ts --task TASK --out DIR `
        + "--cameras A,B --layout LAYOUT --state-dim N [--size WxH] [--planner DIR])");
    }
    return def;
  };
  const size = /^(\d+)x(\d+)$/.exec(flag("size", "128x96"));
  if (!size) throw new Error(`collectorBundle: --size expects WxH (e.g. 128x96), got "${flag("size")}"`);
  const stateDim = Number(flag("state-dim"));
  if (!Number.isInteger(stateDim) || stateDim < 1) throw new Error(`collectorBundle: --state-dim expects an integer >= 1, got "${flag("state-dim")}"`);
  const out = resolve(flag("out"));
  writeTestBundle(out, {
    name: "collector", instructions: collectInstructions(flag("task")), layout: flag("layout"),
    imageSize: { width: Number(size[1]), height: Number(size[2]) },
    dims: { cameras: flag("cameras").split(",").filter(Boolean), stateDim, actionDim: stateDim },
  });
  const planner = flag("planner", "");
  if (planner) addPlannerFrom(out, resolve(planner));
  process.stdout.write(`wrote ${out}/policy.yaml and its ${planner ? "five" : "four"} ONNX files\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)) {
  try {
    main(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exit(1);
  }
}
