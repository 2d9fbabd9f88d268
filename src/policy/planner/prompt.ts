/**
 * The planner prompt formats (pure, apart from image encoding). `mem0` is the format a Mem-0
 * planner was fine-tuned on, to the letter (the reference `MemoryMattersPlanner.prepare_qwen_input`):
 * a VLM answers well only in the format it was trained on. `chat` is a plain instruction prompt for
 * general chat models.
 */
import { pngFromJpeg, resizeJpeg } from "../../msgs/image.js";
import type { PlannerContext } from "./types.js";

/** Prompt formats (run config `planner.prompt`). */
export type PromptFormat = "mem0" | "chat";

/** One part of a multimodal user message (OpenAI chat format). */
export type ContentPart = { type: "text"; text: string } | { type: "image_url"; image_url: { url: string } };
/** One chat message. */
export type ChatMessage = { role: "system" | "user"; content: string | ContentPart[] };

/** Default system prompt (run config `planner.system_prompt` replaces it). */
export const DEFAULT_SYSTEM_PROMPT =
  "You are the high-level planner of a robot manipulation system. You are given the global task, an image of the " +
  "initial scene, and the subtasks already finished, each with an image taken when it ended. Decide which subtask " +
  "the robot should execute next. Reply with exactly one line of the form: next_subtask: <subtask>.";

/**
 * Index of the first finished subtask in the mem0 format (`{i}: {subtask}...`). NOTE: the reference
 * enumerates its finished subtasks from 0 (Python's `enumerate`).
 */
const MEM0_FIRST_INDEX = 0;

/** Quality of a chat prompt's resized JPEGs (sharp). */
const PLANNER_RESIZE_JPEG_QUALITY = 85;

const base64 = (bytes: Uint8Array): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
const text = (t: string): ContentPart => ({ type: "text", text: t });
const image = (url: string): ContentPart => ({ type: "image_url", image_url: { url } });

/** JPEG bytes → `data:image/png;base64,...` at the camera's own size (what the mem0 planner saw in training). */
async function pngDataUrl(jpeg: Uint8Array): Promise<string> {
  return `data:image/png;base64,${base64(await pngFromJpeg(jpeg))}`;
}

/** JPEG bytes → `data:image/jpeg;base64,...`, resized to fit `maxSide` (never enlarged). */
async function jpegDataUrl(jpeg: Uint8Array, maxSide: number): Promise<string> {
  return `data:image/jpeg;base64,${base64(await resizeJpeg(jpeg, maxSide, PLANNER_RESIZE_JPEG_QUALITY))}`;
}

/**
 * Mem-0's planner input: the system prompt; then, in the user message, `<global_task>: task\n`,
 * `<initial_observation>: `, the initial image, `.\n`, and either `<finished_subtasks>: ` with
 * `{i}: {subtask}The corresponding image is: ` + its end image for each finished subtask (`. `
 * between entries, `.\n` after the last) or `finished_subtasks: null.\n`.
 */
export async function mem0Messages(ctx: PlannerContext, systemPrompt: string): Promise<ChatMessage[]> {
  const content: ContentPart[] = [
    text(`<global_task>: ${ctx.globalTask}\n`),
    text("<initial_observation>: "),
    image(await pngDataUrl(ctx.initialImageJpeg)),
    text(".\n"),
  ];
  if (ctx.finished.length === 0) {
    content.push(text("finished_subtasks: null.\n"));
  } else {
    content.push(text("<finished_subtasks>: "));
    for (const [k, f] of ctx.finished.entries()) {
      content.push(text(`${k + MEM0_FIRST_INDEX}: ${f.subtask}The corresponding image is: `));
      content.push(image(await pngDataUrl(f.endImageJpeg)));
      content.push(text(k === ctx.finished.length - 1 ? ".\n" : ". "));
    }
  }
  return [{ role: "system", content: systemPrompt }, { role: "user", content }];
}

/** A plain prompt for general chat models: labelled task, images resized to `maxSide`, and a question. */
export async function chatMessages(ctx: PlannerContext, systemPrompt: string, maxSide: number): Promise<ChatMessage[]> {
  const content: ContentPart[] = [text(`Global task: ${ctx.globalTask}`), text("Initial scene:"), image(await jpegDataUrl(ctx.initialImageJpeg, maxSide))];
  for (const [i, f] of ctx.finished.entries()) {
    content.push(text(`Finished subtask ${i + 1}: ${f.subtask}`), image(await jpegDataUrl(f.endImageJpeg, maxSide)));
  }
  content.push(text(ctx.finished.length === 0 ? "No subtask has been finished yet. What is the next subtask?" : "What is the next subtask?"));
  return [{ role: "system", content: systemPrompt }, { role: "user", content }];
}

/** Mem-0's answer parsing: the text after the last `next_subtask: ` up to the first `.`, plus `.`; null when absent or empty. */
export function parseMem0Answer(answer: string): string | null {
  const at = answer.lastIndexOf("next_subtask: ");
  if (at < 0) return null;
  const rest = answer.slice(at + "next_subtask: ".length);
  const dot = rest.indexOf(".");
  const subtask = dot < 0 ? rest : rest.slice(0, dot);
  return subtask.trim() === "" ? null : `${subtask}.`;
}

/** Tolerant parsing for chat models (case, whitespace, quotes, the period); null when absent or empty. */
export function parseNextSubtask(answer: string): string | null {
  const m = /next[_ ]subtask\s*:\s*([^\n]*)/i.exec(answer);
  if (!m) return null;
  const found = m[1]!.trim().replace(/^["'`]|["'`]$/g, "").replace(/\.+\s*$/, "").trim();
  return found === "" ? null : found;
}
