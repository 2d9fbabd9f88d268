/**
 * How retrieval (src/memory/RetrievalMemory.ts) splits a RoboMME-Interference history of real twin
 * frames, against the true session starts it never reads. Each recorded episode MCAP is one session,
 * trimmed to 32 frames as the benchmark stores them (FrameSamp's rule over the episode) and encoded
 * by a Mem-0 bundle's encoder. Per task with two episodes (the first the demonstration, the second
 * the query's own), for k in {0, 1, 3, 7}: the buffer is the demonstration, k episodes of other tasks,
 * then the own episode; the split is scored (boundary precision / recall, within 1 frame) and the
 * retrieved session at the own episode's last frame is checked against the demonstration.
 *
 *   npm run engram -- record launch/sim-x-one.yaml --source expert --task <id> --episodes 2 --out runs/rec/<id>
 *   npx tsx scripts/retrievalSplits.ts launch/sim-x-one.yaml policies/mem0-tiny runs/rec/<id>/episodes/{0,1}.mcap ...
 *
 * Files are grouped by task (the episodes.jsonl beside each names it); prints one JSON object.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { loadRunConfig } from "../src/config/loaders.js";
import { boundaryScores, frameSamplingIndices, RetrievalMemory } from "../src/memory/index.js";
import { loadMem0Policy } from "../src/policy/mem0/Mem0Policy.js";
import { loadRobotProfile } from "../src/robot/index.js";
import { getLayout } from "../src/robot/layout.js";
import { mcapDemonstration } from "../src/trial/mcapDemonstration.js";
import { imageSpecsOf } from "../src/trial/trialParts.js";

const SESSION = 32;
const args = process.argv.slice(2);
const flag = (name: string, fallback: string) => {
  const i = args.indexOf(name);
  return i < 0 ? fallback : args.splice(i, 2)[1]!;
};
const embedding = flag("--embedding", "encoder");
const drops = flag("--drop", "5").split(",").map(Number);
const [config, bundle, ...files] = args;
if (!config || !bundle || files.length < 4) {
  console.error(
    "usage: tsx scripts/retrievalSplits.ts <run-config.yaml> <bundle> <episode.mcap>..."
    + " (two per task, at least two tasks)",
  );
  process.exit(2);
}
const cfg = loadRunConfig(config);
const profile = loadRobotProfile(cfg.robotPath).profile;
const policy = await loadMem0Policy(bundle, { robot: profile });
const inputs = { profile, layout: getLayout(profile, policy.spec.layout), imageSpecs: imageSpecsOf(policy) };

const byTask = new Map<string, Float32Array[][]>();
for (const file of files) {
  const lines = readFileSync(join(dirname(file), "..", "episodes.jsonl"), "utf8").trim().split("\n");
  const line = lines.map((l) => JSON.parse(l) as { file: string; task: string }).find((l) => file.endsWith(l.file));
  if (!line) throw new Error(`${file}: not listed in the episodes.jsonl beside its folder`);
  const task = line.task;
  const demo = await (await mcapDemonstration(file, inputs)).load(task, 0, 0);
  const frames = demo.frames.map((f) => f.observation);
  const kept = frameSamplingIndices(frames.length - 1, SESSION).map((i) => frames[i]!);
  const features = embedding === "pixels"
    ? kept.map((o) => pixelEmbedding(o.images[policy.spec.cameras[0]!]!))
    : await policy.encodeFrames(kept);
  byTask.set(task, [...(byTask.get(task) ?? []), features]);
}
await policy.close();
const tasks = [...byTask.keys()].filter((t) => byTask.get(t)!.length >= 2);

/** A fixed image embedding: the first camera's image mean-pooled to 16x12 per channel, centred. */
function pixelEmbedding(chw: Float32Array): Float32Array {
  const { width, height } = policy.spec.imageSize, gx = 16, gy = 12, out = new Float32Array(3 * gx * gy);
  for (let c = 0; c < 3; c++) {
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        out[(c * gy + Math.floor((y * gy) / height)) * gx + Math.floor((x * gx) / width)]! +=
          chw[c * width * height + y * width + x]!;
      }
    }
  }
  const mean = out.reduce((a, b) => a + b, 0) / out.length;
  return out.map((v) => v - mean);
}

const rows: Array<{ drop: number; k: number; precision: number; recall: number; demoRetrieved: boolean }> = [];
for (const drop of drops) for (const k of [0, 1, 3, 7]) {
  tasks.forEach((task, q) => {
    const others = tasks.filter((t) => t !== task);
    const distractors = Array.from({ length: k }, (_, j) => byTask.get(others[(q + j) % others.length]!)![0]!);
    const [demo, own] = byTask.get(task)!;
    const sessions = [demo!, ...distractors, own!];
    const memory = new RetrievalMemory(demo![0]!.length, { kind: "framesamp", frames: SESSION }, drop, SESSION);
    let step = 0;
    for (const s of sessions) for (const f of s) memory.write(f, step, { stampNs: BigInt(step++) });
    const truth = sessions.map((_, i) => i * SESSION);
    const { precision, recall } = boundaryScores(memory.sessionStarts(), truth);
    const selected = memory.selection().filter((i) => i < truth.at(-1)!);
    const inDemo = selected.filter((i) => i < SESSION).length;
    rows.push({ drop, k, precision, recall, demoRetrieved: selected.length > 0 && inDemo * 2 > selected.length });
  });
}
const mean = (xs: number[]) => Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 1000) / 1000;
const table = drops.flatMap((drop) => [0, 1, 3, 7].map((k) => {
  const r = rows.filter((x) => x.k === k && x.drop === drop);
  return {
    drop, k, queries: r.length,
    boundary_precision: mean(r.map((x) => x.precision)), boundary_recall: mean(r.map((x) => x.recall)),
    demonstration_retrieved: mean(r.map((x) => (x.demoRetrieved ? 1 : 0))),
  };
}));
console.log(JSON.stringify({ tasks, frames_per_session: SESSION, embedding, table }));
