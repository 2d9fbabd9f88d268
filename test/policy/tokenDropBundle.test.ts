/**
 * A tokendrop bundle (policies/framesamp-tiny-move/ablations/tokendrop: memory.onnx reads TokenDrop's
 * patch tokens): its manifest's memory section is checked against the module's roles, a run may not
 * give it another strategy's inputs, and it runs a demonstration-prompted Move Cube episode in process.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readManifest } from "../../src/policy/mem0/manifest.js";
import { mem0MemorySpec } from "../../src/policy/mem0/memorySpec.js";
import { loadMem0Policy } from "../../src/policy/mem0/Mem0Policy.js";
import { loadRunConfig } from "../../src/config/index.js";
import { loadRobotProfile } from "../../src/robot/loadRobotProfile.js";
import { runTrial } from "../../src/app/runTrial.js";

const BUNDLE = "policies/framesamp-tiny-move/ablations/tokendrop";

/** The bundle's policy.yaml with `edit` applied, in a copy of the bundle; the copy's manifest path. */
function editedCopy(dir: string, edit: (yaml: string) => string): string {
  cpSync(BUNDLE, dir, { recursive: true });
  const path = join(dir, "policy.yaml");
  const yaml = readFileSync(path, "utf8");
  const edited = edit(yaml);
  assert.notEqual(edited, yaml, "the edit changed nothing");
  writeFileSync(path, edited);
  return path;
}

test("a tokendrop manifest names what its memory section lacks or gets wrong", () => {
  const tmp = mkdtempSync(join(tmpdir(), "engram-tokendrop-"));
  try {
    const cases: [string, (y: string) => string, RegExp][] = [
      ["no tokendrop section", (y) => y.replace(/  tokendrop:\n(    .*\n)+/, ""),
        /memory: memory\.strategy tokendrop needs memory\.tokendrop: \{stride, kept, grid, cameras\}/],
      ["a camera the policy lacks", (y) => y.replace("cameras: [exterior_left]\n", "cameras: [front]\n"),
        /memory\.tokendrop\.cameras\[0\]: "front" is not one of the policy's cameras \(exterior_left, wrist\)/],
      ["a grid that cuts pixels", (y) => y.replace("    grid: 8\n", "    grid: 7\n"),
        /memory\.tokendrop\.grid: 7 does not divide the 128x96 image into whole patches/],
      ["a frame strategy over token inputs", (y) => y.replace("strategy: tokendrop\n", "strategy: framesamp\n"),
        /models\.memory\.inputs: memory\.strategy framesamp reads current, window, window_mask, anchor, anchor_mask, text \(missing window, window_mask, anchor, anchor_mask; not its roles: token_pixels, token_positions, token_mask, step\)/],
    ];
    for (const [i, [what, edit, error]] of cases.entries()) {
      const path = editedCopy(join(tmp, String(i)), edit);
      assert.throws(() => readManifest(path), error, what);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test("a tokendrop bundle runs TokenDrop as trained, and only TokenDrop", () => {
  const { manifest } = readManifest(join(BUNDLE, "policy.yaml"));
  const defaults = { strategy: "tokendrop" as const, budget: 512, stride: 8, kept: 2048, grid: 8 };
  const trained = { kind: "tokendrop", budget: 512, stride: 8, kept: 2048, grid: 8 };
  assert.deepEqual(mem0MemorySpec(manifest.memory), trained);
  assert.deepEqual(mem0MemorySpec(manifest.memory, {}, defaults), trained);
  assert.throws(() => mem0MemorySpec(manifest.memory, {}, { ...defaults, stride: 4 }, "b/policy.yaml"),
    /memory\.stride 4: b\/policy\.yaml memory\.onnx was trained on TokenDrop's stride 8/);
  for (const strategy of ["framesamp", "mem0", "none"] as const) {
    assert.throws(() => mem0MemorySpec(manifest.memory, {}, { strategy }, "b/policy.yaml"),
      new RegExp(`memory\\.strategy ${strategy}: b/policy\\.yaml memory\\.onnx reads TokenDrop's patch tokens`));
  }
});

test("a tokendrop policy refuses stored sessions: they keep features, not pixels", async () => {
  const robot = loadRobotProfile("robots/franka-droid.yaml").profile;
  const policy = await loadMem0Policy(BUNDLE, { robot, log: () => {} });
  try {
    const instruction = "watch the video carefully, then move the cube to the target in the same manner as before";
    await policy.reset({ task: "move-cube", episode: 0, seed: 1, instruction, complexity: "M(1)" });
    await assert.rejects(policy.observeHistory([{ feature: new Float32Array(64) }]),
      /memory\.strategy tokendrop scores camera pixels; stored sessions keep features only/);
  } finally {
    await policy.close();
  }
});

test("a tokendrop bundle runs a Move Cube episode prompted by the twin's demonstration", async () => {
  const out = mkdtempSync(join(tmpdir(), "engram-tokendrop-run-"));
  try {
    const run = loadRunConfig("launch/sim-franka-video.yaml");
    const records: string[] = [];
    const summary = await runTrial({
      run, robot: loadRobotProfile(run.robotPath), policyPath: BUNDLE, task: "move-cube", episodes: 1, seed: 1000,
      maxSteps: 40, outDir: out, noRecord: true, onEpisode: (e) => { records.push(e.outcome); },
    });
    assert.equal(records.length, 1);
    assert.notEqual(records[0], "fault", JSON.stringify(summary));
    const events = readFileSync(join(out, "events.jsonl"), "utf8");
    assert.match(events, /"event":"demonstration_end","source":"twin","frames":[1-9]\d*,/);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
