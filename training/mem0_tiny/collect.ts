/**
 * DAgger data for mem0-tiny: runs episodes through the real runtime on the in-process twin
 * (runTrial: the same bus, camera encoding, sharp preprocessing, scheduler and safety filter as
 * `engram run`) with the policy wrapped by a LabelingPolicy. On every tick the wrapper saves what
 * the policy saw (its preprocessed images and state) with the twin's oracle label for that state
 * (the task's reactive expert's chunk from the ground truth now, src/sim/expert/) and privileged
 * targets for the perception's auxiliary loss (training/mem0_tiny/privileged.ts). A demonstration
 * prompt (run config `demonstration`, e.g. launch/sim-franka-video.yaml) is saved as the episode's
 * first `demo_frames` frames, with the targets of the demonstration's own world. Each chunk the
 * scheduler asks for is the expert's with probability --beta, else the policy's (beta 1: expert
 * demonstrations through the runtime; beta 0: pure policy rollouts, labelled by the oracle).
 *
 * Per episode `<out>/<name>-<seed>.*` (the layout engram_ml/mem0_tiny/train.py reads, plus labels):
 *   images.npy uint8 [T, C, H, W, 3]   state.npy float32 [T, 16]   action.npy float32 [T, 16] (label chunk's first target)
 *   label.npy float32 [T, H, D] (the oracle's chunk, absolute, policy layout; a demonstration frame's holds its state)
 *   aux.npy float32 [T, A] (privileged targets, columns as json aux_kinds)
 *   json: { task, tmc, instruction, seed, outcome, frames, demo_frames, cameras, width, height, layout, control_hz,
 *           aux_kinds, aux_layout, answer, segments, subtask_end, subtasks, beta, policy }
 * On an M(n) task (tmc "Mn") `segments` are what the runtime did: [{ text, start, end }], a new one
 * after each declared end (the memory was cleared) or instruction change, and `subtask_end` the ground
 * truth: the frames where the twin's progress first shows a subtask done; `subtasks` is the twin's list for
 * the scene (the correct plan, for the planner's data). M(1) tasks write all three empty.
 *
 * Run: npx tsx training/mem0_tiny/collect.ts --policy DIR --episodes N --seed S --beta B --out data/dagger --name it0
 *      [--task put-back-block --config launch/sim-x-one.yaml]
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { loadRunConfig } from "../../src/config/loaders.js";
import type { ActionChunk, EpisodeInfo, ObserveResult, Policy, PolicySpec, PreparedObservation } from "../../src/policy/types.js";
import { getLayout, toPolicyVector } from "../../src/robot/layout.js";
import { loadRobotProfile } from "../../src/robot/loadRobotProfile.js";
import type { LayoutSpec } from "../../src/robot/types.js";
import type { ReactiveExpert } from "../../src/sim/expert/types.js";
import { reactiveExpertOf } from "../../src/sim/expert/runExpertEpisode.js";
import type { SimNode } from "../../src/sim/node/SimNode.js";
import type { TaskDefinition, TaskScene } from "../../src/sim/tasks/index.js";
import { getTaskSpec } from "../../src/task/registry.js";
import { mulberry32 } from "../../src/task/rng.js";
import { runTrial } from "../../src/app/runTrial.js";
import type { Demonstrator } from "../../src/app/twinDemonstration.js";
import { wordVocabulary } from "../../src/policy/mem0/testBundle.js";
import { collectInstructions } from "./collectorBundle.js";
import { npyBytes } from "./hdf5ToNpy.js";
import { privilegedTargetsOf, type PrivilegedTargets } from "./privileged.js";

interface Frame { images: Uint8Array; state: Float32Array; label: Float32Array; aux: Float32Array }

/** What the runtime told the policy and when the twin saw subtasks end (M(n) episodes). */
export interface SubtaskTrace {
  segments: { text: string; start: number; end: number }[];
  subtaskEnd: number[];
  /** The twin's subtask list for the scene, in order (what a correct plan is). */
  subtasks: string[];
}

/**
 * The task's demonstration expert, recording the privileged targets of its own world at each tick
 * (`ticks`, emptied by the caller per episode): the twin's demonstration runs on a scene of its own.
 */
