/** The run's history tap stores only a policy whose features it can read: a remote one is refused by name. */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import type { Policy } from "../../src/policy/types.js";
import { EventLog } from "../../src/trial/eventLog.js";
import { HistoryTap } from "../../src/trial/historyTap.js";

test("a policy that is not an in-process Mem-0 bundle is refused, naming it and the store", async () => {
  const dir = mkdtempSync(join(tmpdir(), "engram-history-tap-"));
  try {
    const remote = { spec: { name: "mem0-remote" } } as unknown as Policy;
    await assert.rejects(HistoryTap.open(dir, remote, new EventLog({ nowNs: () => 0n })),
      new RegExp(`history ${dir}: policy mem0-remote is not an in-process Mem-0 bundle `
        + `\\(its features stay on its server\\)`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
