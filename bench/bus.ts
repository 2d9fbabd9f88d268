import { percentile } from "../src/observe/stats.js";
import { LocalBus } from "../src/bus/local.js";
import type { Qos } from "../src/bus/types.js";

const QOS: Qos = { reliability: "reliable", durability: "volatile", history: "keep_last", depth: 10 };

/** Publish-to-callback latencies (µs) of `count` messages sent one at a time (each awaited). */
async function latenciesUs(bus: LocalBus, topic: string, payload: Uint8Array, count: number, subscribers: number): Promise<number[]> {
  const publish = bus.advertise(topic, "sensor_msgs/msg/Image", QOS);
  let sentAt = 0n;
  let pending = 0;
  let done: () => void = () => {};
  const out: number[] = [];
  const offs = Array.from({ length: subscribers }, () =>
    bus.subscribe(topic, "sensor_msgs/msg/Image", QOS, () => {
      out.push(Number(process.hrtime.bigint() - sentAt) / 1000);
      if (--pending === 0) done();
    }),
  );
  for (let i = 0; i < count; i++) {
    const delivered = new Promise<void>((r) => (done = r));
    pending = subscribers;
    sentAt = process.hrtime.bigint();
    publish(payload);
    await delivered;
  }
  for (const off of offs) off();
  return out.slice(Math.floor(out.length / 10)); // drop warm-up
}

/** Messages per second through one keep_all subscriber when `count` are published back to back. */
async function burstPerSecond(bus: LocalBus, payload: Uint8Array, count: number): Promise<number> {
  const publish = bus.advertise("/bench/burst", "std_msgs/msg/String", QOS);
  let received = 0;
  let done: () => void = () => {};
  const all = new Promise<void>((r) => (done = r));
  const off = bus.subscribe("/bench/burst", "std_msgs/msg/String", { ...QOS, history: "keep_all" }, () => {
    if (++received === count) done();
  });
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < count; i++) publish(payload);
  await all;
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  off();
  return Math.round(count / seconds);
}

/** Local-bus delivery latency p50/p99 (µs) for small and 640x480 rgb8 image-sized payloads, and burst throughput. */
export async function bench(): Promise<Record<string, unknown>> {
  const bus = new LocalBus();
  const small = new Uint8Array(64);
  const image = new Uint8Array(640 * 480 * 3 + 64);
  const smallUs = await latenciesUs(bus, "/bench/small", small, 3000, 1);
  const imageUs = await latenciesUs(bus, "/bench/image", image, 600, 1);
  const fanoutUs = await latenciesUs(bus, "/bench/fanout", image, 600, 4);
  const burst = await burstPerSecond(bus, small, 50_000);
  await bus.close();
  return {
    local_small_64B_latency_us_p50: percentile(smallUs, 0.5),
    local_small_64B_latency_us_p99: percentile(smallUs, 0.99),
    local_image_640x480_rgb8_latency_us_p50: percentile(imageUs, 0.5),
    local_image_640x480_rgb8_latency_us_p99: percentile(imageUs, 0.99),
    local_image_4_subscribers_latency_us_p50: percentile(fanoutUs, 0.5),
    local_image_4_subscribers_latency_us_p99: percentile(fanoutUs, 0.99),
    local_burst_small_msgs_per_s: burst,
    note: "publish() to callback, WallClock, one message in flight; bytes are shared, not copied",
  };
}
