/**
 * The live ROS 2 Bus over rclnodejs (loaded lazily by createBus): raw CDR subscriptions and
 * publishers, QoS mapped both ways, the offered QoS and publishers of a topic, and /clock time.
 * NOTE: over 300 lines: every rclnodejs call goes through this one adapter (its callbacks only
 * enqueue bytes; DESIGN §6), so the structural types it relies on are checked in one place.
 */
import { codecFor } from "../msgs/codec.js";
import { nsFromTime, type RosType } from "../msgs/types.js";
import { TopicClock, WallClock } from "./clock.js";
import { assertSameType, validateQos, validateTopicName } from "./checks.js";
import { DeliveryQueue, rethrowAsync, type DeliveryCounts, type OnCallbackError, type OnMessage } from "./deliveryQueue.js";
import type {
  RclContext, RclNode, RclPublisher, RclQos, RclQosClass, RclReportedQos, RclSubscription, Rclnodejs,
} from "./rclnodejs.js";
import type { Bus, Clock, Qos } from "./types.js";

/** Options of `Ros2Bus.create`. */
export interface Ros2BusOptions {
  /** ROS node name (default "engram"). */
  nodeName?: string;
  /** ROS namespace (default ""). */
  namespace?: string;
  /** ROS domain id; when set the bus uses its own context on that domain (default: ROS_DOMAIN_ID / 0). */
  domainId?: number;
  /**
   * Take time from `/clock` (rosgraph_msgs/msg/Clock). Default: the node's `use_sim_time`
   * parameter, which `ros2 launch` sets through `--ros-args -p use_sim_time:=true`.
   */
  useSimTime?: boolean;
  /** Environment to check for a sourced ROS 2 (default process.env). */
  env?: NodeJS.ProcessEnv;
  /**
   * Loads the rclnodejs module. Default: `loadRclnodejs(env)`, the real package. Tests inject a
   * fake with rclnodejs's API shape here (test/fakes/rclnodejs.ts), because ROS 2 cannot run here.
   */
  loadRclnodejs?: () => Promise<Rclnodejs>;
  /** Receives errors thrown by subscriber callbacks (default: rethrown asynchronously, naming the topic). */
  onCallbackError?: OnCallbackError;
}

/**
 * Loads the real rclnodejs with a dynamic import, only when ROS 2 is sourced (ROS_DISTRO and
 * AMENT_PREFIX_PATH set). Rejects with a message saying what is missing and how to fix it, or
 * why the import failed. `importModule` is the import itself (a test hook).
 * NOTE: without a sourced ROS 2, importing rclnodejs makes it try `npm run rebuild` (node-gyp),
 * which is slow and fails; the environment check keeps that from ever happening here.
 */
export async function loadRclnodejs(
  env: NodeJS.ProcessEnv = process.env,
  importModule: (specifier: string) => Promise<unknown> = (specifier) => import(specifier),
): Promise<Rclnodejs> {
  const missing = ["ROS_DISTRO", "AMENT_PREFIX_PATH"].filter((k) => !env[k]);
  if (missing.length > 0) {
    throw new Error(
      `ros2 bus requested but ROS 2 is not available: ${missing.join("/")} not set (source /opt/ros/<distro>/setup.bash)`,
    );
  }
  const specifier = "rclnodejs";
  let mod: { default?: Rclnodejs } & Partial<Rclnodejs>;
  try {
    mod = (await importModule(specifier)) as typeof mod;
  } catch (err) {
    throw new Error(
      `ros2 bus requested but rclnodejs could not be loaded (ROS_DISTRO=${env.ROS_DISTRO}): ${(err as Error).message}. ` +
        `It is an optionalDependency: install it with ROS 2 sourced so its native addon builds against your distro.`,
      { cause: err },
    );
  }
  return (mod.default ?? mod) as Rclnodejs;
}

