/**
 * OpenAI-compatible planner (vLLM or any `/v1/chat/completions` server) with Mem-0's prompt: system
 * text; global task; initial image; each finished subtask with its end image (base64 JPEG data URLs
 * via sharp). The answer must contain `next_subtask: <text>.`. Each attempt has a timeout
 * (AbortController); timeouts, network errors, HTTP 429 and 5xx are retried with exponential backoff;
 * other HTTP errors and unparseable answers fail at once. Failures reject with a PlannerFailure.
 */
import sharp from "sharp";
import { PlannerFailure, type Planner, type PlannerAnswer, type PlannerContext } from "./types.js";

/** Planner config (run config `planner:` block). */
export interface OpenAIPlannerOptions {
  /** Server base URL, e.g. http://127.0.0.1:8000 (the path /v1/chat/completions is appended). */
  url: string;
  model: string;
  apiKey?: string;
  /** Per-attempt timeout, ms. Default 20000. */
  timeoutMs?: number;
  /** Retries after the first attempt. Default 2. */
  retries?: number;
  /** First backoff, ms; doubles each retry. Default 500. */
  backoffMs?: number;
  /** Longest image side sent, px. Default 448. */
  maxImageSide?: number;
  maxTokens?: number;
  /** Injected for tests; defaults to global fetch / setTimeout. */
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
}

/** Mem-0 planner system prompt. */
export const MEM0_SYSTEM_PROMPT =
  "You are the high-level planner of a robot manipulation system. You are given the global task, an image of the " +
  "initial scene, and the subtasks already finished, each with an image taken when it ended. Decide which subtask " +
  "the robot should execute next. Reply with exactly one line of the form: next_subtask: <subtask>.";

type ContentPart = { type: "text"; text: string } | { type: "image_url"; image_url: { url: string } };

/** JPEG bytes → `data:image/jpeg;base64,...`, resized to fit `maxSide` (never enlarged). */
export async function jpegDataUrl(jpeg: Uint8Array, maxSide: number): Promise<string> {
  const out = await sharp(jpeg).resize({ width: maxSide, height: maxSide, fit: "inside", withoutEnlargement: true }).jpeg({ quality: 85 }).toBuffer();
  return `data:image/jpeg;base64,${out.toString("base64")}`;
}

/** The chat messages of Mem-0's planner prompt. */
export async function mem0Messages(ctx: PlannerContext, maxSide = 448): Promise<{ role: string; content: string | ContentPart[] }[]> {
  const content: ContentPart[] = [
    { type: "text", text: `Global task: ${ctx.globalTask}` },
    { type: "text", text: "Initial scene:" },
    { type: "image_url", image_url: { url: await jpegDataUrl(ctx.initialImageJpeg, maxSide) } },
  ];
  for (const [i, f] of ctx.finished.entries()) {
    content.push({ type: "text", text: `Finished subtask ${i + 1}: ${f.subtask}` });
    content.push({ type: "image_url", image_url: { url: await jpegDataUrl(f.endImageJpeg, maxSide) } });
  }
  content.push({ type: "text", text: ctx.finished.length === 0 ? "No subtask has been finished yet. What is the next subtask?" : "What is the next subtask?" });
  return [{ role: "system", content: MEM0_SYSTEM_PROMPT }, { role: "user", content }];
}

/** Extracts the subtask from an answer (case/whitespace tolerant); null when absent or empty. */
export function parseNextSubtask(answer: string): string | null {
  const m = /next[_ ]subtask\s*:\s*([^\n]*)/i.exec(answer);
  if (!m) return null;
  const text = m[1].trim().replace(/^["'`]|["'`]$/g, "").replace(/\.+\s*$/, "").trim();
  return text === "" ? null : text;
}

/** The `openai` planner. */
export class OpenAIPlanner implements Planner {
  private readonly fetch: typeof fetch;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly opts: OpenAIPlannerOptions) {
    this.fetch = opts.fetch ?? fetch;
    this.sleep = opts.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
  }

  async next(ctx: PlannerContext): Promise<PlannerAnswer> {
    const t0 = performance.now();
    const endpoint = `${this.opts.url.replace(/\/+$/, "")}/v1/chat/completions`;
    const body = JSON.stringify({
      model: this.opts.model, temperature: 0, max_tokens: this.opts.maxTokens ?? 64,
      messages: await mem0Messages(ctx, this.opts.maxImageSide ?? 448),
    });
    const attempts = 1 + (this.opts.retries ?? 2);
    const timeoutMs = this.opts.timeoutMs ?? 20000;
    let lastError = "";
    let lastKind: "timeout" | "http" | "network" = "network";
    for (let attempt = 1; attempt <= attempts; attempt++) {
      if (attempt > 1) await this.sleep((this.opts.backoffMs ?? 500) * 2 ** (attempt - 2));
      const outcome = await this.attempt(endpoint, body, timeoutMs);
      if (outcome.kind === "answer") {
        const subtask = parseNextSubtask(outcome.text);
        const latencyMs = performance.now() - t0;
        if (subtask === null) {
          throw new PlannerFailure("garbage", `planner ${endpoint}: answer ${JSON.stringify(outcome.text.slice(0, 300))} has no "next_subtask: <text>."`, attempt, latencyMs);
        }
        return { subtask, latencyMs };
      }
      lastKind = outcome.kind;
      lastError = outcome.message;
      if (!outcome.retry) throw new PlannerFailure(outcome.kind, `planner ${endpoint}: ${outcome.message}`, attempt, performance.now() - t0);
    }
    throw new PlannerFailure(lastKind, `planner ${endpoint}: gave up after ${attempts} attempts; last: ${lastError}`, attempts, performance.now() - t0);
  }

  private async attempt(endpoint: string, body: string, timeoutMs: number): Promise<
    { kind: "answer"; text: string } | { kind: "timeout" | "http" | "network"; message: string; retry: boolean }
  > {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), timeoutMs);
    try {
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (this.opts.apiKey) headers.authorization = `Bearer ${this.opts.apiKey}`;
      const res = await this.fetch(endpoint, { method: "POST", headers, body, signal: abort.signal });
      const text = await res.text();
      if (!res.ok) {
        return { kind: "http", message: `HTTP ${res.status} ${text.slice(0, 200)}`, retry: res.status === 429 || res.status >= 500 };
      }
      let content: unknown;
      try {
        content = (JSON.parse(text) as { choices?: { message?: { content?: unknown } }[] }).choices?.[0]?.message?.content;
      } catch {
        return { kind: "answer", text };
      }
      return { kind: "answer", text: typeof content === "string" ? content : text };
    } catch (err) {
      if (abort.signal.aborted) return { kind: "timeout", message: `no answer within ${timeoutMs} ms`, retry: true };
      return { kind: "network", message: (err as Error).message, retry: true };
    } finally {
      clearTimeout(timer);
    }
  }
}
