/** Planner gating, the oracle-list/oracle planners, and the openai planner against a local chat-completions server. */
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import sharp from "sharp";
import { plannerContext, shouldCallPlanner, type MemoryComplexity } from "../../src/policy/planner/gating.js";
import { OracleListPlanner } from "../../src/policy/planner/oracleList.js";
import { OraclePlanner } from "../../src/policy/planner/oracle.js";
import { chatCompletionsUrl, MAX_SUBTASK_CHARS, networkCause, OpenAIPlanner } from "../../src/policy/planner/openai.js";
import { DEFAULT_SYSTEM_PROMPT, parseMem0Answer, parseNextSubtask } from "../../src/policy/planner/prompt.js";
import { PlannerFailure, type PlannerContext } from "../../src/policy/planner/types.js";

test("planner calls = 1 + declared ends on M(n), 0 on M(1)", () => {
  const ends = [false, false, true, false, true, false, false, true, false];
  for (const [complexity, want] of [["M(n)", 1 + 3], ["M(1)", 0]] as [MemoryComplexity, number][]) {
    let calls = shouldCallPlanner(complexity, { kind: "episode_start" }) ? 1 : 0;
    for (const subtaskEnded of ends) if (shouldCallPlanner(complexity, { kind: "tick", subtaskEnded })) calls++;
    assert.equal(calls, want, complexity);
  }
});

test("key memory off hides finished subtasks from the planner", () => {
  const img = new Uint8Array([1]);
  const finished = [{ subtask: "a", endImageJpeg: img }];
  assert.equal(plannerContext("task", img, finished, true).finished.length, 1);
  assert.equal(plannerContext("task", img, finished, false).finished.length, 0);
});

test("oracle-list planner walks the list by finished count, then fails", async () => {
  const p = new OracleListPlanner(["pick up the block", "place the block on the plate"]);
  const img = new Uint8Array();
  const ctx = (n: number): PlannerContext => ({ globalTask: "t", initialImageJpeg: img, finished: Array.from({ length: n }, () => ({ subtask: "x", endImageJpeg: img })) });
  assert.equal((await p.next(ctx(0))).subtask, "pick up the block");
  assert.equal((await p.next(ctx(1))).subtask, "place the block on the plate");
  await assert.rejects(p.next(ctx(2)), (e: unknown) => e instanceof PlannerFailure && e.kind === "complete");
});

test("oracle planner answers the latest /sim/subtask value", async () => {
  const p = new OraclePlanner();
  const ctx: PlannerContext = { globalTask: "t", initialImageJpeg: new Uint8Array(), finished: [] };
  await assert.rejects(p.next(ctx), /no \/sim\/subtask value/);
  p.update("press the button");
  assert.equal((await p.next(ctx)).subtask, "press the button");
});

test("answer parsing tolerates case, whitespace, quotes and the period", () => {
  assert.equal(parseNextSubtask("next_subtask: pick up the block."), "pick up the block");
  assert.equal(parseNextSubtask("Sure!\n  NEXT_SUBTASK :   Press the button .  "), "Press the button");
  assert.equal(parseNextSubtask('next_subtask: "swap the blocks"'), "swap the blocks");
  assert.equal(parseNextSubtask("I think we should pick it up"), null);
  assert.equal(parseNextSubtask("next_subtask: ."), null);
});

// --- local chat-completions server -----------------------------------------------------------
type Behaviour = (req: { n: number; body: any }, res: ServerResponse) => void;
let server: Server;
let url: string;
let behaviour: Behaviour = () => {};
let requests: any[] = [];
let jpeg: Uint8Array;

const reply = (res: ServerResponse, content: string) => {
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify({ id: "x", object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }] }));
};