/** Maps our QoS to an rclnodejs `QoS` (rmw enums). keep_all keeps `depth` as rmw ignores it. */
export function toRclQos(QoS: RclQosClass, qos: Qos): RclQos {
  const history =
    qos.history === "keep_all" ? QoS.HistoryPolicy.RMW_QOS_POLICY_HISTORY_KEEP_ALL : QoS.HistoryPolicy.RMW_QOS_POLICY_HISTORY_KEEP_LAST;
  const reliability =
    qos.reliability === "best_effort"
      ? QoS.ReliabilityPolicy.RMW_QOS_POLICY_RELIABILITY_BEST_EFFORT
      : QoS.ReliabilityPolicy.RMW_QOS_POLICY_RELIABILITY_RELIABLE;
  const durability =
    qos.durability === "transient_local"
      ? QoS.DurabilityPolicy.RMW_QOS_POLICY_DURABILITY_TRANSIENT_LOCAL
      : QoS.DurabilityPolicy.RMW_QOS_POLICY_DURABILITY_VOLATILE;
  return new QoS(history, qos.depth, reliability, durability);
}

/**
 * A reported rmw profile as our Qos (rmw enums: history 2 keep_all, reliability 2 best_effort,
 * durability 1 transient_local). Depth 0 (not reported, as Fast DDS does for remote endpoints) stays 0.
 */
function fromReportedQos(q: RclReportedQos): Qos {
  return {
    history: q.history === 2 ? "keep_all" : "keep_last",
    depth: q.depth,
    reliability: q.reliability === 2 ? "best_effort" : "reliable",
    durability: q.durability === 1 ? "transient_local" : "volatile",
  };
}

/** QoS of the `/clock` subscription, as rclcpp's ClockQoS: best effort, keep last 1. */
export const CLOCK_QOS: Qos = { reliability: "best_effort", durability: "volatile", history: "keep_last", depth: 1 };

/** Marks "the default context" (rclnodejs functions take `undefined` for it). */
const DEFAULT_CONTEXT: RclContext = Object.freeze({});

interface TopicUse {
  type: RosType;
  users: number;
}

/**
 * The Bus over ROS 2 through rclnodejs: raw CDR subscriptions (`isRaw: true`) and Buffer publish,
 * so bytes pass untouched between DDS and our codec. rclnodejs runs callbacks on the main thread;
 * ours only push the bytes onto a per-subscriber keep-last `DeliveryQueue` (same semantics and drop
 * counters as the local bus), which delivers asynchronously. DDS applies the QoS itself (history,
 * reliability, durability matching). With use_sim_time the clock is a `TopicClock` fed by `/clock`.
 */
export class Ros2Bus implements Bus {
  /** Wall clock, or the `/clock`-driven TopicClock with use_sim_time. */
  readonly clock: Clock;
  private readonly topics = new Map<string, TopicUse>();
  private readonly queues = new Set<DeliveryQueue>();
  /** One publisher per topic, type and QoS: advertising again (each episode) reuses it, never a second DDS writer. */
  private readonly publishers = new Map<string, (cdr: Uint8Array) => void>();
  private readonly cleanups: Array<() => void> = [];
  /** Messages published per topic, and per subscription the count at its start and the count received since. */
  private readonly sent = new Map<string, number>();
  private readonly receipts = new Map<DeliveryQueue, { sentAtStart: number; received: number; reliable: boolean }>();
  private closed = false;

  private constructor(
    private readonly rcl: Rclnodejs,
    private readonly node: RclNode,
    /** The context this bus initialized and shuts down on close (undefined: someone else's). */
    private readonly ownContext: RclContext | undefined,
    useSimTime: boolean,
    private readonly onCallbackError: OnCallbackError,
  ) {
    if (useSimTime) {
      const clock = new TopicClock();
      this.clock = clock;
      const codec = codecFor("rosgraph_msgs/msg/Clock");
      const sub = node.createSubscription("rosgraph_msgs/msg/Clock", "/clock", { isRaw: true, qos: toRclQos(rcl.QoS, CLOCK_QOS) }, (bytes) => {
        let ns: bigint;
        try {
          ns = nsFromTime(codec.decode(bytes).clock);
        } catch (err) {
          this.onCallbackError(new Error(`topic "/clock": ${(err as Error).message}`), "/clock");
          return;
        }
        void clock.feed(ns);
      });
      this.cleanups.push(() => node.destroySubscription(sub));
    } else {
      this.clock = new WallClock();
    }
  }