function recordingDemonstrator(targets: PrivilegedTargets, ticks: number[][]): (task: TaskDefinition<TaskScene>) => Demonstrator | undefined {
  return (task) => {
    const demo = task.demonstration;
    if (!demo) return undefined;
    return (world, scene, profile) => {
      const inner = demo(world, scene, profile);
      return {
        next: (w, step) => {
          const out = inner.next(w, step);
          ticks.push(targets.at(w, scene, null));
          return out;
        },
        annotations: () => inner.annotations(),
      };
    };
  };
}

/** Wraps the policy: logs observation + oracle label per tick, and lets the expert act with probability beta. */
class LabelingPolicy implements Policy {
  private expert: ReactiveExpert | null = null;
  private frames: Frame[] = [];
  private demoFrames = 0;
  private episode: EpisodeInfo | null = null;
  private readonly rng: () => number;
  private latestLabel: Float64Array[] = [];
  private instruction = "";
  /** The runtime cleared the memory after the last frame (a declared subtask end). */
  private cleared = true;
  private trace: SubtaskTrace = { segments: [], subtaskEnd: [], subtasks: [] };
  private subtasksDone = 0;

  constructor(private readonly inner: Policy, private readonly sim: SimNode, private readonly o: {
    beta: number; seed: number; layout: LayoutSpec; targets: PrivilegedTargets; demoTicks: number[][];
    onEpisode: (e: EpisodeInfo, frames: Frame[], demoFrames: number, answer: number | null, trace: SubtaskTrace) => void;
  }) {
    this.rng = mulberry32(o.seed ^ 0x5eed).next;
  }

  get spec() { return this.inner.spec; }

  async reset(episode: EpisodeInfo): Promise<void> {
    this.flush();
    const e = this.sim.episode;
    if (!e) throw new Error("collect: the sim has no episode at reset");
    this.expert = reactiveExpertOf(e.task, this.sim.world, e.scene, this.sim.world.profile);
    this.episode = episode;
    this.instruction = episode.instruction; // what the policy holds until the runtime tells it a subtask
    this.trace.subtasks = e.task.subtasks(e.scene);
    this.answer = this.o.targets.answer(e.scene);
    this.o.demoTicks.length = 0;
    await this.inner.reset(episode);
  }

  private answer: number | null = null;

  /** Saves the demonstration's frames (label: hold the state) with its own world's targets, then passes it on. */
  async observeDemonstration(frames: readonly PreparedObservation[]): Promise<void> {
    const ticks = this.o.demoTicks, skipped = ticks.length - frames.length; // the first ticks can precede the cameras
    frames.forEach((obs, j) => {
      const H = this.inner.spec.horizon, D = obs.state.length;
      const label = new Float32Array(H * D);
      for (let k = 0; k < H; k++) label.set(obs.state, k * D);
      const aux = Float32Array.from(ticks[Math.max(0, j + skipped)] ?? []);
      this.frames.push({ images: imagesToBytes(obs, this.inner.spec.cameras), state: Float32Array.from(obs.state), label, aux });
    });
    this.demoFrames = frames.length;
    await this.inner.observeDemonstration(frames);
  }

  resetSession(): Promise<void> { return this.inner.resetSession(); }

  setInstruction(text: string): void {
    this.inner.setInstruction(text);
    this.instruction = text;
  }

  async observe(obs: PreparedObservation): Promise<ObserveResult> {
    const world = this.sim.world, expert = this.expert!;
    this.traceFrame(this.frames.length);
    this.latestLabel = expert.chunk(world);
    const names = world.jointNames();
    const H = this.latestLabel.length, D = obs.state.length;
    const label = new Float32Array(H * D);
    this.latestLabel.forEach((t, k) => label.set(toPolicyVector(this.o.layout, names, t), k * D));
    const aux = Float32Array.from(this.o.targets.at(world, this.sim.episode!.scene, expert));
    this.frames.push({ images: imagesToBytes(obs, this.inner.spec.cameras), state: Float32Array.from(obs.state), label, aux });
    const result = await this.inner.observe(obs);
    this.cleared = result.subtaskEnded;
    return result;
  }

