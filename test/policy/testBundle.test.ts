/** The committed test bundle's closed vocabulary covers every sim task's instruction and subtask texts. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readManifest } from "../../src/policy/mem0/manifest.js";
import { tokenize } from "../../src/policy/mem0/tokenizer.js";
import { listTasks } from "../../src/sim/tasks/index.js";

test("policies/test-tiny tokenizes every task instruction and subtask (regenerate with src/policy/mem0/testBundle.ts when this fails)", () => {
  const { manifest: m } = readManifest("policies/test-tiny/policy.yaml");
  const tok = { kind: "closed_vocabulary" as const, maxLength: m.tokenizer.max_length, padId: m.tokenizer.pad_id, vocabulary: m.tokenizer.vocabulary };
  // Scene-dependent task texts only read repeat counts (n1, n2); every other field is unused for wording.
  const scene = new Proxy({}, { get: (_o, k) => (k === "n1" || k === "n2" ? 2 : undefined) }) as never;
  let checked = 0;
  for (const task of listTasks()) {
    for (const text of [task.instruction(scene), ...task.subtasks(scene)]) {
      assert.doesNotThrow(() => tokenize(text, tok), `${task.id}: ${text}`);
      checked++;
    }
  }
  assert.ok(checked >= 10, `checked ${checked} texts`);
});