before(async () => {
  jpeg = await sharp({ create: { width: 640, height: 480, channels: 3, background: { r: 200, g: 30, b: 30 } } }).jpeg().toBuffer();
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let data = "";
    req.on("data", (c) => (data += c));
    req.on("end", () => {
      if (req.url !== "/v1/chat/completions" || req.method !== "POST") { res.writeHead(404); res.end(); return; }
      const body = JSON.parse(data);
      requests.push(body);
      behaviour({ n: requests.length, body }, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const ctx = (): PlannerContext => ({ globalTask: "put the block back where it was", initialImageJpeg: jpeg, finished: [{ subtask: "pick up the block", endImageJpeg: jpeg }] });
const planner = (extra: Partial<ConstructorParameters<typeof OpenAIPlanner>[0]> = {}) =>
  new OpenAIPlanner({ url, model: "mem0-planner", timeoutMs: 2000, retries: 2, backoffMs: 10, ...extra });

test("openai planner, chat format: normal answer, images as resized base64 JPEG data URLs", async () => {
  requests = [];
  behaviour = (_r, res) => reply(res, "next_subtask: place the block on the plate.");
  const a = await planner({ timeoutMs: 5000, prompt: "chat" }).next(ctx());
  assert.equal(a.subtask, "place the block on the plate");
  assert.ok(a.latencyMs >= 0);
  assert.equal(requests.length, 1);
  const body = requests[0];
  assert.equal(body.model, "mem0-planner");
  assert.equal(body.messages[0].role, "system");
  assert.match(body.messages[0].content, /next_subtask: <subtask>\./);
  const parts = body.messages[1].content;
  assert.deepEqual(parts.map((p: any) => p.type), ["text", "text", "image_url", "text", "image_url", "text"]);
  assert.match(parts[0].text, /put the block back where it was/);
  assert.match(parts[3].text, /Finished subtask 1: pick up the block/);
  const dataUrl: string = parts[2].image_url.url;
  assert.match(dataUrl, /^data:image\/jpeg;base64,/);
  const meta = await sharp(Buffer.from(dataUrl.split(",")[1], "base64")).metadata();
  assert.equal(meta.format, "jpeg");
  assert.equal(Math.max(meta.width!, meta.height!), 448, "resized to fit maxImageSide");
});

test("openai planner: slow server times out, the retry succeeds", async () => {
  requests = [];
  behaviour = ({ n }, res) => { if (n === 1) setTimeout(() => reply(res, "next_subtask: late."), 2500); else reply(res, "next_subtask: press the button."); };
  const a = await planner({ timeoutMs: 800 }).next(ctx());
  assert.equal(a.subtask, "press the button.");
  assert.equal(requests.length, 2);
});

test("openai planner: 500 then success, with exponential backoff between attempts", async () => {
  requests = [];
  const sleeps: number[] = [];
  behaviour = ({ n }, res) => { if (n < 3) { res.writeHead(500); res.end("overloaded"); } else reply(res, "next_subtask: swap the blocks."); };
  const a = await planner({ backoffMs: 40, sleep: async (ms) => { sleeps.push(ms); } }).next(ctx());
  assert.equal(a.subtask, "swap the blocks.");
  assert.deepEqual(sleeps, [40, 80]);
});

test("openai planner: always 500 → PlannerFailure after all attempts", async () => {
  requests = [];
  behaviour = (_r, res) => { res.writeHead(500); res.end("boom"); };
  await assert.rejects(planner().next(ctx()), (e: unknown) =>
    e instanceof PlannerFailure && e.kind === "http" && e.attempts === 3 && /gave up after 3 attempts; last: HTTP 500 boom/.test(e.message));
  assert.equal(requests.length, 3);
});

test("openai planner: always slow → timeout failure", async () => {
  requests = [];
  behaviour = (_r, res) => setTimeout(() => reply(res, "next_subtask: x."), 1000);
  await assert.rejects(planner({ timeoutMs: 100, retries: 1 }).next(ctx()), (e: unknown) => e instanceof PlannerFailure && e.kind === "timeout" && e.attempts === 2);
});

test("openai planner: 400 is not retried", async () => {
  requests = [];
  behaviour = (_r, res) => { res.writeHead(400); res.end("bad model"); };
  await assert.rejects(planner().next(ctx()), (e: unknown) => e instanceof PlannerFailure && e.kind === "http" && /HTTP 400 bad model/.test(e.message));
  assert.equal(requests.length, 1);
});

test("openai planner: garbage answer → failure naming the answer", async () => {
  requests = [];
  behaviour = (_r, res) => reply(res, "I would rather not say.");
  await assert.rejects(planner().next(ctx()), (e: unknown) =>
    e instanceof PlannerFailure && e.kind === "garbage" && e.message.includes('"I would rather not say."'));
});

test("openai planner: an error body echoing the key is quoted redacted, then cut to 200 bytes", async () => {
  requests = [];
  const key = "sk-echoed-9b41c7d2e0f8a356";
  // The key straddles the 200-byte cut: cutting before redacting would quote its first half.
  behaviour = (_r, res) => { res.writeHead(401); res.end(`${"x".repeat(180)}Bearer ${key}${"y".repeat(5000)}`); };
  const err = await planner({ apiKey: key, retries: 0 }).next(ctx()).catch((e: unknown) => e as PlannerFailure);
  assert.ok(err instanceof PlannerFailure && err.kind === "http", String(err));
  assert.ok(!err.message.includes(key.slice(0, 8)), err.message);
  assert.match(err.message, /HTTP 401 x{180}Bearer \[redacted\]y+\.\.\. \[\d{4} bytes dropped\]$/);
});

test("openai planner: an answer naming a subtask over MAX_SUBTASK_CHARS is garbage, quoted in part", async () => {
  requests = [];
  behaviour = (_r, res) => reply(res, `next_subtask: ${"a".repeat(MAX_SUBTASK_CHARS - 1)}.`);
  assert.equal((await planner().next(ctx())).subtask.length, MAX_SUBTASK_CHARS, "the longest subtask allowed");
  behaviour = (_r, res) => reply(res, `next_subtask: ${"a".repeat(100_000)}.`);
  const quoted = /subtask of 100001 characters, expected at most 512: "a{300}\.\.\. \[99701 bytes dropped\]"$/;
  await assert.rejects(planner().next(ctx()), (e: unknown) =>
    e instanceof PlannerFailure && e.kind === "garbage" && e.attempts === 1 && quoted.test(e.message));
});

test("openai planner: connection refused → network failure naming the cause", async () => {
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((r) => closed.close(r));
  await assert.rejects(new OpenAIPlanner({ url: `http://127.0.0.1:${port}/v1`, model: "m", retries: 1, backoffMs: 1 }).next(ctx()),
    (e: unknown) => e instanceof PlannerFailure && e.kind === "network" && new RegExp(`last: connection refused \\(connect ECONNREFUSED 127\\.0\\.0\\.1:${port}\\)`).test(e.message));
});

test("Mem-0 answer parsing: the text after the last next_subtask: up to the first period, plus the period", () => {
  assert.equal(parseMem0Answer("next_subtask: pick up the block."), "pick up the block.");
  assert.equal(parseMem0Answer("next_subtask: a. next_subtask: press the button. Then wait."), "press the button.");
  assert.equal(parseMem0Answer("next_subtask: open the drawer"), "open the drawer.");
  assert.equal(parseMem0Answer("NEXT_SUBTASK: pick"), null);
  assert.equal(parseMem0Answer("next_subtask: ."), null);
});

test("openai planner, Mem-0 format (the default): golden request body, sent as built, answer parsed the reference way", async () => {
  const png = async (url: string) => {
    assert.match(url, /^data:image\/png;base64,/);
    const m = await sharp(Buffer.from(url.split(",")[1]!, "base64")).metadata();
    return `<png ${m.format} ${m.width}x${m.height}>`;
  };
  const two: PlannerContext = { ...ctx(), finished: [{ subtask: "pick up the block", endImageJpeg: jpeg }, { subtask: "press the button", endImageJpeg: jpeg }] };
  const img = { type: "image_url", image_url: { url: "<png png 640x480>" } };
  const t = (text: string) => ({ type: "text", text });
  const golden = {
    model: "mem0-planner", max_tokens: 2048, temperature: 0,
    messages: [
      { role: "system", content: DEFAULT_SYSTEM_PROMPT },
      { role: "user", content: [
        t("<global_task>: put the block back where it was\n"), t("<initial_observation>: "), img, t(".\n"),
        t("<finished_subtasks>: "),
        t("0: pick up the blockThe corresponding image is: "), img, t(". "),
        t("1: press the buttonThe corresponding image is: "), img, t(".\n"),
      ] },
    ],
  };
  const withImages = async (body: any) => {
    for (const part of body.messages[1].content) if (part.type === "image_url") part.image_url.url = await png(part.image_url.url);
    return body;
  };
  requests = [];
  behaviour = (_r, res) => reply(res, "<think>the block is up</think> next_subtask: press the button. Done.");
  const a = await planner().next(two);
  assert.equal(a.subtask, "press the button.");
  assert.deepEqual(await withImages(requests[0]), golden, "the body on the wire");
  const none = await withImages(await planner({ systemPrompt: "You plan." }).requestBody({ ...ctx(), finished: [] }));
  assert.deepEqual(none.messages, [
    { role: "system", content: "You plan." },
    { role: "user", content: [t("<global_task>: put the block back where it was\n"), t("<initial_observation>: "), img, t(".\n"), t("finished_subtasks: null.\n")] },
  ]);
});

test("planner url: a base URL as OpenAI clients take it; credentials refused", () => {
  assert.equal(chatCompletionsUrl("http://127.0.0.1:8000/v1"), "http://127.0.0.1:8000/v1/chat/completions");
  assert.equal(chatCompletionsUrl("http://127.0.0.1:8000/v1/"), "http://127.0.0.1:8000/v1/chat/completions");
  assert.equal(chatCompletionsUrl("http://127.0.0.1:8000"), "http://127.0.0.1:8000/v1/chat/completions");
  assert.equal(chatCompletionsUrl("https://host/openai/v1"), "https://host/openai/v1/chat/completions");
  assert.equal(chatCompletionsUrl("http://h:1/v1/chat/completions"), "http://h:1/v1/chat/completions");
  assert.throws(() => chatCompletionsUrl("http://user:sk-secret@h:1/v1"), (e: Error) => /must not carry credentials/.test(e.message) && !e.message.includes("sk-secret"));
});

test("openai planner: a /v1 base URL reaches /v1/chat/completions; the key goes only into the Authorization header", async () => {
  requests = [];
  let auth: string | undefined;
  behaviour = (_r, res) => { res.writeHead(500); res.end("overloaded"); };
  const seen = server.listeners("request").length;
  server.prependListener("request", (req: IncomingMessage) => { auth = req.headers.authorization; });
  try {
    const err = await planner({ url: `${url}/v1`, apiKey: "sk-secret-123", retries: 0 }).next(ctx()).catch((e: unknown) => e as PlannerFailure);
    assert.equal(requests.length, 1, "the request reached /v1/chat/completions");
    assert.equal(auth, "Bearer sk-secret-123");
    assert.ok(err instanceof PlannerFailure && /HTTP 500 overloaded/.test(err.message));
    assert.ok(!err.message.includes("sk-secret-123") && !/bearer/i.test(err.message), err.message);
  } finally {
    const listeners = server.listeners("request");
    server.removeListener("request", listeners[0] as (...a: unknown[]) => void);
    assert.equal(server.listeners("request").length, seen);
  }
});

test("planner failures name the cause: connection refused, DNS, TLS", async () => {
  const dns = Object.assign(new TypeError("fetch failed"), { cause: Object.assign(new Error("getaddrinfo ENOTFOUND planner.lab"), { code: "ENOTFOUND" }) });
  assert.equal(networkCause(dns), "DNS lookup failed (getaddrinfo ENOTFOUND planner.lab)");
  // A real TLS handshake against the plain-HTTP test server.
  const tls = await new OpenAIPlanner({ url: url.replace("http:", "https:"), model: "m", retries: 0 }).next(ctx()).catch((e: unknown) => e as PlannerFailure);
  assert.ok(tls instanceof PlannerFailure && tls.kind === "network" && /TLS failure \(/.test(tls.message), String(tls));
});
