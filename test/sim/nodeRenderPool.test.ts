import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { SimClock } from "../../src/bus/clock.js";
import { LocalBus } from "../../src/bus/local.js";
import type { Qos } from "../../src/bus/types.js";
import { loadRobotProfile } from "../../src/robot/index.js";
import { SimNode } from "../../src/sim/node/SimNode.js";
import { getTask } from "../../src/sim/tasks/index.js";

const ALL: Qos = { reliability: "reliable", durability: "volatile", history: "keep_all", depth: 1 };

test("cameras rendered in worker threads publish the same bytes, in the same order, as on the sim thread", async () => {
  const robot = loadRobotProfile("robots/x-one.yaml");
  async function run(renderWorkers: number): Promise<Record<string, { n: number; sha: string }>> {
    const bus = new LocalBus({ clock: new SimClock(0n) });
    const node = await SimNode.create({ bus, robot, renderWorkers });
    const hashes = robot.profile.cameras.map((c) => {
      const h = { hash: createHash("sha1"), n: 0 };
      bus.subscribe(c.topic, c.encoding === "rgb8" ? "sensor_msgs/msg/Image" : "sensor_msgs/msg/CompressedImage", ALL, (cdr) => { h.hash.update(cdr); h.n++; });
      return [c.name, h] as const;
    });
    node.reset({ task: getTask("put-back-block"), seed: 3, expert: true });
    await node.runEpisode(5);
    await new Promise((r) => setImmediate(r));
    node.close();
    await bus.close();
    return Object.fromEntries(hashes.map(([name, h]) => [name, { n: h.n, sha: h.hash.digest("hex") }]));
  }
  const main = await run(0), pooled = await run(2);
  assert.equal(main.head!.n, 16, "0.5 s at 30 Hz: a frame at the first step, then every 33.3 ms");
  assert.deepEqual(pooled, main);
});
