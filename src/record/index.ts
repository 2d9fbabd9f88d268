/** Recording: MCAP recorder, reader (indexed + streaming fallback), recovery and summaries. */
export { McapFileWriter } from "./mcapWriter.js";
export { McapRecorder, type RecorderOptions, type TopicOptions, type RecorderSummary } from "./mcapRecorder.js";
export {
  McapSource, decompressHandlers,
  type RecordedMessage, type RecordedTopic, type ReadMode, type MessageFilter, type StreamScan,
} from "../bus/mcapReader.js";
export { recoverMcap, defaultRecoveredPath, type RecoverResult } from "./mcapRecover.js";
export { summarizeMcap, mcapFilesOf, type McapSummary, type TopicSummary } from "./mcapInspect.js";
export { offeredQosYaml, qosFromOfferedYaml } from "./mcapQos.js";
export { syntheticMessages, syntheticSchedule, syntheticTopics, writeSyntheticRecording, type SyntheticSpec, type SyntheticMessage, type SyntheticEvent, type SyntheticResult } from "./mcapSynthetic.js";
