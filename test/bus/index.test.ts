import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { test } from "node:test";
import { LocalBus, SimClock, createBus, type BusConfig } from "../../src/bus/index.js";

const TALKER = "../shared/fixtures/rosbag2/talker/talker.mcap";

test("createBus local: a LocalBus on the injected clock", async () => {
  const clock = new SimClock(7n);
  const bus = await createBus({ kind: "local" }, { clock });
  assert.ok(bus instanceof LocalBus);
  assert.equal(bus.clock, clock);
  await bus.close();
});

test("createBus ros2 without ROS 2 sourced: the clear error", { skip: process.env.ROS_DISTRO ? "ROS_DISTRO is set here" : false }, async () => {
  await assert.rejects(createBus({ kind: "ros2", node_name: "engram" }), /ros2 bus requested but ROS 2 is not available: ROS_DISTRO\/AMENT_PREFIX_PATH not set/);
});

test("createBus replay: opens the recording relative to root; a missing file is named", async (t) => {
  await assert.rejects(createBus({ kind: "replay", file: "no/such.mcap" }, { root: "/tmp" }), /\/tmp\/no\/such\.mcap/);
  if (!existsSync(TALKER)) {
    t.skip(`${TALKER} not present (real ROS 2 fixtures live in ../shared/fixtures)`);
    return;
  }
  const bus = await createBus({ kind: "replay", file: TALKER, as_fast_as_possible: true });
  assert.equal(typeof bus.subscribe, "function");
  await bus.close();
});

test("createBus rejects an unknown kind, naming it", async () => {
  await assert.rejects(createBus({ kind: "zenoh" } as unknown as BusConfig), /bus.kind "zenoh" is unknown; expected "local", "ros2" or "replay"/);
});
