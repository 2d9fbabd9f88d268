/**
 * The bus layer's public surface: the Bus contract, the three buses, clocks, and the RxJS helpers.
 * `createBus` builds the bus a run config names; ros2 and replay are loaded lazily so a local run
 * never touches rclnodejs or the MCAP reader.
 */
import { isAbsolute, resolve } from "node:path";
import { LocalBus, type LocalBusOptions } from "./local.js";
import type { Bus, Clock } from "./types.js";

export type { Bus, Clock, Qos } from "./types.js";
export { RELIABLE_QOS, SENSOR_QOS } from "./types.js";
export { SimClock, TopicClock, WallClock } from "./clock.js";
export { LocalBus, type LocalBusOptions, type SubscriberStats } from "./local.js";
export type { DeliveryCounts, OnCallbackError, OnMessage } from "./deliveryQueue.js";
export type { Ros2BusOptions } from "./ros2.js";
export type { ReplayOptions } from "./replay.js";
export { describeDecodeFailure, publisher, topic$, type DecodeFailure, type MessageCodec, type Received, type TopicOptions } from "./rx.js";

/**
 * The `bus:` section of a run config (src/config/schemas/runConfig.ts), field names as in YAML.
 * - local: in-process (sim twin and runtime in one process).
 * - ros2: live ROS 2 via rclnodejs; `use_sim_time: true` forces /clock time, otherwise the node's
 *   `use_sim_time` parameter (from `--ros-args`) decides.
 * - replay: an MCAP recording; `file` relative to `root`; `as_fast_as_possible` wins over `rate`.
 */
export type BusConfig =
  | { kind: "local" }
  | { kind: "ros2"; node_name?: string; domain_id?: number; use_sim_time?: boolean }
  | { kind: "replay"; file: string; rate?: number; as_fast_as_possible?: boolean };

/** Process-side choices that are not config. */
export interface CreateBusOptions {
  /** local: the clock (a SimClock in lock-step mode; default WallClock). */
  clock?: Clock;
  /** replay: folder that `file` is relative to (default process.cwd()). */
  root?: string;
  /** Errors thrown by subscriber callbacks (each bus's default: rethrown asynchronously, naming the topic). */
  onCallbackError?: LocalBusOptions["onCallbackError"];
}

/**
 * Builds the bus a run config names. Rejects with the bus's own clear error when it cannot be
 * built (ros2 without a sourced ROS 2, a missing or non-MCAP replay file).
 */
export async function createBus(config: BusConfig, options: CreateBusOptions = {}): Promise<Bus> {
  switch (config.kind) {
    case "local":
      return new LocalBus({ clock: options.clock, onCallbackError: options.onCallbackError });
    case "ros2": {
      const { Ros2Bus } = await import("./ros2.js");
      return Ros2Bus.create({
        nodeName: config.node_name,
        domainId: config.domain_id,
        useSimTime: config.use_sim_time === true ? true : undefined,
        onCallbackError: options.onCallbackError,
      });
    }
    case "replay": {
      const { ReplayBus } = await import("./replay.js");
      const file = isAbsolute(config.file) ? config.file : resolve(options.root ?? process.cwd(), config.file);
      const rate = config.as_fast_as_possible === true ? Infinity : (config.rate ?? 1);
      return ReplayBus.open(file, { rate, onCallbackError: options.onCallbackError });
    }
    default: {
      const unknown: never = config;
      throw new Error(`bus.kind ${JSON.stringify((unknown as { kind: unknown }).kind)} is unknown; expected "local", "ros2" or "replay"`);
    }
  }
}