  /** Frame t's segment (a new one after a clear or a new instruction) and whether the twin now shows a subtask done. */
  private traceFrame(t: number): void {
    const { segments, subtaskEnd } = this.trace, last = segments[segments.length - 1];
    if (!last || this.cleared || last.text !== this.instruction) segments.push({ text: this.instruction, start: t, end: t });
    else last.end = t;
    this.cleared = false;
    const done = this.sim.episode!.subtasksDone;
    if (done > this.subtasksDone) subtaskEnd.push(t);
    this.subtasksDone = done;
  }

  async act(): Promise<ActionChunk> {
    if (this.rng() >= this.o.beta) return this.inner.act();
    const D = this.latestLabel[0]!.length;
    const actions = new Float64Array(this.latestLabel.length * D);
    this.latestLabel.forEach((t, k) => actions.set(t, k * D));
    return { jointNames: this.sim.world.jointNames(), actions, horizon: this.latestLabel.length, dim: D };
  }

  flush(): void {
    if (this.episode && this.frames.length) this.o.onEpisode(this.episode, this.frames, this.demoFrames, this.answer, this.trace);
    this.trace = { segments: [], subtaskEnd: [], subtasks: [] };
    this.cleared = true;
    this.subtasksDone = 0;
    this.frames = [];
    this.demoFrames = 0;
    this.episode = null;
  }
}

/** The policy's CHW float images (pixel normalization mean 0.5, std 0.5) back to HWC bytes, cameras in order. */
function imagesToBytes(obs: PreparedObservation, cameras: string[]): Uint8Array {
  const first = obs.images[cameras[0]!]!;
  const plane = first.length / 3;
  const out = new Uint8Array(cameras.length * plane * 3);
  cameras.forEach((cam, c) => {
    const chw = obs.images[cam]!;
    for (let i = 0; i < plane; i++) for (let k = 0; k < 3; k++) out[(c * plane + i) * 3 + k] = Math.round((chw[k * plane + i]! * 0.5 + 0.5) * 255);
  });
  return out;
}

function stack(frames: Frame[], key: keyof Frame): Float32Array | Uint8Array {
  const n = frames[0]![key].length;
  const out = key === "images" ? new Uint8Array(frames.length * n) : new Float32Array(frames.length * n);
  frames.forEach((f, t) => out.set(f[key], t * n));
  return out;
}

