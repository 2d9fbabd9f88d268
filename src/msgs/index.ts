/** ROS 2 messages: TS record types, bundled schemas and the CDR codec. */
export * from "./types.js";
export { RELIABLE_QOS, SENSOR_QOS, SIM_SENSOR_QOS, type Qos } from "./qos.js";
export { KNOWN_TYPES, isKnownType, schemaTextFor, splitTypeName, dependenciesOf } from "./schemas.js";
export { type Codec, codecFor, codecFromSchema, encode, decode } from "./codec.js";
export { noisyImage, sampleHeader, sampleImage, sampleJointState, sampleOfEveryType } from "./samples.js";
export {
  SIM_RESET, SIM_RESET_DONE, SIM_RESET_QOS, type SimResetReply, type SimResetRequest,
} from "./simReset.js";
export { LATCHED_QOS, type TopicContract } from "./topicContract.js";
export {
  CHECKPOINT_LABELS, episodeInstruction, SIM_CHECKPOINTS, SIM_EPISODE, SIM_LOG, SIM_SUBTASK, SIM_SUBTASK_END,
  type CheckpointLabel, type CheckpointReachedMsg, type SimCheckpointMsg, type SimEpisodeEnd, type SimEpisodeMsg,
  type SimEpisodeStart, type SubtaskEndMsg,
} from "./simTopics.js";
export { ENGRAM_EVENTS, eventLine, type EngramEvent } from "./events.js";
