/**
 * Orchestration (DESIGN §2): wires the sim twin, a bus, recorders and files into a whole run. With
 * cli/ the only layer that may import sim/; nothing but cli/ and app/ imports it.
 */
export {
  recordEpisodes, type RecordOptions, type RecordProgress, type RecordResult, type TeleopSourceKind,
} from "./recordSession.js";
export { replayEpisode, type ReplayOptions, type ReplayReport } from "./replayCommands.js";
