/**
 * The Python reference server (`python -m engram_ml serve`) against hostile or careless clients
 * (issue 27), driven over real sockets from here: a second client is refused at once ("busy"), an
 * oversized frame and a stalled handshake are dropped quickly, a request that is not a map with a
 * known op (or a field of the wrong type, bytes for `text`) gets a short refusal, an unexpected
 * exception reaches the client without a traceback or server paths, a wrong token gets HTTP 401.
 * Skips where the project's Python (src/policy/remote/python.ts) lacks torch, websockets, msgpack or yaml.
 */
// Runs alone (scripts/test.sh): it measures wall time.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { connect as tcpConnect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import WebSocket from "ws";
import { pythonServerMissing, startPolicyServer } from "../../src/policy/remote/localServer.js";
import { projectPython, pythonOptions } from "../../src/policy/remote/python.js";
import type { LocalServer } from "../../src/policy/remote/localServer.js";
import { PolicyConnection } from "../../src/policy/remote/PolicyConnection.js";
import { decodeFrame, encodeFrame, f32Array, type WireValue } from "../../src/policy/remote/wire.js";

const missing = pythonServerMissing();
const TOKEN = "guard-s3cret";
const ENV = { ENGRAM_TEST_POLICY_TOKEN: TOKEN };
let dir = "";
let server: LocalServer | null = null;