  /**
   * Loads rclnodejs (see `loadRclnodejs`), removes its SIGINT handler, initializes the default
   * context unless it already is, creates the node and starts spinning. Rejects with a clear message when ROS 2 is unavailable.
   */
  static async create(options: Ros2BusOptions = {}): Promise<Ros2Bus> {
    const env = options.env ?? process.env;
    const rcl = await (options.loadRclnodejs ?? (() => loadRclnodejs(env)))();
    // rclnodejs's SIGINT handler shuts all contexts down at once: a node still publishing (the sim
    // twin winding down) then fails with "publisher pointer is invalid". Our CLI handles SIGINT
    // and closes its buses in order; without a handler of its own the process exits as usual.
    rcl.removeSignalHandlers?.();
    // A context of our own for an explicit domain; otherwise the default one, initialized here
    // unless another part of this process already did (then it is theirs to shut down).
    const context = options.domainId === undefined ? undefined : new rcl.Context(options.domainId);
    const ownContext = rcl.isShutdown(context) ? (context ?? DEFAULT_CONTEXT) : undefined;
    if (ownContext !== undefined) await rcl.init(context);
    const nodeName = options.nodeName ?? "engram";
    let node: RclNode;
    try {
      node = new rcl.Node(nodeName, options.namespace ?? "", context);
    } catch (err) {
      if (ownContext !== undefined) rcl.shutdown(context);
      throw new Error(`ros2 bus: cannot create node "${nodeName}": ${(err as Error).message}`, { cause: err });
    }
    const useSimTime = options.useSimTime ?? (node.hasParameter("use_sim_time") && node.getParameter("use_sim_time").value === true);
    const bus = new Ros2Bus(rcl, node, ownContext, useSimTime, options.onCallbackError ?? rethrowAsync);
    node.spin();
    return bus;
  }

  /** Creates a raw subscription; throws on a type mismatch within this process or invalid QoS. */
  subscribe(topic: string, type: RosType, qos: Qos, onMessage: OnMessage): () => void {
    this.assertOpen(`subscribe to "${topic}"`);
    validateTopicName(topic, "subscribe");
    validateQos(qos, topic, "subscriber");
    this.useTopic(topic, type, "subscribe");
    const queue = new DeliveryQueue(topic, type, { ...qos }, onMessage, this.onCallbackError);
    const receipt = { sentAtStart: this.sent.get(topic) ?? 0, received: 0, reliable: qos.reliability === "reliable" };
    let sub: RclSubscription;
    try {
      // Runs on the main thread from rclnodejs's wait loop: only enqueue.
      const options = { isRaw: true as const, qos: toRclQos(this.rcl.QoS, qos) };
      sub = this.node.createSubscription(type, topic, options, (bytes: Buffer) => {
        receipt.received++;
        queue.push(bytes, this.clock.nowNs());
      });
    } catch (err) {
      this.releaseTopic(topic);
      throw new Error(`ros2 bus: cannot subscribe to "${topic}" (${type}): ${(err as Error).message}`, { cause: err });
    }
    this.queues.add(queue);
    this.receipts.set(queue, receipt);
    let done = false;
    const unsubscribe = (): void => {
      if (done) return;
      done = true;
      queue.close();
      this.queues.delete(queue);
      this.receipts.delete(queue);
      if (!this.closed) this.node.destroySubscription(sub);
      this.releaseTopic(topic);
    };
    return unsubscribe;
  }

