import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { test } from "node:test";
import { SimClock } from "../../src/bus/clock.js";
import { LocalBus } from "../../src/bus/local.js";
import { RELIABLE_QOS } from "../../src/bus/types.js";
import { codecFor } from "../../src/msgs/codec.js";
import { SIM_SUBTASK_END } from "../../src/msgs/simTopics.js";
import { oracleDetector } from "../../src/policy/mem0/endDetector.js";
import { loadRunConfig } from "../../src/config/loaders.js";
import { OracleListPlanner } from "../../src/policy/planner/oracleList.js";
import { loadRobotProfile } from "../../src/robot/index.js";
import { EventLog } from "../../src/trial/eventLog.js";
import {
  loadTrialPolicy, openRunPlanner, plannerApiKey, plannerFor, runPartsOf, runSecrets, runStopReason, subscribeGroundTruth,
} from "../../src/trial/trialParts.js";
import { writeRemoteBundle } from "../policy/remoteBundle.js";

test("which episode ends stop the run: any abort, but a dead planner only twice in a row", () => {
  const dead = { kind: "aborted" as const, reason: "planner failed: connection refused", plannerDown: true as const };
  const rows: Array<[Parameters<typeof runStopReason>[0], boolean, string | null]> = [
    [{ kind: "success" }, false, null],
    [{ kind: "failure", reason: "step limit" }, true, null],
    [{ kind: "aborted", reason: "recording x: ENOSPC" }, false, "recording x: ENOSPC"],
    [dead, false, null],
    [dead, true, "planner failed: connection refused"],
  ];
  for (const [end, before, want] of rows) assert.equal(runStopReason(end, before), want, `${JSON.stringify(end)} after a dead planner: ${before}`);
});

test("the planner API key comes from the variable api_key_env names; unset is an error naming it, not the key", () => {
  const p = { kind: "openai", url: "http://h/v1", model: "m", api_key_env: "ENGRAM_PLANNER_KEY", prompt: "mem0", max_tokens: 2048, timeout_ms: 1000, retries: 0 } as const;
  assert.equal(plannerApiKey(p, { ENGRAM_PLANNER_KEY: "sk-1" }), "sk-1");
  assert.throws(() => plannerApiKey(p, {}), /policy\.planner\.api_key_env: environment variable ENGRAM_PLANNER_KEY is not set/);
  assert.equal(plannerApiKey({ ...p, api_key_env: undefined }, { ENGRAM_PLANNER_KEY: "sk-1" }), undefined);
});

test("runSecrets: the planner key and a remote bundle's token, read from the variables the config names", () => {
  const base = loadRunConfig(new URL("../../launch/sim-x-one.yaml", import.meta.url).pathname).config;
  const openai = { kind: "openai" as const, url: "http://h/v1", model: "m", api_key_env: "ENGRAM_PLANNER_KEY" };
  const planner = { ...base.policy.planner, ...openai };
  const cfg = { ...base, policy: { ...base.policy, planner } };
  const remote = writeRemoteBundle("ws://127.0.0.1:1", { token_env: "ENGRAM_POLICY_TOKEN" });
  try {
    const token = { ENGRAM_POLICY_TOKEN: "tok-policy-4567" };
    const env = { ENGRAM_PLANNER_KEY: "sk-planner-0123", ...token, OTHER: "not-a-secret" };
    const text = "sk-planner-0123 tok-policy-4567 not-a-secret";
    assert.equal(runSecrets(cfg, remote, env).redact(text), "[redacted] [redacted] not-a-secret");
    assert.equal(runSecrets(cfg, remote, token).redact(text), "sk-planner-0123 [redacted] not-a-secret");
    const tiny = new URL("../../policies/test-tiny", import.meta.url).pathname;
    assert.equal(runSecrets(base, tiny, env).size, 0, "learned planner, in-process bundle");
    assert.equal(runSecrets(base, "/nonexistent/bundle", env).size, 0, "an unreadable bundle holds no token");
  } finally {
    rmSync(remote, { recursive: true, force: true });
  }
});

test("the oracle classifier's detector hears the twin's /sim/subtask_end: only a true is an end", async () => {
  const bus = new LocalBus({ clock: new SimClock(0n) });
  const oracle = oracleDetector();
  subscribeGroundTruth(bus, oracle, null);
  const publish = bus.advertise(SIM_SUBTASK_END.topic, SIM_SUBTASK_END.type, SIM_SUBTASK_END.qos);
  const flush = () => new Promise<void>((r) => setImmediate(r));
  publish(codecFor("std_msgs/msg/Bool").encode({ data: false }));
  await flush();
  assert.equal(oracle.decide(0).ended, false);
  publish(codecFor("std_msgs/msg/Bool").encode({ data: true }));
  await flush();
  assert.equal(oracle.decide(0).ended, true);
  await bus.close();
});

test("the run's planner: learned (the default) opens the bundle's planner on M(n) only, oracles are flagged", async () => {
  const cfg = loadRunConfig(new URL("../../launch/sim-x-one.yaml", import.meta.url).pathname).config;
  const tiny = new URL("../../policies/test-tiny", import.meta.url).pathname;
  assert.equal(cfg.policy.planner.kind, "learned");
  assert.equal(await openRunPlanner(cfg, "M1", tiny), null, "M(1): no planner is opened (npm start unchanged)");
  await assert.rejects(openRunPlanner(cfg, "Mn", tiny), /test-tiny\/policy\.yaml: no planner section \(planner\.onnx\)/);
  const learned = { next: async () => ({ subtask: "x", latencyMs: 0 }) };
  assert.equal(plannerFor(cfg.policy.planner, [], null, learned), learned);
  const oracle = { ...cfg, policy: { ...cfg.policy, classifier: "oracle" as const, planner: { ...cfg.policy.planner, kind: "oracle-list" as const } } };
  assert.ok(plannerFor(oracle.policy.planner, ["a"], null, null) instanceof OracleListPlanner);
  assert.deepEqual(runPartsOf(cfg), { planner: { kind: "learned", privileged: false }, classifier: { kind: "learned", privileged: false } });
  assert.deepEqual(runPartsOf(oracle), { planner: { kind: "oracle-list", privileged: true }, classifier: { kind: "oracle", privileged: true } });
});

test("the run's memory strategy: framesamp loads an in-process bundle, tokendrop and any remote bundle are refused by name", async () => {
  const base = loadRunConfig(new URL("../../launch/sim-x-one.yaml", import.meta.url).pathname).config;
  const profile = loadRobotProfile(new URL("../../robots/x-one.yaml", import.meta.url).pathname).profile;
  const tiny = new URL("../../policies/test-tiny", import.meta.url).pathname;
  const events = new EventLog({ nowNs: () => 0n });
  const framesamp = { ...base, memory: { strategy: "framesamp" as const, budget: 512, stride: 8, kept: 2048, grid: 8 } };
  const loaded = await loadTrialPolicy(framesamp, profile, tiny, events, null);
  await loaded.policy.close();
  const tokendrop = { ...base, memory: { ...framesamp.memory, strategy: "tokendrop" as const } };
  await assert.rejects(loadTrialPolicy(tokendrop, profile, tiny, events, null), /memory\.strategy tokendrop: .*test-tiny.* not patch tokens/);
  const remote = writeRemoteBundle("ws://127.0.0.1:1");
  try {
    await assert.rejects(loadTrialPolicy(framesamp, profile, remote, events, null),
      /memory\.strategy framesamp: .* is a remote policy \(its server owns the memory\)/);
  } finally {
    rmSync(remote, { recursive: true, force: true });
  }
});