/** A number flag within [min, max] (integers where asked), or the default; an error names the flag. */
function numberFlag(args: string[], name: string, def: number, min: number, max: number, integer: boolean): number {
  const i = args.indexOf(`--${name}`);
  if (i < 0) return def;
  const v = Number(args[i + 1]);
  if (!Number.isFinite(v) || v < min || v > max || (integer && !Number.isInteger(v))) {
    throw new Error(`collect: --${name} expects ${integer ? "an integer" : "a number"} in [${min}, ${max}], got "${args[i + 1]}"`);
  }
  return v;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const flag = (name: string, def?: string): string => {
    const i = args.indexOf(`--${name}`);
    if (i >= 0 && args[i + 1] !== undefined) return args[i + 1]!;
    if (def === undefined) throw new Error(`collect: --${name} is required (usage: collect.ts --policy DIR --out DIR --name NAME [--episodes N --seed S --beta B --task TASK --config RUN_CONFIG])`);
    return def;
  };
  const out = resolve(flag("out")), name = flag("name"), policyPath = resolve(flag("policy"));
  const episodes = numberFlag(args, "episodes", 10, 1, 100_000, true);
  const seed = numberFlag(args, "seed", 0, 0, 2 ** 31 - 1, true);
  const beta = numberFlag(args, "beta", 1, 0, 1, false);
  const task = flag("task", "put-back-block");
  const targets = privilegedTargetsOf(task);
  const run = loadRunConfig(flag("config", "launch/sim-x-one.yaml"));
  const robot = loadRobotProfile(run.robotPath);
  mkdirSync(out, { recursive: true });
  const vocab = wordVocabulary(collectInstructions(task));
  writeFileSync(join(out, "vocabulary.json"), JSON.stringify({ max_length: 32, pad_id: 0, size: vocab.size, vocabulary: vocab.vocabulary }, null, 1) + "\n");
  const outcomes = new Map<number, string>();
  // Called when the next episode resets or the run ends: runTrial has reported the episode's outcome by then.
  const mn = getTaskSpec(task).tmc === "Mn";
  const write = (e: EpisodeInfo, frames: Frame[], spec: PolicySpec, demoFrames: number, answer: number | null, trace: SubtaskTrace) => {
    const T = frames.length, C = spec.cameras.length, D = frames[0]!.state.length, { width, height } = spec.imageSize;
    const stem = join(out, `${name}-${e.seed}`);
    const label = stack(frames, "label") as Float32Array;
    const H = label.length / (T * D);
    writeFileSync(`${stem}.images.npy`, npyBytes(stack(frames, "images"), [T, C, height, width, 3]));
    writeFileSync(`${stem}.state.npy`, npyBytes(stack(frames, "state"), [T, D]));
    writeFileSync(`${stem}.label.npy`, npyBytes(label, [T, H, D]));
    writeFileSync(`${stem}.action.npy`, npyBytes(Float32Array.from(frames.flatMap((f) => Array.from(f.label.subarray(0, D)))), [T, D]));
    const A = targets.kinds.length;
    const aux = new Float32Array(T * A).fill(NaN);
    frames.forEach((f, t) => aux.set(f.aux.subarray(0, A), t * A));
    writeFileSync(`${stem}.aux.npy`, npyBytes(aux, [T, A]));
    writeFileSync(`${stem}.json`, JSON.stringify({
      task: e.task, tmc: mn ? "Mn" : "M1", instruction: e.instruction, seed: e.seed, outcome: outcomes.get(e.seed) ?? "unknown", frames: T,
      demo_frames: demoFrames, cameras: spec.cameras, width, height, layout: spec.layout, control_hz: robot.profile.control_hz,
      aux_kinds: targets.kinds, aux_layout: targets.layout, answer, segments: mn ? trace.segments : [], subtask_end: mn ? trace.subtaskEnd : [],
      subtasks: mn ? trace.subtasks : [], beta,
      policy: spec.name,
    }) + "\n");
  };
  let wrapper: LabelingPolicy | null = null;
  const demoTicks: number[][] = [];
  const t0 = performance.now();
  const summary = await runTrial({
    run, robot, policyPath, outDir: join(out, `_run-${name}`), episodes, seed, task, noRecord: true,
    demonstrator: recordingDemonstrator(targets, demoTicks),
    wrapPolicy: (policy, sim) => {
      const w = new LabelingPolicy(policy, sim, {
        beta, seed, layout: getLayout(robot.profile, policy.spec.layout), targets, demoTicks,
        onEpisode: (e, frames, demoFrames, answer, trace) => write(e, frames, policy.spec, demoFrames, answer, trace),
      });
      wrapper = w;
      return w;
    },
    onEpisode: (r, i) => {
      outcomes.set(r.seed, r.outcome);
      process.stderr.write(`[collect ${name}] episode ${i + 1}/${episodes} seed ${r.seed}: ${r.outcome} in ${r.steps} steps; ${((performance.now() - t0) / 1000).toFixed(0)} s\n`);
    },
  });
  (wrapper as LabelingPolicy | null)?.flush();
  // A run that stopped (a fault: a bundle that cannot tokenize the task, a policy error) wrote no or
  // partial data: say so, and fail, rather than leave a short collection behind as if it were whole.
  if (summary.aborted) {
    throw new Error(`collect ${name}: the run stopped at episode ${summary.aborted.episode}: ${summary.aborted.reason} `
      + `(${summary.episodes}/${episodes} episodes written; events: ${join(out, `_run-${name}`, "events.jsonl")})`);
  }
  process.stdout.write(JSON.stringify({ name, beta, episodes: summary.episodes, successes: summary.successes, success_rate: summary.success_rate, checkpoint_rates: summary.checkpoint_rates }) + "\n");
}

try {
  await main();
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exit(1);
}
