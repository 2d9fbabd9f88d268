/**
 * engram replay --through-policy with a remote policy: a short recorded expert episode fed through
 * the Python policy server (`python -m engram_ml serve` with the scripted test/policy/endingAdapter.py:
 * logit 4, a subtask end at every 5th observation, chunks worth observations + acts/100) over the
 * mem0 wire protocol, by the same episode driver and loop as a trial. Each chunk in the
 * .policy.mcap must be the one the server computed for that tick's observation.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { replayThroughPolicy } from "../../src/app/replayPolicy.js";
import { loadRunConfig } from "../../src/config/loaders.js";
import { decode } from "../../src/msgs/codec.js";
import { McapSource } from "../../src/bus/mcapReader.js";
import { identityOf, readMcapMetadata } from "../../src/record/episodeWriter.js";
import { recordEpisodes } from "../../src/app/recordSession.js";
import { pythonServerMissing, startPolicyServer, type LocalServer } from "../../src/policy/remote/localServer.js";
import { loadRobotProfile } from "../../src/robot/loadRobotProfile.js";
import { writeRemoteBundle } from "../policy/remoteBundle.js";

const missing = pythonServerMissing();
const dir = mkdtempSync(join(tmpdir(), "engram-through-remote-test-"));
const run = loadRunConfig("launch/sim-x-one.yaml");
const robot = loadRobotProfile(run.robotPath);
const STEPS = 20;
let server: LocalServer | null = null;

before(async () => {
  if (missing) return;
  server = await startPolicyServer(["--adapter", "endingAdapter:create", "--adapter-arg", "end_every=5", "--port", "0"], { PYTHONPATH: "test/policy" });
  await recordEpisodes({ run, robot, source: "expert", task: "put-back-block", episodes: 1, seed: 2, outDir: dir, maxSteps: STEPS });
}, { timeout: 120_000 });
after(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test("a recording replayed through a remote policy: every tick observed, the server's chunks and ends written", { skip: missing ?? false, timeout: 120_000 }, async () => {
  const path = join(dir, "episodes", "0.mcap");
  const bundle = writeRemoteBundle(server!.url, { latency: { prefetch: false, pipeline_observe: false } });
  try {
    const r = await replayThroughPolicy({ run, robot, path, bundle });
    assert.ok(r.steps >= STEPS && r.steps <= STEPS + 1, `${r.steps} steps`);
    assert.equal(r.skipped, 0);
    // The server declares an end at its 5th, 10th, ... observation: steps 4, 9, ...
    assert.deepEqual(r.declared_ends, [4, 9, 14, 19].filter((s) => s < r.steps));
    assert.deepEqual(r.annotated_ends, [STEPS - 1]);
    assert.equal(r.recall, 1, "the end at step 19 matches the annotated one");
    assert.ok(r.chunks >= 1);

    const id = identityOf(await readMcapMetadata(path))!;
    const startNs = BigInt(id.start_ns), periodNs = BigInt(Math.round(1e9 / id.control_hz));
    const src = await McapSource.open(r.out, "indexed");
    const logits: number[] = [], ends: number[] = [];
    let chunks = 0;
    for await (const m of src.messages()) {
      const step = Number((m.logTimeNs - startNs) / periodNs) - 1;
      if (m.topic === "/engram/policy/logit") logits.push(decode("std_msgs/msg/Float32", m.cdr).data);
      if (m.topic === "/engram/policy/subtask_end") ends.push((JSON.parse(decode("std_msgs/msg/String", m.cdr).data) as { step: number }).step);
      if (m.topic === "/engram/policy/chunk") {
        chunks++;
        const t = decode("trajectory_msgs/msg/JointTrajectory", m.cdr);
        assert.equal(t.points.length, 8);
        assert.equal(t.joint_names.length, 16);
        const values = t.points.flatMap((p) => Array.from(p.positions));
        // A chunk is worth (observations so far) + (act calls so far)/100: the observation of its own tick.
        assert.ok(values.every((v) => v === values[0]), "one value per chunk");
        assert.equal(Math.floor(values[0]! + 1e-6), step + 1, `chunk at step ${step} worth ${values[0]}`);
      }
    }
    await src.close();
    assert.equal(logits.length, r.steps);
    assert.ok(logits.every((l) => l === 4), "the server's logit on every tick");
    assert.deepEqual(ends, r.declared_ends);
    assert.equal(chunks, r.chunks);
  } finally {
    rmSync(bundle, { recursive: true, force: true });
  }
});
