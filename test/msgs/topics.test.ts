/**
 * Typed topic contracts (src/msgs/): each topic's name, type and QoS as its publishers and
 * subscribers used them before the contracts, the exact bytes each encoder writes, round trips,
 * and decoders that reject a bad message naming the topic and the field.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { RELIABLE_QOS, type Qos } from "../../src/bus/types.js";
import { encode } from "../../src/msgs/codec.js";
import { ENGRAM_EVENTS, eventLine } from "../../src/msgs/events.js";
import { SIM_RESET, SIM_RESET_DONE } from "../../src/msgs/simReset.js";
import {
  SIM_CHECKPOINTS, SIM_EPISODE, SIM_LOG, SIM_SUBTASK, SIM_SUBTASK_END, episodeInstruction, type SimEpisodeMsg,
} from "../../src/msgs/simTopics.js";
import { LATCHED_QOS, RELIABLE, type TopicContract } from "../../src/msgs/topicContract.js";

const latched = (depth: number): Qos => ({ ...RELIABLE_QOS, durability: "transient_local", depth });
const json = (value: unknown) => encode("std_msgs/msg/String", { data: JSON.stringify(value) });

test("msgs' reliable QoS is the bus's", () => {
  assert.deepEqual(RELIABLE, RELIABLE_QOS);
  assert.deepEqual(LATCHED_QOS, latched(1));
});

// topic, type, QoS: what SimNode, EventLog and SimJudge published with before the contracts
const TABLE: Array<[Pick<TopicContract<unknown>, "topic" | "type" | "qos">, string, string, Qos]> = [
  [SIM_SUBTASK_END, "/sim/subtask_end", "std_msgs/msg/Bool", RELIABLE_QOS],
  [SIM_SUBTASK, "/sim/subtask", "std_msgs/msg/String", latched(1)],
  [SIM_CHECKPOINTS, "/sim/checkpoints", "std_msgs/msg/String", latched(20)],
  [SIM_EPISODE, "/sim/episode", "std_msgs/msg/String", latched(1)],
  [SIM_LOG, "/sim/log", "std_msgs/msg/String", { ...RELIABLE_QOS, depth: 50 }],
  [SIM_RESET, "/sim/reset", "std_msgs/msg/String", latched(1)],
  [SIM_RESET_DONE, "/sim/reset_done", "std_msgs/msg/String", latched(1)],
  [ENGRAM_EVENTS, "/engram/events", "std_msgs/msg/String", { ...RELIABLE_QOS, depth: 100 }],
];
for (const [c, topic, type, qos] of TABLE) {
  test(`${topic}: ${type}, ${qos.durability} depth ${qos.depth}`, () => {
    assert.deepEqual([c.topic, c.type, c.qos], [topic, type, qos]);
  });
}

const START: SimEpisodeMsg = {
  done: false, task: "press-button", seed: 4, instruction: "Press.",
  subtasks: ["press the left button", "press the confirm button"],
};
const END: SimEpisodeMsg = {
  done: true, task: "press-button", seed: 4, success: true, steps: 312,
  checkpoints: [{ id: "left-count-reached", label: "storage", step: 40 }],
  subtask_ends: [{ text: "press the left button", step: 60 }],
};

test("encoders write the bytes the twin and the event log wrote before", () => {
  assert.deepEqual(SIM_SUBTASK_END.encode(true), encode("std_msgs/msg/Bool", { data: true }));
  assert.deepEqual(SIM_SUBTASK.encode("press the button"), encode("std_msgs/msg/String", { data: "press the button" }));
  assert.deepEqual(SIM_LOG.encode("refused"), encode("std_msgs/msg/String", { data: "refused" }));
  // SimNode: { task, seed, ...checkpointReached }, and the episode's key order at reset and at the end
  const reached = { id: "left-count-reached", label: "storage" as const, step: 40 };
  const scene = { task: "press-button", seed: 4 };
  assert.deepEqual(SIM_CHECKPOINTS.encode({ ...scene, ...reached }), json({ ...scene, ...reached }));
  const start = json({ ...scene, instruction: "Press.", subtasks: START.subtasks, done: false });
  assert.deepEqual(SIM_EPISODE.encode(START), start);
  assert.deepEqual(SIM_EPISODE.encode(END), json({
    ...scene, success: true, steps: 312, checkpoints: END.checkpoints, subtask_ends: END.subtask_ends, done: true,
  }));
  const event = { event: "planner_call", stamp_ns: 5n, latency_ms: 12.5, answer: "press the button" };
  const line = '{"event":"planner_call","stamp_ns":"5","latency_ms":12.5,"answer":"press the button"}';
  assert.equal(eventLine(event), line);
  assert.deepEqual(ENGRAM_EVENTS.encode(event), encode("std_msgs/msg/String", { data: eventLine(event) }));
});

test("decoders give back what was encoded", () => {
  assert.equal(SIM_SUBTASK_END.decode(SIM_SUBTASK_END.encode(false)), false);
  assert.equal(SIM_SUBTASK.decode(SIM_SUBTASK.encode("swap the blocks")), "swap the blocks");
  const c = { task: "swap-t", seed: 9, id: "both-lifted", label: "storage" as const, step: 3 };
  assert.deepEqual(SIM_CHECKPOINTS.decode(SIM_CHECKPOINTS.encode(c)), c);
  assert.deepEqual(SIM_EPISODE.decode(SIM_EPISODE.encode(START)), START);
  assert.deepEqual(SIM_EPISODE.decode(SIM_EPISODE.encode(END)), END);
  assert.equal(episodeInstruction(START), "Press.");
  assert.equal(episodeInstruction(END), null);
  const event = { event: "episode_end", steps: 4 };
  assert.deepEqual(ENGRAM_EVENTS.decode(ENGRAM_EVENTS.encode(event)), event);
});

// a bad message, and the error naming its topic and field
const BAD: Array<[TopicContract<unknown>, Uint8Array, RegExp]> = [
  [SIM_CHECKPOINTS, encode("std_msgs/msg/String", { data: "{not json" }), /^\/sim\/checkpoints: not JSON/],
  [SIM_CHECKPOINTS, json([1, 2]), /^\/sim\/checkpoints: expected a JSON object/],
  [SIM_CHECKPOINTS, json({ task: "swap-t", seed: 1, id: "x", label: "memory", step: 2 }),
    /^\/sim\/checkpoints: field "label" is "memory", expected storage \| update \| compression$/],
  [SIM_CHECKPOINTS, json({ task: "swap-t", seed: 1, id: "x", label: "update" }),
    /field "step" is missing, expected an integer >= 0/],
  [SIM_EPISODE, json({ task: "swap-t", seed: 1 }), /^\/sim\/episode: field "done" is missing, expected true or false$/],
  [SIM_EPISODE, json({ task: "swap-t", seed: 1, done: false, instruction: "Swap.", subtasks: ["a", 2] }),
    /^\/sim\/episode: field "subtasks" is \["a",2\], expected an array of strings$/],
  [SIM_EPISODE, json({ task: "swap-t", seed: 1, done: true, success: "yes" }),
    /^\/sim\/episode: field "success" is "yes"/],
  [SIM_EPISODE, json({ ...END, checkpoints: [{ id: "a", label: "storage", step: -1 }] }),
    /^\/sim\/episode checkpoints\[0\]: field "step" is -1, expected an integer >= 0$/],
  [SIM_EPISODE, json({ ...END, subtask_ends: ["press"] }),
    /^\/sim\/episode subtask_ends\[0\]: expected an object, got "press"$/],
  [ENGRAM_EVENTS, json({ step: 3 }), /^\/engram\/events: field "event" is missing, expected a non-empty event name$/],
];
for (const [c, cdr, error] of BAD) {
  test(`${c.topic} rejects ${error.source.slice(0, 60)}`, () => {
    assert.throws(() => c.decode(cdr), (err: Error) => error.test(err.message) || assert.fail(err.message));
  });
}
