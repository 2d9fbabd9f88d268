import { readFileSync } from "node:fs";
import { VIDEO_PLACE_ORDER } from "../src/task/video-place-order.js";
import { mulberry32 } from "../src/task/rng.js";
for (const dir of process.argv.slice(2)) {
  const eps = readFileSync(`${dir}/episodes.jsonl`, "utf8").trim().split("\n").map((l) => JSON.parse(l));
  const by: Record<string, [number, number]> = {};
  for (const e of eps) {
    const k = ["first", "second", "third"][VIDEO_PLACE_ORDER.draw(mulberry32(e.seed)).ordinal]!;
    by[k] ??= [0, 0]; by[k][1]++; if (e.outcome === "success") by[k][0]++;
  }
  console.log(dir, JSON.stringify(by));
}
