/** ROS 2 messages: TS record types, bundled schemas and the CDR codec. */
export * from "./types.js";
export { EVENTS_QOS, EVENTS_TOPIC, RELIABLE_QOS, SENSOR_QOS, SIM_SENSOR_QOS, type Qos } from "./qos.js";
export { KNOWN_TYPES, isKnownType, schemaTextFor, splitTypeName, dependenciesOf } from "./schemas.js";
export { type Codec, codecFor, codecFromSchema, encode, decode } from "./codec.js";
export { noisyImage, sampleHeader, sampleImage, sampleJointState, sampleOfEveryType } from "./samples.js";
export {
  SIM_RESET, SIM_RESET_DONE, SIM_RESET_QOS, type SimResetReply, type SimResetRequest, type TopicContract,
} from "./simReset.js";
