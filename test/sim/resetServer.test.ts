/**
 * The twin's reset over the bus (src/sim/node/resetServer.ts, contract in src/msgs/simReset.ts):
 * a request sets the scene between real-time advances and is answered with its id once the twin
 * has stepped the new scene; bad requests are refused with the reason, repeats of a served id are not served again.
 */
// Runs alone (scripts/test.sh): it measures wall time.
import { test } from "node:test";
import assert from "node:assert/strict";
import { LocalBus } from "../../src/bus/local.js";
import { encode } from "../../src/msgs/codec.js";
import { SIM_RESET, SIM_RESET_DONE, type SimResetReply } from "../../src/msgs/simReset.js";
import { loadRobotProfile } from "../../src/robot/index.js";
import { SimResetServer } from "../../src/sim/node/resetServer.js";
import { SimNode } from "../../src/sim/node/SimNode.js";
import { getTask } from "../../src/sim/tasks/index.js";

const xOne = loadRobotProfile("robots/x-one.yaml");

test("reset over the bus: scene set, reply carries the id after the new scene stepped; bad requests refused", { timeout: 60_000 }, async () => {
  const bus = new LocalBus();
  const node = await SimNode.create({ bus, robot: xOne, cameras: false, log: () => {} });
  node.reset({ task: getTask("put-back-block"), seed: 1 });
  const logs: string[] = [];
  const server = new SimResetServer({ bus, node, taskOf: getTask, log: (l) => logs.push(l) });
  const replies: SimResetReply[] = [];
  const off = bus.subscribe(SIM_RESET_DONE.topic, SIM_RESET_DONE.type, SIM_RESET_DONE.qos, (cdr) => replies.push(SIM_RESET_DONE.decode(cdr)));
  const request = bus.advertise(SIM_RESET.topic, SIM_RESET.type, SIM_RESET.qos);
  const ctl = new AbortController();
  const running = node.runRealtime(ctl.signal, () => server.poll());
  const until = async (done: () => boolean, what: string) => {
    const deadline = performance.now() + 10_000;
    while (!done()) {
      assert.ok(performance.now() < deadline, `timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  try {
    request(SIM_RESET.encode({ id: "run-0", task: "put-back-block", seed: 7 }));
    await until(() => replies.length === 1, "the reply to run-0");
    assert.deepEqual(replies[0], { id: "run-0", task: "put-back-block", seed: 7, ok: true });
    assert.equal(node.episode?.seed, 7);
    assert.ok(node.world.stepCount > 0, "answered only after the new scene stepped");

    request(SIM_RESET.encode({ id: "run-1", task: "no-such-task", seed: 8 }));
    await until(() => replies.length === 2, "the refusal of run-1");
    assert.equal(replies[1]!.ok, false);
    assert.match(replies[1]!.error ?? "", /no-such-task/);
    assert.equal(node.episode?.seed, 7, "a refused request leaves the scene");

    // Keep-last 1: each request is sent once the one before it was read.
    request(encode("std_msgs/msg/String", { data: JSON.stringify({ id: "run-2", task: "put-back-block", seed: -1 }) }));
    await until(() => logs.filter((l) => l.startsWith("refused")).length === 1, "the bad seed refused");
    request(encode("std_msgs/msg/String", { data: "not json" }));
    await until(() => logs.filter((l) => l.startsWith("refused")).length === 2, "the bad JSON refused");
    assert.match(logs.find((l) => l.startsWith("refused") && l.includes("seed"))!, /\/sim\/reset: field "seed" is -1, expected an integer >= 0/);
    assert.ok(logs.some((l) => /\/sim\/reset: not JSON/.test(l)));

    // The same id again (a latched request delivered twice) is not served again.
    const steps = node.world.stepCount;
    request(SIM_RESET.encode({ id: "run-0", task: "put-back-block", seed: 7 }));
    await until(() => node.world.stepCount > steps + 20, "the twin to step on");
    assert.equal(replies.length, 2);
  } finally {
    ctl.abort();
    await running;
    off();
    server.close();
    node.close();
    await bus.close();
  }
});
