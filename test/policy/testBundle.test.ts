/** The committed test bundle agrees with the rest of the project: task texts in its vocabulary, X-One layout names. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readManifest } from "../../src/policy/mem0/manifest.js";
import { tokenize } from "../../src/policy/mem0/tokenizer.js";
import { listTasks } from "../../src/sim/tasks/index.js";
import { loadRobotProfile } from "../../src/robot/index.js";
import { BIMANUAL_16D } from "../../src/policy/mem0/layout.js";

test("policies/test-tiny tokenizes every task instruction and subtask (regenerate with src/policy/mem0/testBundle.ts when this fails)", () => {
  const { manifest: m } = readManifest("policies/test-tiny/policy.yaml");
  const tok = { kind: "closed_vocabulary" as const, maxLength: m.tokenizer.max_length, padId: m.tokenizer.pad_id, vocabulary: m.tokenizer.vocabulary };
  // Scene-dependent task texts read only these fields, set so every text occurs (Press Button's
  // repeat counts, Battery Try's right combination 01, Blocks Ranking Try's five swaps).
  const wording: Record<string, unknown> = { n1: 2, n2: 2, correct: [0, 1], swapsNeeded: 5 };
  const scene = new Proxy({}, { get: (_o, k) => wording[k as string] }) as never;
  let checked = 0;
  // test-tiny is an X-One bundle (16-D): the Franka-only video tasks' drawn texts are not its vocabulary.
  for (const task of listTasks().filter((t) => t.robots.includes("x-one"))) {
    for (const text of [task.instruction(scene), ...task.subtasks(scene)]) {
      assert.doesNotThrow(() => tokenize(text, tok), `${task.id}: ${text}`);
      checked++;
    }
  }
  assert.ok(checked >= 10, `checked ${checked} texts`);
});

test("BIMANUAL_16D (test bundle stats: grippers last) matches robots/x-one.yaml bimanual_16d", () => {
  const layout = loadRobotProfile("robots/x-one.yaml").profile.layouts.bimanual_16d;
  assert.equal(layout?.kind, "joint");
  assert.deepEqual(layout?.kind === "joint" ? layout.names : [], BIMANUAL_16D);
});
