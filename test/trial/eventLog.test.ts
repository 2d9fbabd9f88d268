/**
 * The run's writers take every secret out and bound what a peer sent: EventLog (events.jsonl, the
 * /engram/events topic the recordings take, its listeners) and RunFiles (episodes.jsonl,
 * summary.json, report.md, side files).
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statfsSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { SimClock } from "../../src/bus/clock.js";
import { LocalBus } from "../../src/bus/local.js";
import { Secrets } from "../../src/config/secrets.js";
import { decode } from "../../src/msgs/codec.js";
import { ENGRAM_EVENTS } from "../../src/msgs/events.js";
import { EventLog, type EngramEvent } from "../../src/trial/eventLog.js";
import { RunFiles } from "../../src/trial/runFiles.js";

const KEY = "sk-event-log-0c7e5a91d2";
const TOKEN = "policy-token-b83f10aa";
const tmp = mkdtempSync(join(tmpdir(), "engram-event-log-"));
after(() => rmSync(tmp, { recursive: true, force: true }));

const read = (cdr: Uint8Array) => decode("std_msgs/msg/String", cdr).data;

test("EventLog: a secret echoed into an event is redacted in the file, on the topic and for listeners", async () => {
  const bus = new LocalBus({ clock: new SimClock(5n) });
  const published: string[] = [];
  bus.subscribe(ENGRAM_EVENTS.topic, ENGRAM_EVENTS.type, ENGRAM_EVENTS.qos, (cdr) => published.push(read(cdr)));
  const file = join(tmp, "redact", "events.jsonl");
  const log = new EventLog({ bus, file, nowNs: () => bus.clock.nowNs(), secrets: Secrets.of([KEY, TOKEN]) });
  const heard: EngramEvent[] = [];
  log.onEvent((e) => heard.push(e));
  log.emit({ event: "planner_call", step: 0, answer: `Bearer ${KEY}.` });
  log.emit({ event: "remote_fault", step: 4, reason: `bad token ${TOKEN} (${Buffer.from(TOKEN).toString("base64")})` });
  log.close();
  await new Promise<void>((r) => setImmediate(r));
  const lines = readFileSync(file, "utf8").trim().split("\n");
  assert.deepEqual(published, lines, "the topic carries the file's lines");
  const want = ["Bearer [redacted].", "bad token [redacted] ([redacted])"];
  assert.deepEqual(lines.map((l) => JSON.parse(l) as EngramEvent).map((e) => e.answer ?? e.reason), want);
  assert.deepEqual(heard.map((e) => e.answer ?? e.reason), want);
  assert.equal(heard[0]!.stamp_ns, 5n, "listeners still get the stamp as a bigint");
  await bus.close();
});

test("EventLog: a 1 MB peer message in an event is cut to 2 KB, the event saying how many bytes were dropped", () => {
  const file = join(tmp, "bound", "events.jsonl");
  const log = new EventLog({ file, nowNs: () => 0n });
  log.emit({ event: "remote_fault", step: 1, reason: `policy server error: ${"e".repeat(2 ** 20)}` });
  log.emit({ event: "safety_hold", step: 2, reason: "stale", topic: "/joint_states" });
  log.close();
  const text = readFileSync(file, "utf8");
  assert.ok(text.length < 2500, `events.jsonl is ${text.length} bytes`);
  const [fault, hold] = text.trim().split("\n").map((l) => JSON.parse(l) as EngramEvent);
  assert.match(String(fault!.reason), /^policy server error: e+\.\.\. \[1046549 bytes dropped\]$/);
  const short = { event: "safety_hold", step: 2, reason: "stale", topic: "/joint_states", stamp_ns: "0" };
  assert.deepEqual(hold, short, "short events unchanged");
});

test("RunFiles: episodes.jsonl, summary.json, report.md, side files hold no secret; long reasons bounded", async () => {
  const out = join(tmp, "run");
  const bus = new LocalBus({ clock: new SimClock(0n) });
  const files = new RunFiles(out, bus, () => 0n, Secrets.of([KEY]));
  const reason = `planner failed: HTTP 401 echo ${KEY} ${"z".repeat(10_000)}`;
  const bounded = /^planner failed: HTTP 401 echo \[redacted\] z+\.\.\. \[\d+ bytes dropped\]$/;
  const record = {
    episode: 0, task: "press-button", seed: 0, outcome: "aborted" as const, steps: 1, duration_s: 0.1,
    checkpoints: [], checkpoints_defined: [], declared_ends: [], true_ends: [], planner_latencies_ms: [],
    safety_interventions: 0, realtime_factor: null,
  };
  files.appendEpisode({ ...record, reason });
  files.appendSide("ticks.jsonl", `{"note":"${KEY}"}\n`);
  const aborted = { episode: 0, reason, interrupted: false };
  const run = { task: "t", policy: "p", episodes: [record], tickMs: [1, 2], lateTicks: 0, aborted };
  const summary = await files.finish(run);
  files.close();
  await bus.close();
  assert.match(summary.aborted!.reason, bounded);
  for (const name of ["episodes.jsonl", "summary.json", "report.md", "ticks.jsonl", "events.jsonl"]) {
    const text = readFileSync(join(out, name), "utf8");
    assert.ok(!text.includes(KEY), `${name} holds the key`);
    assert.ok(text.length < 8 * 1024, `${name} is ${text.length} bytes`);
  }
  const line = JSON.parse(readFileSync(join(out, "episodes.jsonl"), "utf8")) as { reason: string };
  assert.match(line.reason, bounded);
});

test("EventLog on a full disk: the file keeps whole lines only; the kept lines follow once space is freed", (t) => {
  const mnt = mkdtempSync(join(tmpdir(), "engram-event-log-full-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", mnt], { stdio: "ignore" });
  } catch {
    rmSync(mnt, { recursive: true, force: true });
    t.skip("cannot mount a tmpfs here (needs root with CAP_SYS_ADMIN)");
    return;
  }
  try {
    const file = join(mnt, "events.jsonl");
    const failures: string[] = [];
    const log = new EventLog({ file, nowNs: () => 0n, onWriteError: (err) => failures.push(err.message) });
    const filler = join(mnt, "filler");
    const fs = statfsSync(mnt);
    writeFileSync(filler, Buffer.alloc(Math.max(0, (fs.bavail - 1) * fs.bsize)));
    const reason = "x".repeat(300);
    let n = 0;
    while (failures.length === 0 && n < 100) log.emit({ event: "safety_hold", step: n++, reason });
    assert.equal(failures.length, 1, "the disk filled");
    assert.match(failures[0]!, /events\.jsonl: .*ENOSPC/);
    const stored = readFileSync(file, "utf8");
    assert.ok(stored === "" || stored.endsWith("\n"), "no half line left behind");
    const storedSteps = stored.trim().split("\n").filter(Boolean).map((l) => (JSON.parse(l) as EngramEvent).step);
    assert.ok(storedSteps.length < n, "the failed line is not in the file");
    log.emit({ event: "episode_end", step: n, outcome: "aborted" });
    rmSync(filler);
    log.retryPending();
    log.emit({ event: "run_end", step: n + 1 });
    log.close();
    const steps = readFileSync(file, "utf8").trim().split("\n").map((l) => (JSON.parse(l) as EngramEvent).step);
    assert.deepEqual(steps, Array.from({ length: n + 2 }, (_, i) => i), "every event, in order");
  } finally {
    execFileSync("umount", [mnt]);
    rmSync(mnt, { recursive: true, force: true });
  }
});
