/**
 * The sim twin's ground truth on the bus: what the twin publishes each control step for trials
 * that score against it (checkpoints, subtask ends), the oracle ablations (the current subtask)
 * and judges (the episode's verdict), and its log. Privileged: a policy never reads these; the
 * runtime reads them only for scoring, the oracle ablations and the twin-as-judge.
 */
import { codecFor } from "./codec.js";
import { LATCHED_QOS, RELIABLE, encodeJson, field, is, parseObject, type TopicContract } from "./topicContract.js";

/** MEMOBench checkpoint labels, as they travel on the bus and in episodes.jsonl. */
export const CHECKPOINT_LABELS = ["storage", "update", "compression"] as const;
/** One checkpoint label. */
export type CheckpointLabel = (typeof CHECKPOINT_LABELS)[number];

/** A checkpoint reached: its id and label, and the twin's control step it was first reached at. */
export interface CheckpointReachedMsg { id: string; label: CheckpointLabel; step: number }
/** A subtask finished: its text and the twin's control step it ended at. */
export interface SubtaskEndMsg { text: string; step: number }

/** `/sim/checkpoints`: one message per checkpoint reached, with the episode's task and seed. */
export interface SimCheckpointMsg extends CheckpointReachedMsg { task: string; seed: number }

/** `/sim/episode` at a scene's start: the texts the twin's scene gives. */
export interface SimEpisodeStart { done: false; task: string; seed: number; instruction: string; subtasks: string[] }
/** `/sim/episode` at an episode's end: the twin's verdict and ground truth. */
export interface SimEpisodeEnd {
  done: true; task: string; seed: number; success: boolean; steps: number;
  checkpoints: CheckpointReachedMsg[]; subtask_ends: SubtaskEndMsg[];
}
/** One `/sim/episode` message, tagged by `done`. */
export type SimEpisodeMsg = SimEpisodeStart | SimEpisodeEnd;

const bools = codecFor("std_msgs/msg/Bool");
const strings = codecFor("std_msgs/msg/String");
const isLabel = (v: unknown): v is CheckpointLabel => CHECKPOINT_LABELS.includes(v as CheckpointLabel);
const LABELS = CHECKPOINT_LABELS.join(" | ");

function reached(topic: string, o: Record<string, unknown>): CheckpointReachedMsg {
  return {
    id: field(topic, o, "id", is.id, "a checkpoint id"),
    label: field(topic, o, "label", isLabel, LABELS),
    step: field(topic, o, "step", is.count, "an integer >= 0"),
  };
}

/** The elements of array field `name`, each an object read by `read`; errors name the element's index. */
function objects<T>(
  topic: string, o: Record<string, unknown>, name: string, read: (at: string, e: Record<string, unknown>) => T,
): T[] {
  return field(topic, o, name, is.array, "an array").map((e, i) => {
    const at = `${topic} ${name}[${i}]`;
    if (!is.object(e)) throw new Error(`${at}: expected an object, got ${JSON.stringify(e)}`);
    return read(at, e);
  });
}

/** `/sim/subtask_end` (std_msgs/msg/Bool): true on the control step a subtask ended, false on every other. */
export const SIM_SUBTASK_END: TopicContract<boolean> = {
  topic: "/sim/subtask_end",
  type: "std_msgs/msg/Bool",
  qos: RELIABLE,
  encode: (ended) => bools.encode({ data: ended }),
  decode: (cdr) => bools.decode(cdr).data,
};

/** `/sim/subtask` (std_msgs/msg/String, latched): the subtask in progress, on each change. */
export const SIM_SUBTASK: TopicContract<string> = {
  topic: "/sim/subtask",
  type: "std_msgs/msg/String",
  qos: LATCHED_QOS,
  encode: (text) => strings.encode({ data: text }),
  decode: (cdr) => strings.decode(cdr).data,
};

/** `/sim/checkpoints` (JSON, latched, the last 20): each checkpoint the first step it is reached. */
export const SIM_CHECKPOINTS: TopicContract<SimCheckpointMsg> = {
  topic: "/sim/checkpoints",
  type: "std_msgs/msg/String",
  qos: { ...LATCHED_QOS, depth: 20 },
  encode: (c) => encodeJson({ task: c.task, seed: c.seed, id: c.id, label: c.label, step: c.step }),
  decode(cdr) {
    const t = "/sim/checkpoints", o = parseObject(t, cdr);
    return {
      task: field(t, o, "task", is.id, "a task id"), seed: field(t, o, "seed", is.int, "an integer"), ...reached(t, o),
    };
  },
};

/** `/sim/episode` (JSON, latched): the scene's texts at reset, the verdict and ground truth at the end. */
export const SIM_EPISODE: TopicContract<SimEpisodeMsg> = {
  topic: "/sim/episode",
  type: "std_msgs/msg/String",
  qos: LATCHED_QOS,
  encode(m) {
    if (!m.done) {
      return encodeJson({ task: m.task, seed: m.seed, instruction: m.instruction, subtasks: m.subtasks, done: false });
    }
    return encodeJson({
      task: m.task, seed: m.seed, success: m.success, steps: m.steps,
      checkpoints: m.checkpoints.map((c) => ({ id: c.id, label: c.label, step: c.step })),
      subtask_ends: m.subtask_ends.map((e) => ({ text: e.text, step: e.step })), done: true,
    });
  },
  decode(cdr) {
    const t = "/sim/episode", o = parseObject(t, cdr);
    const task = field(t, o, "task", is.id, "a task id"), seed = field(t, o, "seed", is.int, "an integer");
    if (!field(t, o, "done", is.bool, "true or false")) {
      const instruction = field(t, o, "instruction", is.string, "a string");
      const subtasks = field(t, o, "subtasks", is.strings, "an array of strings");
      return { done: false, task, seed, instruction, subtasks };
    }
    return {
      done: true, task, seed,
      success: field(t, o, "success", is.bool, "true or false"),
      steps: field(t, o, "steps", is.count, "an integer >= 0"),
      checkpoints: objects(t, o, "checkpoints", reached),
      subtask_ends: objects(t, o, "subtask_ends", (at, e) => ({
        text: field(at, e, "text", is.string, "a string"), step: field(at, e, "step", is.count, "an integer >= 0"),
      })),
    };
  },
};

/** The instruction a scene-start `/sim/episode` message carries; null for an episode-end one. */
export function episodeInstruction(m: SimEpisodeMsg): string | null {
  return m.done ? null : m.instruction;
}

/** `/sim/log` (std_msgs/msg/String, the last 50): the twin's notices (commands refused, resets). */
export const SIM_LOG: TopicContract<string> = {
  topic: "/sim/log",
  type: "std_msgs/msg/String",
  qos: { ...RELIABLE, depth: 50 },
  encode: (line) => strings.encode({ data: line }),
  decode: (cdr) => strings.decode(cdr).data,
};
