/**
 * The second process of test/bus/ros2.real.test.ts (real ROS 2 only; not a test file itself).
 * Usage: node --import tsx test/bus/ros2Peer.ts <typed|raw> <prefix>
 * Echoes `<prefix>/image` and `<prefix>/joints` back on `<prefix>/image_echo` and
 * `<prefix>/joints_echo`:
 * - typed: with rclnodejs's own typed messages (it deserializes our CDR and serializes its own),
 * - raw: through our Ros2Bus, bytes untouched; it also publishes a heartbeat every 5 ms and, on a
 *   signal, keeps publishing for 100 ms before closing its bus (as the sim twin winds down).
 * Prints "ready" on stdout once its subscriptions exist; exits on SIGINT/SIGTERM.
 */
import { Ros2Bus, loadRclnodejs } from "../../src/bus/ros2.js";
import { RELIABLE_QOS } from "../../src/bus/types.js";
import { codecFor } from "../../src/msgs/codec.js";

const [mode, prefix] = process.argv.slice(2);
if ((mode !== "typed" && mode !== "raw") || !prefix) {
  process.stderr.write("usage: ros2Peer.ts <typed|raw> <prefix>\n");
  process.exit(2);
}
const PAIRS: Array<[string, string]> = [
  ["sensor_msgs/msg/Image", "image"],
  ["sensor_msgs/msg/JointState", "joints"],
];

/** The typed part of rclnodejs's API this peer uses (the bus itself only uses raw mode). */
interface TypedNode {
  createSubscription(type: string, topic: string, options: { qos: unknown }, cb: (msg: unknown) => void): unknown;
  createPublisher(type: string, topic: string, options: { qos: unknown }): { publish(msg: unknown): void };
  spin(): void;
  destroy(): void;
}

let stop: () => Promise<void>;
if (mode === "raw") {
  const bus = await Ros2Bus.create({ nodeName: "engram_test_peer_raw" });
  for (const [type, name] of PAIRS) {
    const publish = bus.advertise(`${prefix}/${name}_echo`, type, RELIABLE_QOS);
    bus.subscribe(`${prefix}/${name}`, type, RELIABLE_QOS, (cdr) => publish(cdr));
  }
  // Like the sim twin, keep publishing while winding down after a signal: the bus must still be
  // usable until we close it ourselves (rclnodejs's SIGINT handler must not shut it down first).
  const heartbeat = bus.advertise(`${prefix}/heartbeat`, "std_msgs/msg/String", RELIABLE_QOS);
  const beat = codecFor("std_msgs/msg/String");
  let beats = 0;
  const timer = setInterval(() => heartbeat(beat.encode({ data: `beat ${beats++}` })), 5);
  stop = async () => {
    await new Promise((r) => setTimeout(r, 100));
    clearInterval(timer);
    await bus.close();
  };
} else {
  const rcl = await loadRclnodejs();
  await rcl.init();
  const node = new rcl.Node("engram_test_peer_typed") as unknown as TypedNode;
  const qos = new rcl.QoS(
    rcl.QoS.HistoryPolicy.RMW_QOS_POLICY_HISTORY_KEEP_LAST,
    RELIABLE_QOS.depth,
    rcl.QoS.ReliabilityPolicy.RMW_QOS_POLICY_RELIABILITY_RELIABLE,
    rcl.QoS.DurabilityPolicy.RMW_QOS_POLICY_DURABILITY_VOLATILE,
  );
  for (const [type, name] of PAIRS) {
    const pub = node.createPublisher(type, `${prefix}/${name}_echo`, { qos });
    node.createSubscription(type, `${prefix}/${name}`, { qos }, (msg) => pub.publish(msg));
  }
  node.spin();
  stop = async () => {
    node.destroy();
    rcl.shutdown();
  };
}
process.stdout.write("ready\n");
const quit = (): void => {
  void stop().then(() => process.exit(0));
};
process.on("SIGINT", quit);
process.on("SIGTERM", quit);
