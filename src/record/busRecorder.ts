import type { Bus, Qos } from "../bus/types.js";
import type { RosType } from "../msgs/types.js";
import { McapRecorder, type RecorderOptions, type RecorderSummary } from "./mcapRecorder.js";

/** A topic to record with the QoS its publisher offers (written to the channel's offered_qos_profiles). */
export interface RecordedTopicSpec { topic: string; type: RosType; qos: Qos }

/**
 * Records bus topics into one ros2-profile MCAP, like `ros2 bag record`: every message with its
 * receive time as logTime; each channel's metadata carries the publisher's offered QoS. The
 * recorder subscribes best-effort (compatible with every publisher) and keep-all, so unlike a
 * control loop it never drops a message it was delivered.
 */
export class BusRecorder {
  private readonly unsubscribes: Array<() => void> = [];
  private constructor(readonly recorder: McapRecorder) {}

  static async start(bus: Bus, path: string, topics: readonly RecordedTopicSpec[], options: RecorderOptions = {}): Promise<BusRecorder> {
    const recorder = await McapRecorder.open(path, options);
    const self = new BusRecorder(recorder);
    for (const t of topics) {
      await recorder.addTopic(t.topic, t.type, t.qos);
      const qos: Qos = { reliability: "best_effort", durability: "volatile", history: "keep_all", depth: t.qos.depth };
      self.unsubscribes.push(bus.subscribe(t.topic, t.type, qos, (cdr, receivedNs) => {
        void recorder.write(t.topic, cdr, receivedNs);
      }));
    }
    return self;
  }

  /** Messages accepted so far. */
  get messageCount(): number {
    return this.recorder.messageCount;
  }

  /** Unsubscribes and finalizes the file (summary + index). */
  async stop(): Promise<RecorderSummary> {
    for (const u of this.unsubscribes.splice(0)) u();
    return this.recorder.close();
  }
}
