/**
 * `engram replay --through-policy`: feeds a recorded episode's observations through a policy
 * offline, tick by tick at the recorded control rate (latest camera frames + joint state at each
 * tick's time, the loop's preprocessing: observe/preprocess.ts frameToTensor + robot/layout.ts
 * toPolicyVector), and writes what the policy did to `<name>.policy.mcap` beside the episode:
 * - /engram/policy/chunk (trajectory_msgs/JointTrajectory: each chunk act() returned, robot units),
 * - /engram/policy/logit (std_msgs/Float32: the classifier logit of every tick),
 * - /engram/policy/subtask_end (std_msgs/String JSON {step, logit}: each declared subtask end).
 * Then compares the declared ends with the annotated ones (matchSubtaskEnds, trial/summary.ts).
 * M(n) tasks get their subtask instructions from the annotations in order (a scripted planner).
 */
import { basename, dirname, join } from "node:path";
import { RELIABLE_QOS } from "../bus/types.js";
import { ActionScheduler } from "../control/index.js";
import type { LoadedRunConfig } from "../config/loaders.js";
import { decode, encode } from "../msgs/codec.js";
import { SIM_EPISODE, episodeInstruction } from "../msgs/simTopics.js";
import { timeFromNs, type CompressedImage, type Image } from "../msgs/types.js";
import { frameToTensor, type CameraFrame, type ImageSpec } from "../observe/preprocess.js";
import { loadMem0Policy } from "../policy/mem0/Mem0Policy.js";
import { getLayout, layoutDim, toPolicyVector } from "../robot/layout.js";
import type { LoadedRobot } from "../robot/loadRobotProfile.js";
import { getTaskSpec } from "../task/index.js";
import { matchSubtaskEnds } from "../trial/summary.js";
import { McapRecorder } from "./mcapRecorder.js";
import { recordedCameraTopic } from "./cameraRecording.js";
import { McapSource } from "./mcapReader.js";
import { prefixWarning } from "./replayEpisode.js";
import { identityOf, readMcapMetadata, ANNOTATIONS_TOPIC, type EpisodeAnnotation } from "./episodeWriter.js";
import { complexityOf } from "../policy/planner/gating.js";

/** Options of `replayThroughPolicy`. */
export interface ThroughPolicyOptions {
  run: LoadedRunConfig;
  robot: LoadedRobot;
  path: string;
  bundle: string;
  /** A declared end within this many steps of an annotated end counts as a hit (default 10, as trial summaries). */
  toleranceSteps?: number;
}

/** What the offline pass found. */
export interface ThroughPolicyReport {
  file: string;
  out: string;
  policy: string;
  steps: number;
  /** Ticks without a joint state or a frame of every policy camera yet (not observed). */
  skipped: number;
  chunks: number;
  declared_ends: number[];
  annotated_ends: number[];
  precision: number | null;
  recall: number | null;
  mean_offset_steps: number | null;
  /** Set when the file has no usable index: only its recorded prefix went through the policy. */
  warning: string | null;
}

