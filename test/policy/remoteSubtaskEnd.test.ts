/**
 * A declared subtask end over the `mem0` protocol (issue 13): the runtime drops the running chunk at
 * an end and needs the next one on that tick. On an M(1) task the Python server (`engram_ml serve`,
 * with the scripted test/policy/endingAdapter.py) sends that chunk with the observe reply that declares
 * the end, so the switch costs no extra round trip; on M(n) the instruction changes first, so the
 * client asks for it after the planner.
 */
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { after, before, test } from "node:test";
import { pythonServerMissing, startPolicyServer, type LocalServer } from "../../src/policy/remote/localServer.js";
import { loadRemotePolicy } from "../../src/policy/remote/definition.js";
import type { RemoteEvent } from "../../src/policy/remote/RemotePolicy.js";
import { loadRobotProfile } from "../../src/robot/loadRobotProfile.js";
import { writeRemoteBundle } from "./remoteBundle.js";

const missing = pythonServerMissing();
let server: LocalServer | null = null;
before(async () => {
  if (!missing) server = await startPolicyServer(["--adapter", "endingAdapter:create", "--adapter-arg", "end_every=3", "--port", "0"], { PYTHONPATH: "test/policy" });
});
after(async () => { await server?.stop(); });

for (const complexity of ["M(1)", "M(n)"] as const) {
  test(`${complexity}: the chunk after a declared end ${complexity === "M(1)" ? "comes with the observe reply" : "is asked for with act"}`, { skip: missing ?? false, timeout: 60_000 }, async () => {
    const bundle = writeRemoteBundle(server!.url, { latency: { prefetch: false, pipeline_observe: false } });
    const events: RemoteEvent[] = [];
    const policy = loadRemotePolicy(bundle, { robot: loadRobotProfile("robots/x-one.yaml").profile, onRemoteEvent: (e) => events.push(e) });
    const image = new Float32Array(3 * 24 * 32);
    const observe = (k: number) => policy.observe({ stampNs: BigInt(k) * 100_000_000n, images: { head: image, left_wrist: image, right_wrist: image }, state: new Float64Array(16) });
    try {
      await policy.reset({ task: "t", episode: 0, seed: 1, instruction: "press the button", complexity });
      policy.setInstruction("press the button");
      assert.equal((await observe(0)).subtaskEnded, false);
      assert.equal((await observe(1)).subtaskEnded, false);
      assert.equal((await observe(2)).subtaskEnded, true); // the adapter's 3rd observation
      const afterEnd = await policy.act();
      assert.ok(afterEnd.actions.every((v) => Math.abs(v - 3.01) < 1e-6), `chunk of observation 3, the server's first: ${afterEnd.actions[0]}`);
      const chunk = events.filter((e) => e.kind === "chunk").pop() as Extract<RemoteEvent, { kind: "chunk" }>;
      assert.equal(chunk.fromStep, 2);
      // Prefetch is off in this bundle: a chunk in hand without asking can only be the end's.
      assert.equal(chunk.prefetched, complexity === "M(1)");
      await observe(3);
      const next = await policy.act();
      assert.ok(next.actions.every((v) => Math.abs(v - 4.02) < 1e-6), `the server computed one chunk per act, none twice: ${next.actions[0]}`);
    } finally {
      await policy.close();
      rmSync(bundle, { recursive: true, force: true });
    }
  });
}

test("pipeline_observe: a reply that fits in half a tick is awaited (this tick's verdict); a 150 ms one is not (the newest in hand)", { skip: missing ?? false, timeout: 60_000 }, async () => {
  const slow = await startPolicyServer(["--adapter", "endingAdapter:create", "--adapter-arg", "end_every=3", "--port", "0", "--delay-ms", "150"], { PYTHONPATH: "test/policy" });
  const robot = loadRobotProfile("robots/x-one.yaml").profile;
  const image = new Float32Array(3 * 24 * 32);
  try {
    for (const [url, lagged] of [[server!.url, false], [slow.url, true]] as const) {
      const bundle = writeRemoteBundle(url, { latency: { prefetch: false, pipeline_observe: true } });
      const policy = loadRemotePolicy(bundle, { robot });
      try {
        await policy.reset({ task: "t", episode: 0, seed: 1, instruction: "press the button", complexity: "M(1)" });
        policy.setInstruction("press the button");
        const ends: boolean[] = [];
        for (let k = 0; k < 3; k++) {
          ends.push((await policy.observe({ stampNs: BigInt(k) * 100_000_000n, images: { head: image, left_wrist: image, right_wrist: image }, state: new Float64Array(16) })).subtaskEnded);
          await new Promise((r) => setTimeout(r, 100)); // the rest of a 10 Hz tick
        }
        // The adapter declares the end at the 3rd observation: seen at once when awaited, a tick or more later when pipelined.
        assert.deepEqual(ends, lagged ? [false, false, false] : [false, false, true], url);
      } finally {
        await policy.close();
        rmSync(bundle, { recursive: true, force: true });
      }
    }
  } finally {
    await slow.stop();
  }
});
