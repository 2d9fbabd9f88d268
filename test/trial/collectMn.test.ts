/**
 * training/mem0_tiny/collect.ts on an M(n) task, through the runtime with both oracles (the expert data's
 * run config): each episode's `segments` are what the runtime told the policy, a new one after each declared
 * end, and `subtask_end` the frames where the twin first shows a subtask done. With the oracle classifier the
 * two agree, and the texts follow the twin's plan (`subtasks`).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

interface Meta {
  tmc: string; outcome: string; frames: number; subtasks: string[]; subtask_end: number[];
  segments: { text: string; start: number; end: number }[]; aux_kinds: string[]; aux_layout: string;
}

/** The rows of a little-endian float32 .npy file of `columns` columns. */
function float32Npy(path: string, columns: number): number[][] {
  const bytes = readFileSync(path);
  const start = 10 + bytes.readUInt16LE(8);
  const values = new Float32Array(bytes.buffer.slice(bytes.byteOffset + start, bytes.byteOffset + bytes.length));
  const row = (r: number) => Array.from(values.subarray(r * columns, (r + 1) * columns));
  return Array.from({ length: values.length / columns }, (_, r) => row(r));
}

test("collect.ts records an M(n) episode's runtime segments, true ends and plan", { timeout: 120_000 }, () => {
  const out = mkdtempSync(join(tmpdir(), "engram-collect-mn-"));
  const tsx = (args: string[]) => execFileSync("npx", ["tsx", ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  try {
    tsx(["training/mem0_tiny/collectorBundle.ts", "--task", "press-button", "--out", join(out, "collector"),
      "--cameras", "head,left_wrist,right_wrist", "--layout", "bimanual_16d", "--state-dim", "16", "--size", "64x48",
      "--planner", "training/planner/mn"]);
    tsx(["training/mem0_tiny/collect.ts", "--policy", join(out, "collector"), "--episodes", "1", "--seed", "3", "--beta", "1",
      "--task", "press-button", "--config", "training/mem0_tiny/sim-x-one-expert.yaml", "--out", join(out, "data"), "--name", "t"]);
    const m = JSON.parse(readFileSync(join(out, "data", "t-3.json"), "utf8")) as Meta;
    assert.equal(m.tmc, "Mn");
    assert.equal(m.outcome, "success");
    assert.ok(m.subtasks.length >= 3 && m.subtasks.at(-1) === "press the confirm button", m.subtasks.join(", "));
    // One segment per subtask, contiguous over every frame, each ending where the twin saw it end.
    assert.deepEqual(m.segments.map((s) => s.text), m.subtasks);
    assert.equal(m.segments[0]!.start, 0);
    assert.equal(m.segments.at(-1)!.end, m.frames - 1);
    m.segments.slice(1).forEach((s, i) => assert.equal(s.start, m.segments[i]!.end + 1));
    assert.deepEqual(m.segments.slice(0, -1).map((s) => s.end), m.subtask_end);
    // The perception's targets are what one image shows: the three caps left to right, then no object.
    assert.deepEqual(m.aux_kinds, [...Array(18).fill("pos"), "bin", "bin", "bin", "bin", "phase"]);
    assert.equal(m.aux_layout, "mn-scene-2");
    const aux = float32Npy(join(out, "data", "t-3.aux.npy"), m.aux_kinds.length);
    assert.equal(aux.length, m.frames);
    const capsY = [1, 4, 7].map((c) => aux[0]![c]!);
    assert.ok(capsY[0]! > capsY[1]! && capsY[1]! > capsY[2]!, `cap y left to right: ${capsY.join(", ")}`);
    assert.ok(aux.every((row) => row.slice(0, 9).every(Number.isFinite) && row.slice(9, 18).every(Number.isNaN)));
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
