/**
 * The run's history tap: a demonstration and an episode stored with the very features the policy
 * wrote to memory; a store that fails to write is a `history_fault` and the policy goes on; a policy
 * whose features it cannot read (a remote one) is refused by name.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { HistoryStore } from "../../src/memory/index.js";
import { BIMANUAL_16D } from "../../src/policy/mem0/layout.js";
import { loadMem0Policy } from "../../src/policy/mem0/Mem0Policy.js";
import { writeTestBundle } from "../../src/policy/mem0/testBundle.js";
import type { Policy, PreparedObservation } from "../../src/policy/types.js";
import { EventLog, type EngramEvent } from "../../src/trial/eventLog.js";
import { HistoryTap } from "../../src/trial/historyTap.js";

const root = mkdtempSync(join(tmpdir(), "engram-history-tap-"));
after(() => rmSync(root, { recursive: true, force: true }));
const bundle = join(root, "bundle");
const w = writeTestBundle(bundle, { seed: 3 });
const EPISODE = {
  task: "put-back-block", episode: 0, seed: 1, instruction: "pick up the block and place it at the center",
};

function observation(k: number): PreparedObservation {
  const n = 3 * w.dims.height * w.dims.width;
  const img = () => Float32Array.from({ length: n }, (_, i) => Math.sin(i + k));
  return { stampNs: BigInt(k) * 100_000_000n, images: { head: img(), left_wrist: img(), right_wrist: img() },
    state: Float64Array.from({ length: 16 }, (_, i) => 0.01 * (i + k)) };
}

async function tapped(
  store: string,
): Promise<{ p: Policy; tap: HistoryTap; events: EngramEvent[]; close: () => Promise<void> }> {
  const policy = await loadMem0Policy(bundle, { actionJointNames: BIMANUAL_16D });
  const events: EngramEvent[] = [];
  const log = new EventLog({ nowNs: () => 0n });
  log.onEvent((e) => events.push(e));
  const tap = await HistoryTap.open(store, policy, log);
  return { p: tap.wrap(policy), tap, events, close: async () => { await tap.close(); await policy.close(); } };
}

test("a demonstration and an episode are stored with the features the policy wrote to memory", async () => {
  const store = join(root, "store");
  const { p, tap, events, close } = await tapped(store);
  await p.reset(EPISODE);
  await p.observeDemonstration([observation(0), observation(1)]);
  for (let k = 2; k < 5; k++) await p.observe(observation(k));
  await tap.endSession();
  await close();
  assert.deepEqual(events.map((e) => [e.event, e.kind, e.frames]),
    [["history_session", "demonstration", 2], ["history_session", "episode", 3]]);
  const { store: opened } = await HistoryStore.open(store, w.dims.featureDim);
  const again = await loadMem0Policy(bundle, { actionJointNames: BIMANUAL_16D });
  try {
    await again.reset(EPISODE);
    const demo = await again.encodeFrames([observation(0), observation(1)]);
    assert.deepEqual(opened.features("000000-put-back-block"), demo,
      "the demonstration's features, as the encoder gives them");
    assert.equal(opened.features("000001-put-back-block").length, 3);
  } finally {
    opened.close();
    await again.close();
  }
});

test("a store that fails to write is a history_fault naming it; the policy goes on, the store left alone", async () => {
  const store = join(root, "broken");
  const { p, tap, events, close } = await tapped(store);
  await p.reset(EPISODE);
  await p.observe(observation(0));
  rmSync(join(store, "sessions"), { recursive: true });
  writeFileSync(join(store, "sessions"), "not a folder");
  await tap.endSession();
  await p.reset({ ...EPISODE, episode: 1 });
  const r = await p.observe(observation(1));
  assert.ok(Number.isFinite(r.logit), "the policy still runs");
  await tap.endSession();
  await close();
  const faults = events.filter((e) => e.event === "history_fault");
  assert.equal(faults.length, 1, "reported once, then left alone");
  assert.equal(faults[0]!.store, store);
  assert.match(String(faults[0]!.reason), /sessions/);
  assert.equal(events.filter((e) => e.event === "history_session").length, 0);
});

test("a policy that is not an in-process Mem-0 bundle is refused, naming it and the store", async () => {
  const dir = join(root, "remote");
  const remote = { spec: { name: "mem0-remote" } } as unknown as Policy;
  await assert.rejects(HistoryTap.open(dir, remote, new EventLog({ nowNs: () => 0n })),
    new RegExp(`history ${dir}: policy mem0-remote is not an in-process Mem-0 bundle `
      + `\\(its features stay on its server\\)`));
});
