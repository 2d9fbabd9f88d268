/**
 * Key frames of an episode for the report: what the robot's camera saw at the anchor (the first
 * frame after reset), at each declared and true subtask end, and at the last step of an episode
 * that failed. Frame k follows the exporters' convention (src/record/episodeFrames.ts): the
 * latest camera message at bus time start + (k+1)/control_hz, the tick of control step k.
 */
import sharp, { type Sharp } from "sharp";
import { decode } from "../../msgs/codec.js";
import { episodeIdentity } from "../../record/episodeFrames.js";
import { McapSource } from "../../bus/mcapReader.js";
import type { ReportEpisode } from "./runData.js";

/** One thumbnail: the step, why it was chosen, and a JPEG `widthPx` wide. */
export interface KeyFrame { step: number; why: string[]; jpeg: Buffer }

/** The key frames of one episode, from camera `topic`. */
export interface EpisodeKeyFrames { episode: number; topic: string; frames: KeyFrame[] }

const IMAGE_TYPES = new Set(["sensor_msgs/msg/Image", "sensor_msgs/msg/CompressedImage"]);

/** The steps worth a thumbnail, each with why (in step order). Pure. */
export function keyFrameSteps(
  e: Pick<ReportEpisode, "steps" | "outcome" | "declared_ends" | "true_ends">,
): Array<{ step: number; why: string[] }> {
  const last = Math.max(0, e.steps - 1);
  const at = new Map<number, string[]>();
  const add = (step: number, why: string) => {
    const k = Math.min(last, Math.max(0, step));
    at.set(k, [...(at.get(k) ?? []), why]);
  };
  add(0, "anchor (first frame after reset)");
  for (const s of e.declared_ends) add(s, "declared end");
  for (const s of e.true_ends ?? []) add(s, "true end");
  if (e.outcome !== "success") add(last, `last frame (${e.outcome})`);
  return [...at].sort((a, b) => a[0] - b[0]).map(([step, why]) => ({ step, why }));
}

/** The camera topic thumbnails come from: a head camera when there is one, else the first image topic. */
export function thumbnailTopic(topics: ReadonlyArray<{ topic: string; type: string }>): string | null {
  const images = topics.filter((t) => IMAGE_TYPES.has(t.type));
  return (images.find((t) => /head/.test(t.topic)) ?? images[0])?.topic ?? null;
}

/**
 * Reads the thumbnails of episode `e` from its recording; null when the recording holds no camera.
 * Throws naming the file when it cannot be read or a frame does not decode.
 */
export async function readKeyFrames(
  e: ReportEpisode, mcapPath: string, widthPx = 192,
): Promise<EpisodeKeyFrames | null> {
  const identity = await episodeIdentity(mcapPath);
  const periodNs = BigInt(Math.round(1e9 / identity.control_hz));
  const start = BigInt(identity.start_ns);
  const wanted = keyFrameSteps(e);
  const source = await McapSource.open(mcapPath);
  const picked: Array<{ step: number; why: string[]; msg: { type: string; cdr: Uint8Array } }> = [];
  let topic: string | null = null;
  try {
    topic = thumbnailTopic(await source.topics());
    if (topic === null) return null;
    let latest: { type: string; cdr: Uint8Array } | null = null;
    let next = 0;
    for await (const m of source.messages({ topics: [topic] })) {
      while (next < wanted.length && m.logTimeNs > start + BigInt(wanted[next]!.step + 1) * periodNs) {
        if (latest) picked.push({ ...wanted[next]!, msg: latest });
        next++;
      }
      if (next >= wanted.length) break;
      latest = { type: m.type, cdr: m.cdr };
    }
    for (; next < wanted.length && latest; next++) picked.push({ ...wanted[next]!, msg: latest });
  } finally {
    await source.close();
  }
  const frames: KeyFrame[] = [];
  for (const p of picked) {
    const jpeg = await thumbnail(p.msg, widthPx, `${mcapPath} ${topic} step ${p.step}`);
    frames.push({ step: p.step, why: p.why, jpeg });
  }
  return { episode: e.episode, topic, frames };
}

async function thumbnail(m: { type: string; cdr: Uint8Array }, widthPx: number, where: string): Promise<Buffer> {
  const input = m.type === "sensor_msgs/msg/CompressedImage"
    ? sharp(decode("sensor_msgs/msg/CompressedImage", m.cdr).data)
    : rawImage(decode("sensor_msgs/msg/Image", m.cdr), where);
  try {
    return await input.resize({ width: widthPx }).jpeg({ quality: 80 }).toBuffer();
  } catch (err) {
    throw new Error(`${where}: frame does not decode: ${(err as Error).message}`);
  }
}

type RawImage = { width: number; height: number; step: number; encoding: string; data: Uint8Array };

function rawImage(img: RawImage, where: string): Sharp {
  const channels = { rgb8: 3, bgr8: 3, rgba8: 4, bgra8: 4, mono8: 1 }[img.encoding] as 1 | 3 | 4 | undefined;
  if (channels === undefined) {
    throw new Error(`${where}: image encoding ${img.encoding}, expected rgb8, bgr8, rgba8, bgra8 or mono8`);
  }
  const row = img.width * channels;
  if (img.step < row || img.data.length < img.step * img.height) {
    const frame = `${img.width}x${img.height} ${img.encoding} frame`;
    const expected = `expected step >= ${row} and ${img.step * img.height} bytes`;
    throw new Error(`${where}: ${frame} holds ${img.data.length} bytes with step ${img.step}, ${expected}`);
  }
  const packed = new Uint8Array(row * img.height);
  for (let y = 0; y < img.height; y++) packed.set(img.data.subarray(y * img.step, y * img.step + row), y * row);
  if (img.encoding.startsWith("bgr")) {
    for (let i = 0; i < packed.length; i += channels) {
      const b = packed[i]!;
      packed[i] = packed[i + 2]!;
      packed[i + 2] = b;
    }
  }
  return sharp(packed, { raw: { width: img.width, height: img.height, channels } });
}
