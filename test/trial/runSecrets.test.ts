/**
 * What a run writes when its peers are hostile: a planner server that echoes the Authorization
 * header back (in an answer, in an error body) leaves the key in no file, recording or stderr line;
 * a 10 MB answer is a planner failure, and no log copies it; a policy server that quotes its token
 * in a 100 KB error leaves neither the token nor the 100 KB in the run folder.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { WebSocketServer } from "ws";
import { stringify } from "yaml";
import { loadRunConfig } from "../../src/config/loaders.js";
import { decodeFrame, encodeFrame, type WireValue } from "../../src/policy/remote/wire.js";
import { DEFAULT_EPISODE_RECORDING } from "../../src/record/episodeWriter.js";
import { loadRobotProfile } from "../../src/robot/loadRobotProfile.js";
import { runTrial } from "../../src/app/runTrial.js";
import { jsonl, readEpisode } from "../cli/runHarness.js";
import { REMOTE_METADATA, writeRemoteBundle } from "../policy/remoteBundle.js";

const REPO = new URL("../../", import.meta.url).pathname;
const KEY_ENV = "ENGRAM_TEST_PLANNER_KEY";
const KEY = "sk-engram-test-7f3a9c2e51b04d86e0";
const KEY_FORMS = [KEY, Buffer.from(KEY).toString("base64").replace(/=+$/, "")];
const tmp = mkdtempSync(join(tmpdir(), "engram-planner-secrets-"));
after(() => rmSync(tmp, { recursive: true, force: true }));

type Reply = (n: number, req: IncomingMessage, res: ServerResponse) => void;

/** A chat-completions server on 127.0.0.1 answering each request (numbered from 1) with `reply`. */
async function plannerServer(reply: Reply): Promise<{ url: string; server: Server }> {
  let n = 0;
  const server = createServer((req, res) => { req.resume(); req.on("end", () => reply(++n, req, res)); });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, server };
}

/** A twin run config with the openai planner at `url` (press-button is M(n): it is asked at each episode start). */
function runConfig(name: string, url: string): string {
  const path = join(tmp, `${name}.yaml`);
  const planner = { kind: "openai", url, model: "m", api_key_env: KEY_ENV, timeout_ms: 5000, retries: 0 };
  writeFileSync(path, stringify({
    name, robot: join(REPO, "robots/x-one.yaml"), bus: { kind: "local" },
    sim: { enabled: true, mode: "lockstep", seed: 0 }, task: "press-button", episodes: 3,
    policy: { bundle: join(REPO, "policies/test-tiny"), planner },
    control: { control_hz: 10 }, record: { enabled: true },
  }));
  return path;
}

/** Every file under `dir` (recursively), as bytes. */
function filesUnder(dir: string): Array<[string, Buffer]> {
  return readdirSync(dir, { recursive: true, encoding: "utf8" }).map((rel) => join(dir, rel))
    .filter((p) => statSync(p).isFile()).map((p) => [p, readFileSync(p)]);
}

test("a planner server echoing the Authorization header: no run file, MCAP byte or stderr line holds the key", {
  timeout: 150_000,
}, async () => {
  // Answer 1 names the header as the subtask; every later request is refused, the header quoted in the body.
  const { url, server } = await plannerServer((n, req, res) => {
    const auth = String(req.headers.authorization);
    const echoed = `${auth} ${Buffer.from(KEY).toString("base64")}`;
    if (n === 1) {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ choices: [{ message: { content: `next_subtask: ${echoed}.` } }] }));
    } else {
      res.statusCode = 401;
      res.end(JSON.stringify({ error: { message: "invalid key", authorization: echoed } }));
    }
  });
  const out = join(tmp, "echo");
  try {
    // Uncompressed chunks: the MCAP's bytes are searched as they are.
    const args = ["--import", "tsx", "src/cli.ts", "run", runConfig("echo", url), "--out", out];
    args.push("--compression", "none");
    const env = { ...process.env, [KEY_ENV]: KEY };
    const child = spawn(process.execPath, args, { cwd: REPO, stdio: ["ignore", "pipe", "pipe"], env });
    let stderr = "", stdout = "";
    child.stderr.on("data", (c) => { stderr += String(c); });
    child.stdout.on("data", (c) => { stdout += String(c); });
    const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
    const code = await new Promise<number | null>((r) => child.on("exit", (c) => r(c)));
    clearTimeout(timer);

    // The server's echoes did reach the logs (redacted): the test sees the paths a key would leak by.
    const events = jsonl(join(out, "events.jsonl"));
    const call = events.find((e) => e.event === "planner_call");
    assert.ok(call && String(call.answer).includes("Bearer [redacted] [redacted]"), JSON.stringify(call));
    const refused = /HTTP 401 .*\[redacted\]/;
    assert.ok(events.some((e) => e.event === "planner_failure" && refused.test(String(e.reason))), stderr);
    type Aborted = { aborted: { reason: string } | null };
    const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as Aborted;
    assert.match(summary.aborted?.reason ?? "", refused, "the run stops on the second refusal in a row");
    assert.match(stderr, /\[run\] aborted in episode 2: planner failed: .*HTTP 401 .*\[redacted\]/);
    assert.notEqual(code, 0, stderr);
    const mcapEvents = (await readEpisode(join(out, "episodes", "0.mcap"))).events;
    assert.ok(mcapEvents.some((e) => e.event === "planner_call"), "the recording holds the events");

    const streams: Array<[string, Buffer]> = [["stderr", Buffer.from(stderr)], ["stdout", Buffer.from(stdout)]];
    const written = [...filesUnder(out), ...streams];
    for (const want of ["summary.json", "events.jsonl", "report.md", "episodes.jsonl", "0.mcap", "1.mcap", "2.mcap"]) {
      assert.ok(written.some(([p]) => p.endsWith(want)), `${want} was written`);
    }
    for (const [path, bytes] of written) {
      for (const form of KEY_FORMS) assert.equal(bytes.indexOf(form), -1, `${path} holds the planner key (${form})`);
    }
  } finally {
    server.close();
  }
});

