/** Planner gating, scripted/oracle planners, and the openai planner against a local chat-completions server. */
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import sharp from "sharp";
import { plannerContext, shouldCallPlanner, type MemoryComplexity } from "../../src/policy/planner/gating.js";
import { ScriptedPlanner } from "../../src/policy/planner/scripted.js";
import { OraclePlanner } from "../../src/policy/planner/oracle.js";
import { OpenAIPlanner, parseNextSubtask } from "../../src/policy/planner/openai.js";
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

test("scripted planner walks the list by finished count, then fails", async () => {
  const p = new ScriptedPlanner(["pick up the block", "place the block on the plate"]);
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

test("openai planner: normal answer, Mem-0 prompt with images as base64 JPEG data URLs", async () => {
  requests = [];
  behaviour = (_r, res) => reply(res, "next_subtask: place the block on the plate.");
  const a = await planner({ timeoutMs: 5000 }).next(ctx());
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
  assert.equal(a.subtask, "press the button");
  assert.equal(requests.length, 2);
});

test("openai planner: 500 then success, with exponential backoff between attempts", async () => {
  requests = [];
  const sleeps: number[] = [];
  behaviour = ({ n }, res) => { if (n < 3) { res.writeHead(500); res.end("overloaded"); } else reply(res, "next_subtask: swap the blocks."); };
  const a = await planner({ backoffMs: 40, sleep: async (ms) => { sleeps.push(ms); } }).next(ctx());
  assert.equal(a.subtask, "swap the blocks");
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

test("openai planner: connection refused → network failure", async () => {
  await assert.rejects(new OpenAIPlanner({ url: "http://127.0.0.1:1", model: "m", retries: 1, backoffMs: 1 }).next(ctx()),
    (e: unknown) => e instanceof PlannerFailure && e.kind === "network");
});
