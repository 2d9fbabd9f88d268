/**
 * Connect-time deadlines of the remote client (issue 27): a server that accepts the websocket but
 * never sends its metadata (test/fakes/policyServer.ts, `silentOnConnect`), and a TCP listener that
 * never answers the upgrade. reset() fails within connect_timeout_ms x attempts up to give_up_s,
 * naming the URL and what it waited for, and says what it is waiting for meanwhile; a request's
 * deadline covers the reconnect it waits for; `engram run` on such a server exits 1 with that error.
 */
// Runs alone (scripts/test.sh): it measures wall time.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { loadRemotePolicy } from "../../src/policy/remote/definition.js";
import { PolicyConnection } from "../../src/policy/remote/PolicyConnection.js";
import { loadRobotProfile } from "../../src/robot/loadRobotProfile.js";
import { startRun } from "../cli/runHarness.js";
import { FakePolicyServer } from "../fakes/policyServer.js";
import { REMOTE_METADATA, writeRemoteBundle } from "./remoteBundle.js";

const robot = loadRobotProfile("robots/x-one.yaml").profile;
const episode = { task: "put-back-block", episode: 0, seed: 1, instruction: "press the button" };
const tmp = mkdtempSync(join(tmpdir(), "engram-remote-connect-"));
after(() => rmSync(tmp, { recursive: true, force: true }));

async function silentServer(): Promise<FakePolicyServer> {
  const server = new FakePolicyServer({ metadata: REMOTE_METADATA, horizon: 8, dim: 16, silentOnConnect: true });
  await server.start();
  return server;
}

/** A TCP listener that accepts and never answers (the upgrade never completes). */
async function mute(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets: Socket[] = [];
  const server: Server = createServer((s) => { sockets.push(s); });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}`,
    close: () => { for (const s of sockets) s.destroy(); return new Promise((r) => server.close(() => r())); },
  };
}

/** reset() on `url` with short budgets: the error, the progress lines and how long it took. */
async function failedReset(url: string): Promise<{ err: Error; lines: string[]; ms: number }> {
  const bundle = writeRemoteBundle(url, {
    connect_timeout_ms: 300, reconnect: { initial_ms: 100, max_ms: 200, give_up_s: 1.5 },
  });
  const lines: string[] = [];
  const policy = loadRemotePolicy(bundle, { robot, onProgress: (l) => lines.push(l) });
  const t0 = performance.now();
  try {
    const err = await policy.reset(episode).then(() => null, (e: Error) => e);
    assert.ok(err, "reset() rejects");
    return { err, lines, ms: performance.now() - t0 };
  } finally {
    await policy.close();
    rmSync(bundle, { recursive: true, force: true });
  }
}

const QUICK = { timeout: 20_000 };

test("no metadata frame from the server: reset() fails within give_up_s naming the URL", QUICK, async () => {
  const server = await silentServer();
  try {
    const { err, lines, ms } = await failedReset(server.url);
    assert.ok(ms < 3000, `failed after ${ms.toFixed(0)} ms, give_up_s is 1.5`);
    const cause = `policy server ${server.url} unreachable: no metadata frame within 300 ms (connect_timeout_ms)`;
    assert.ok(err.message.includes(cause), err.message);
    assert.match(err.message, /gave up after 2 s \(reconnect\.give_up_s\)/);
    assert.ok(server.connections >= 2, `retried: ${server.connections} connection(s)`);
    const shown = lines.join("\n");
    assert.ok(lines.some((l) => l.startsWith(`waiting for policy server ${server.url}: metadata frame`)), shown);
    assert.ok(lines.some((l) => l.includes("no metadata frame within 300 ms") && /retrying in \d+ ms/.test(l)), shown);
  } finally {
    await server.stop();
  }
});

test("no answer to the websocket upgrade: reset() fails naming the URL and the upgrade", QUICK, async () => {
  const listener = await mute();
  try {
    const { err, ms } = await failedReset(listener.url);
    assert.ok(ms < 3000, `failed after ${ms.toFixed(0)} ms`);
    const upgrade = "websocket upgrade (TCP connect, TLS, HTTP upgrade)";
    const cause = `policy server ${listener.url} unreachable: no ${upgrade} within 300 ms`;
    assert.ok(err.message.includes(cause), err.message);
  } finally {
    await listener.close();
  }
});

test("a request's deadline covers the reconnect it waits for: timeout_ms, naming the stage", QUICK, async () => {
  const server = await silentServer();
  const conn = new PolicyConnection({
    url: server.url, timeoutMs: 300, connectTimeoutMs: 5000, reconnect: { initialMs: 100, maxMs: 200 },
  });
  try {
    const t0 = performance.now();
    const err = await conn.request({ op: "observe" }, "observe").then(() => null, (e: Error) => e);
    const ms = performance.now() - t0;
    assert.ok(err, "the request rejects");
    assert.ok(ms < 1000, `rejected after ${ms.toFixed(0)} ms, timeout_ms is 300`);
    const cause = "observe: no connection within 300 ms (timeout_ms; awaiting the metadata frame)";
    assert.equal(err.message, `policy server ${server.url}: ${cause}`);
  } finally {
    conn.close();
    await server.stop();
  }
});

test("engram run, no metadata frame: exit 1 naming the URL, progress printed", { timeout: 120_000 }, async () => {
  const server = await silentServer();
  const bundle = writeRemoteBundle(server.url, {
    connect_timeout_ms: 500, reconnect: { initial_ms: 100, max_ms: 300, give_up_s: 3 },
  });
  try {
    const run = startRun(join(tmp, "run"), bundle, 2);
    const timer = setTimeout(() => run.child.kill("SIGKILL"), 100_000);
    const exit = await run.exited;
    clearTimeout(timer);
    assert.equal(exit.code, 1, exit.stderr);
    const waiting = `[remote] waiting for policy server ${server.url}: metadata frame`;
    assert.ok(exit.stderr.includes(waiting), exit.stderr);
    const aborted = exit.stderr.split("\n").find((l) => l.startsWith("[run] aborted in episode 0: ")) ?? "";
    assert.ok(aborted.includes(`policy server ${server.url} unreachable: no metadata frame within 500 ms`), exit.stderr);
  } finally {
    rmSync(bundle, { recursive: true, force: true });
    await server.stop();
  }
});