before(async () => {
  if (missing) return;
  dir = mkdtempSync(join(tmpdir(), "engram-server-guards-"));
  const checkpoint = join(dir, "tiny.pt");
  const args = ["-m", "engram_ml.mem0_tiny.tiny_checkpoint", "policies/mem0-tiny/policy.yaml", checkpoint];
  const r = spawnSync(projectPython(), args, { ...pythonOptions(), encoding: "utf8" });
  if (r.status !== 0) throw new Error(`engram_ml.mem0_tiny.tiny_checkpoint failed: ${r.stderr}`);
  server = await startPolicyServer([
    "--checkpoint", checkpoint, "--port", "0", "--token-env", "ENGRAM_TEST_POLICY_TOKEN",
    "--max-frame-mb", "1", "--open-timeout-s", "1",
  ], ENV);
});
after(async () => {
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

type Frame = WireValue | string;
interface Closed { code: number; reason: string; atMs: number }

interface Client {
  ws: WebSocket;
  /** Frames in arrival order: decoded binary frames, text frames as strings. */
  next(): Promise<Frame>;
  closed: Promise<Closed>;
  /** The HTTP status of a refused upgrade. */
  refused: Promise<number>;
}

/** A raw websocket client of the server (`token` null: no Authorization header). */
function client(token: string | null = TOKEN): Client {
  const headers = token === null ? {} : { Authorization: `Api-Key ${token}` };
  const ws = new WebSocket(server!.url, { headers, perMessageDeflate: false });
  const frames: Array<Frame> = [];
  const waiters: Array<(f: Frame) => void> = [];
  ws.on("message", (data, isBinary) => {
    const f = isBinary ? decodeFrame(new Uint8Array(data as Buffer)) : String(data);
    const w = waiters.shift();
    if (w) w(f); else frames.push(f);
  });
  ws.on("error", () => undefined);
  const closed = new Promise<Closed>((r) => {
    ws.on("close", (code, reason) => r({ code, reason: String(reason), atMs: performance.now() }));
  });
  const refused = new Promise<number>((r) => ws.on("unexpected-response", (_req, res) => r(res.statusCode ?? 0)));
  const next = () => (frames.length ? Promise.resolve(frames.shift()!) : new Promise<Frame>((r) => waiters.push(r)));
  return { ws, next, closed, refused };
}

/** The client's own connection class, with `token`. */
function connection(token: string): PolicyConnection {
  const reconnect = { initialMs: 100, maxMs: 200 };
  return new PolicyConnection({ url: server!.url, token, timeoutMs: 1000, connectTimeoutMs: 5000, reconnect });
}

/** A client past the metadata frame. */
async function served(): Promise<Client> {
  const c = client();
  const meta = await within(c.next(), 5000, "the metadata frame");
  assert.equal((meta as { protocol?: string }).protocol, "mem0");
  return c;
}

async function ask(c: Client, frame: WireValue): Promise<Frame> {
  c.ws.send(encodeFrame(frame));
  return within(c.next(), 5000, "a reply");
}

/** `body` with a served client, which leaves (the server free again) whatever happens. */
async function withClient(body: (c: Client) => Promise<void>): Promise<void> {
  const c = await served();
  try {
    await body(c);
  } finally {
    await leave(c);
  }
}

async function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no ${what} within ${ms} ms`)), ms);
  });
  try { return await Promise.race([p, late]); } finally { clearTimeout(timer); }
}

/** Closes `c` and waits until the server takes a new client (its close is processed). */
async function leave(c: Client): Promise<void> {
  c.ws.close();
  await c.closed;
  for (let i = 0; i < 50; i++) {
    const probe = client();
    const first = await Promise.race([probe.next(), probe.closed]);
    probe.ws.close();
    await probe.closed;
    if (typeof first === "object" && first !== null && "protocol" in first) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("the server stayed busy after its client left");
}

const opts = { skip: missing ?? false, timeout: 30_000 };

test("a second client while one is served: closed at once with 1013 busy; the first goes on", opts, async () => {
  await withClient(async (first) => {
    const t0 = performance.now();
    const second = client();
    const closed = await within(second.closed, 2000, "close of the second client");
    assert.equal(closed.code, 1013);
    assert.match(closed.reason, /^busy: serving another client/);
    assert.ok(closed.atMs - t0 < 1500, `closed after ${(closed.atMs - t0).toFixed(0)} ms`);
    const conn = connection(TOKEN);
    const busy = /unreachable: closed before the metadata frame \(code 1013: busy: serving another client/;
    await assert.rejects(conn.open(), busy);
    conn.close();
    assert.deepEqual(await ask(first, { op: "reset", seed: 1, episode: 0, complexity: "M(n)" }), { ok: true });
  });
});

test("a frame over --max-frame-mb is refused with 1009 before it is read", opts, async () => {
  await withClient(async (c) => {
    const t0 = performance.now();
    c.ws.send(new Uint8Array(4 * 2 ** 20));
    const closed = await within(c.closed, 3000, "close after an oversized frame");
    assert.equal(closed.code, 1009);
    assert.ok(closed.atMs - t0 < 2000, `closed after ${(closed.atMs - t0).toFixed(0)} ms`);
  });
});

test("a request not a map with a known op: a short refusal, no traceback or paths; the connection stays", opts, async () => {
  await withClient(async (c) => {
    const cases: Array<[WireValue, RegExp]> = [
      [5, /^request is a msgpack int, expected a map/], [[1, 2], /^request is a msgpack array, expected a map/],
      ["observe", /^request is a msgpack str, expected a map/], [null, /^request is a msgpack nil, expected a map/],
      [new Uint8Array([1, 2, 3]), /^request is a msgpack bin, expected a map/],
      [{ op: "explode" }, /^unknown op 'explode' \(known: reset, set_instruction, observe, act/],
      [{ op: 7 }, /^unknown op of msgpack type int/],
      [{ op: "reset", seed: "5" }, /^reset: field 'seed' is a msgpack str, expected int/],
      [{ op: "reset", seed: 1, complexity: "M(2)" }, /^reset: complexity 'M\(2\)', expected one of M\(1\), M\(n\)/],
      [{ op: "observe", images: 3 }, /^observe: field 'images' is a msgpack int, expected map/],
    ];
    for (const [frame, want] of cases) {
      const reply = await ask(c, frame) as { ok?: boolean; error?: string };
      assert.equal(reply.ok, false, JSON.stringify(reply));
      assert.match(String(reply.error), want);
      assert.doesNotMatch(String(reply.error), /Traceback|\.py\b|\/servers\//);
    }
    assert.deepEqual(await ask(c, { op: "reset", seed: 1, episode: 0, complexity: "M(n)" }), { ok: true });
  });
});

test("set_instruction with bytes for text is refused, not read as \"b'...'\"; a str goes through", opts, async () => {
  await withClient(async (c) => {
    const reply = await ask(c, { op: "set_instruction", text: new TextEncoder().encode("press the button") });
    assert.deepEqual(reply, { ok: false, error: "set_instruction: field 'text' is a msgpack bin, expected str" });
    assert.deepEqual(await ask(c, { op: "set_instruction", text: "press the button" }), { ok: true });
  });
});

test("an unexpected exception: a short text frame, no traceback or server paths, then close 1011", opts, async () => {
  await withClient(async (c) => {
    await ask(c, { op: "reset", seed: 1, episode: 0, complexity: "M(n)" });
    // openpi infer with a batched state: the adapter's model fails inside torch (not a refusal it foresaw).
    const image = f32Array(new Float32Array(3 * 24 * 32), [3, 24, 32]);
    const reply = await ask(c, {
      prompt: "press the button",
      "observation/head": image, "observation/left_wrist": image, "observation/right_wrist": image,
      "observation/state": f32Array(new Float32Array(32), [2, 16]),
  });
  assert.equal(typeof reply, "string", `a text frame, got ${JSON.stringify(reply)}`);
  assert.match(reply as string, /^internal error: \w+: .*\(the traceback is in the server's log\)$/);
  assert.doesNotMatch(reply as string, /Traceback|File "|\.py\b|\/usr\/|\/servers\//);
  assert.equal((await within(c.closed, 2000, "close")).code, 1011);
  assert.match(server!.stderr(), /Traceback/, "the traceback went to the server's log");
  });
});

test("a wrong or missing token gets HTTP 401 (constant-time comparison); the right one is served", opts, async () => {
  for (const token of ["guard-s3creT", "", null, `${TOKEN}x`, "é".repeat(12)]) {
    assert.equal(await within(client(token).refused, 3000, `refusal of token ${JSON.stringify(token)}`), 401);
  }
  const conn = connection("wrong");
  await assert.rejects(conn.open(), /HTTP 401 on the websocket upgrade \(token missing or wrong\)/);
  conn.close();
  await leave(await served());
});

test("a handshake sent a byte at a time is dropped after --open-timeout-s", opts, async () => {
  const { port } = new URL(server!.url);
  const socket = tcpConnect(Number(port), "127.0.0.1");
  const t0 = performance.now();
  const closedMs = new Promise<number>((r) => socket.on("close", () => r(performance.now() - t0)));
  socket.on("error", () => undefined);
  const request = `GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n`;
  let i = 0;
  const drip = setInterval(() => { if (i < request.length && !socket.destroyed) socket.write(request[i++]!); }, 100);
  try {
    const ms = await within(closedMs, 5000, "the server dropping the stalled handshake");
    assert.ok(ms >= 900 && ms < 3000, `dropped after ${ms.toFixed(0)} ms (--open-timeout-s 1)`);
  } finally {
    clearInterval(drip);
    socket.destroy();
  }
  await leave(await served());
});