test("a 10 MB planner answer: a planner failure quoting a bounded excerpt; events.jsonl stays small", {
  timeout: 150_000,
}, async () => {
  const answer = `next_subtask: ${"press the button ".repeat((10 * 2 ** 20) / 17)}.`;
  const { url, server } = await plannerServer((_n, _req, res) => {
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ choices: [{ message: { content: answer } }] }));
  });
  const out = join(tmp, "huge");
  const saved = process.env[KEY_ENV];
  process.env[KEY_ENV] = KEY;
  try {
    const run = loadRunConfig(runConfig("huge", url));
    const robot = loadRobotProfile(run.robotPath);
    const summary = await runTrial({
      run, robot, policyPath: run.bundlePath!, task: "press-button", episodes: 3, seed: 0, outDir: out, maxSteps: 20,
    });
    assert.equal(summary.episodes, 2, "a dead planner stops the run at its second episode in a row");
    const events = jsonl(join(out, "events.jsonl"));
    const failures = events.filter((e) => e.event === "planner_failure");
    assert.equal(failures.length, 2, JSON.stringify(events.map((e) => e.event)));
    for (const f of failures) {
      assert.match(String(f.reason), /answer names a subtask of \d{8} characters, expected at most 512: /);
      assert.match(String(f.reason), /: "press the button .*\.\.\. \[\d+ bytes dropped\]"$/);
    }
    assert.ok(!events.some((e) => e.event === "planner_call"), "no answer was accepted");
    for (const file of ["events.jsonl", "summary.json", "episodes.jsonl"]) {
      const bytes = statSync(join(out, file)).size;
      assert.ok(bytes < 64 * 1024, `${file} is ${bytes} bytes`);
    }
  } finally {
    if (saved === undefined) delete process.env[KEY_ENV]; else process.env[KEY_ENV] = saved;
    server.close();
  }
});

/** `body` with the process environment holding `vars` (restored after). */
async function withEnv<T>(vars: Record<string, string>, body: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  Object.assign(process.env, vars);
  try {
    return await body();
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

test("a policy server quoting its token in a 100 KB refusal: no run file holds the token; the error is cut to 2 KB", {
  timeout: 150_000,
}, async () => {
  const token = "tok-remote-5e2d8c41a9f0";
  // A mem0 server that accepts reset and set_instruction and refuses every observe, echoing the header.
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise<void>((r) => wss.once("listening", r));
  wss.on("connection", (ws, req) => {
    ws.send(encodeFrame({ protocol: "mem0", version: 1, ...REMOTE_METADATA }));
    ws.on("message", (data) => {
      const op = String((decodeFrame(new Uint8Array(data as Buffer)) as { op?: WireValue }).op);
      const refusal = `${String(req.headers.authorization)} is not allowed to observe; ${"x".repeat(100_000)}`;
      ws.send(encodeFrame(op === "observe" ? { ok: false, error: refusal } : { ok: true }));
    });
  });
  const url = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`;
  const bundle = writeRemoteBundle(url, { token_env: "ENGRAM_TEST_POLICY_TOKEN" });
  const out = join(tmp, "remote");
  try {
    const run = loadRunConfig(join(REPO, "launch/sim-x-one.yaml"));
    const summary = await withEnv({ ENGRAM_TEST_POLICY_TOKEN: token }, () => runTrial({
      run, robot: loadRobotProfile(run.robotPath), policyPath: bundle, task: "put-back-block", episodes: 2, seed: 0,
      outDir: out, maxSteps: 10, recording: { ...DEFAULT_EPISODE_RECORDING, compression: "none" },
    }));
    assert.equal(summary.episodes, 2, "a remote fault ends its episode, not the run");
    const events = jsonl(join(out, "events.jsonl"));
    const faults = events.filter((e) => e.event === "remote_fault");
    assert.equal(faults.length, 2, JSON.stringify(events.map((e) => e.event)));
    for (const f of faults) {
      assert.match(String(f.reason), /refused observe: Api-Key \[redacted\] is not allowed to observe; x+/);
      assert.match(String(f.reason), /x\.\.\. \[\d+ bytes dropped\]$/);
    }
    assert.ok(statSync(join(out, "events.jsonl")).size < 64 * 1024, "events.jsonl holds no 100 KB copy");
    for (const [path, bytes] of filesUnder(out)) {
      assert.equal(bytes.indexOf(token), -1, `${path} holds the policy token`);
    }
  } finally {
    rmSync(bundle, { recursive: true, force: true });
    for (const c of wss.clients) c.terminate();
    await new Promise<void>((r) => wss.close(() => r()));
  }
});