  /**
   * Creates a publisher, or returns the one already made for the same topic, type and QoS (publishers
   * live as long as the bus); the returned function sends CDR bytes as a raw Buffer (no copy).
   */
  advertise(topic: string, type: RosType, qos: Qos): (cdr: Uint8Array) => void {
    this.assertOpen(`advertise "${topic}"`);
    validateTopicName(topic, "advertise");
    validateQos(qos, topic, "publisher");
    const key = `${topic}\u0000${type}\u0000${JSON.stringify(qos)}`;
    const existing = this.publishers.get(key);
    if (existing) return existing;
    this.useTopic(topic, type, "advertise");
    let pub: RclPublisher;
    try {
      pub = this.node.createPublisher(type, topic, { qos: toRclQos(this.rcl.QoS, qos) });
    } catch (err) {
      this.releaseTopic(topic);
      throw new Error(`ros2 bus: cannot advertise "${topic}" (${type}): ${(err as Error).message}`, { cause: err });
    }
    const publish = (cdr: Uint8Array): void => {
      if (this.closed) throw new Error(`publish on topic "${topic}" after the ros2 bus was closed`);
      // rclnodejs takes the raw path only for `instanceof Buffer`; wrap the same memory.
      pub.publish(Buffer.isBuffer(cdr) ? cdr : Buffer.from(cdr.buffer, cdr.byteOffset, cdr.byteLength));
      this.sent.set(topic, (this.sent.get(topic) ?? 0) + 1);
    };
    this.publishers.set(key, publish);
    return publish;
  }

  /** The QoS the graph reports for each publisher of `topic` (this node's own included); [] before discovery. */
  offeredQos(topic: string): Qos[] {
    this.assertOpen(`query the publishers of "${topic}"`);
    return this.node.getPublishersInfoByTopic(topic, false).map((p) => fromReportedQos(p.qos_profile));
  }

  /**
   * Waits until each reliable subscription of this bus on `topics` has received as many messages as
   * this bus published there since it subscribed, and delivered them (a recording's last events and
   * hold come back through DDS before it closes), or `timeoutMs` passed. NOTE: messages from other
   * publishers on a topic count too, so they can end the wait early; best-effort ones are not awaited.
   */
  async drained(topics: readonly string[], timeoutMs: number): Promise<void> {
    const names = new Set(topics);
    const deadline = performance.now() + timeoutMs;
    const pending = () => [...this.receipts].some(([q, r]) => names.has(q.topic) && r.reliable
      && (r.received < (this.sent.get(q.topic) ?? 0) - r.sentAtStart || q.counts().queued > 0));
    while (!this.closed && pending() && performance.now() < deadline) await new Promise((r) => setTimeout(r, 2));
  }

  /** Delivery counters of the live subscriptions (drops in our keep-last queue; DDS drops are not visible). */
  stats(topic?: string): Array<DeliveryCounts & { topic: string; type: RosType }> {
    return [...this.queues]
      .filter((q) => topic === undefined || q.topic === topic)
      .map((q) => ({ topic: q.topic, type: q.type, ...q.counts() }));
  }

  /** The graph's publishers of `topic` (any type), as this node's discovery knows them now. */
  publishersOf(topic: string): Array<{ node: string; type: string }> {
    if (this.closed) return [];
    return this.node.getPublishersInfoByTopic(topic, false).map((p) => ({
      node: `${p.node_namespace.replace(/\/$/, "")}/${p.node_name}`, type: p.topic_type,
    }));
  }

  /** Destroys the node (all its entities) and shuts the context down if this bus initialized it. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const q of this.queues) q.close();
    this.queues.clear();
    for (const c of this.cleanups) c();
    this.node.destroy();
    if (this.ownContext !== undefined) {
      const context = this.ownContext === DEFAULT_CONTEXT ? undefined : this.ownContext;
      if (!this.rcl.isShutdown(context)) this.rcl.shutdown(context);
    }
  }

  private assertOpen(what: string): void {
    if (this.closed) throw new Error(`cannot ${what}: the ros2 bus is closed`);
  }

  private useTopic(topic: string, type: RosType, verb: string): void {
    const use = this.topics.get(topic);
    assertSameType(topic, use?.type, type, verb);
    if (use === undefined) this.topics.set(topic, { type, users: 1 });
    else use.users++;
  }

  private releaseTopic(topic: string): void {
    const use = this.topics.get(topic);
    if (use !== undefined && --use.users === 0) this.topics.delete(topic);
  }
}