/** Runs the offline pass; throws naming the file when it has no identity or no frames of a policy camera. */
export async function replayThroughPolicy(o: ThroughPolicyOptions): Promise<ThroughPolicyReport> {
  const profile = o.robot.profile;
  const id = identityOf(await readMcapMetadata(o.path));
  if (!id) throw new Error(`${o.path}: no engram_episode metadata: not an episode recorded by engram record`);
  const policy = await loadMem0Policy(o.bundle, { robot: profile });
  const out = join(dirname(o.path), `${basename(o.path, ".mcap")}.policy.mcap`);
  const recorder = await McapRecorder.open(out);
  const source = await McapSource.open(o.path);
  try {
    const spec = policy.spec;
    const layout = getLayout(profile, spec.layout);
    const norm = spec.pixelNormalization ?? { mean: [0, 0, 0], std: [1, 1, 1] };
    const imageSpec: ImageSpec = { width: spec.imageSize.width, height: spec.imageSize.height, mean: norm.mean as ImageSpec["mean"], std: norm.std as ImageSpec["std"] };
    const cameras = spec.cameras.map((name) => {
      const cam = profile.cameras.find((c) => c.name === name);
      if (!cam) throw new Error(`policy camera "${name}" is not in robot ${profile.name} (cameras: ${profile.cameras.map((c) => c.name).join(", ")})`);
      return cam;
    });
    const recorded = new Set((await source.topics()).map((t) => t.topic));
    // A camera recorded with --image-format jpeg is on its /compressed topic.
    const cameraTopics = new Map(cameras.map((cam) => {
      const topic = recordedCameraTopic(cam, recorded);
      if (!topic) throw new Error(`${o.path}: policy camera "${cam.name}" (${cam.topic}) was not recorded (record without --no-cameras)`);
      return [cam.name, topic] as const;
    }));
    await recorder.addTopic("/engram/policy/chunk", "trajectory_msgs/msg/JointTrajectory", RELIABLE_QOS);
    await recorder.addTopic("/engram/policy/logit", "std_msgs/msg/Float32", RELIABLE_QOS);
    await recorder.addTopic("/engram/policy/subtask_end", "std_msgs/msg/String", RELIABLE_QOS);

    const task = getTaskSpec(id.task);
    const periodNs = BigInt(Math.round(1e9 / id.control_hz));
    const start = BigInt(id.start_ns);
    const latest = new Map<string, { type: string; cdr: Uint8Array }>();
    // All segments up front: M(n) instructions follow them in order from step 0.
    const annotations: EpisodeAnnotation[] = [];
    for await (const m of source.messages({ topics: [ANNOTATIONS_TOPIC] })) annotations.push(JSON.parse(decode("std_msgs/msg/String", m.cdr).data) as EpisodeAnnotation);
    let instruction = "";
    const messages = source.messages();
    let pending = await messages.next();
    const take = (m: { topic: string; type: string; cdr: Uint8Array }) => {
      if (m.topic === ANNOTATIONS_TOPIC) return;
      if (m.topic === SIM_EPISODE.topic && !instruction) {
        instruction = episodeInstruction(SIM_EPISODE.decode(m.cdr)) ?? "";
      } else {
        latest.set(m.topic, { type: m.type, cdr: m.cdr });
      }
    };
    /** Takes every message logged up to `ns` (inclusive). */
    const advance = async (ns: bigint) => {
      while (!pending.done && pending.value.logTimeNs <= ns) { take(pending.value); pending = await messages.next(); }
    };

    await advance(start);
    await policy.reset({ task: task.id, episode: id.episode, seed: id.seed, instruction, complexity: complexityOf(task.tmc) });
    const scheduler = new ActionScheduler({ dim: layoutDim(layout), executeSteps: o.run.config.control.execute_steps ?? undefined });
    const declared: number[] = [];
    let chunks = 0, skipped = 0, subtask = 0, steps = 0, started = false;
    for (let k = 0; !pending.done; k++) {
      const tickNs = start + BigInt(k + 1) * periodNs;
      await advance(tickNs);
      steps = k + 1;
      const js = latest.get(profile.joint_state.topic);
      if (!js || cameras.some((c) => !latest.has(cameraTopics.get(c.name)!))) { skipped++; continue; }
      if (!started) {
        started = true;
        policy.setInstruction(task.tmc === "M1" ? instruction : (annotations[0]?.text ?? instruction));
      }
      const msg = decode("sensor_msgs/msg/JointState", js.cdr);
      const state = toPolicyVector(layout, msg.name, msg.position);
      const images: Record<string, Float32Array> = {};
      for (const cam of cameras) images[cam.name] = await frameToTensor(frameOf(latest.get(cameraTopics.get(cam.name)!)!), imageSpec, cam.topic);
      const obs = await policy.observe({ stampNs: tickNs, images, state });
      await recorder.write("/engram/policy/logit", encode("std_msgs/msg/Float32", { data: obs.logit }), tickNs);
      if (obs.subtaskEnded) {
        declared.push(k);
        scheduler.clear();
        await recorder.write("/engram/policy/subtask_end", encode("std_msgs/msg/String", { data: JSON.stringify({ step: k, logit: obs.logit }) }), tickNs);
        if (task.tmc !== "M1") policy.setInstruction(annotations[++subtask]?.text ?? instruction);
      }
      if (scheduler.needsChunk()) {
        const chunk = await policy.act();
        scheduler.accept(chunk);
        chunks++;
        const points = Array.from({ length: chunk.horizon }, (_, h) => ({
          positions: chunk.actions.slice(h * chunk.dim, (h + 1) * chunk.dim), velocities: [], accelerations: [], effort: [],
          time_from_start: timeFromNs(BigInt(h + 1) * periodNs),
        }));
        await recorder.write("/engram/policy/chunk", encode("trajectory_msgs/msg/JointTrajectory", { header: { stamp: timeFromNs(tickNs), frame_id: "" }, joint_names: chunk.jointNames, points }), tickNs);
      }
      scheduler.next();
    }
    const truth = annotations.map((a) => a.end_step);
    const m = matchSubtaskEnds(declared, truth, o.toleranceSteps ?? 10);
    const r3 = (x: number) => Math.round(x * 1000) / 1000;
    return {
      file: o.path, out, policy: spec.name, steps, skipped, chunks, declared_ends: declared, annotated_ends: truth,
      precision: declared.length > 0 ? r3(m.tp / declared.length) : null,
      recall: truth.length > 0 ? r3(m.tp / truth.length) : null,
      mean_offset_steps: m.offsets.length > 0 ? r3(m.offsets.reduce((a, b) => a + b, 0) / m.offsets.length) : null,
      warning: prefixWarning(o.path, source.fallbackReason, BigInt(steps) * periodNs),
    };
  } finally {
    await source.close();
    await recorder.close();
    await policy.close?.();
  }
}

function frameOf(m: { type: string; cdr: Uint8Array }): CameraFrame {
  return m.type === "sensor_msgs/msg/CompressedImage"
    ? { kind: "compressed", msg: decode("sensor_msgs/msg/CompressedImage", m.cdr) as CompressedImage }
    : { kind: "raw", msg: decode("sensor_msgs/msg/Image", m.cdr) as Image };
}
