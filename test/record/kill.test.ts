/**
 * A recorder killed with SIGKILL loses at most its open chunk: complete chunks are on disk (every
 * write goes to the kernel at once), and a chunk older than maxChunkAgeMs is written even when
 * no more messages come.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { McapSource, recoverMcap } from "../../src/record/index.js";
import { decode } from "../../src/msgs/index.js";

async function recordThenKill(path: string, count: number, chunkBytes: number, ageMs: number, waitMs: number): Promise<void> {
  const child = spawn(process.execPath, ["--import", "tsx", "test/record/killChild.ts", path, String(count), String(chunkBytes), String(ageMs)], { stdio: ["ignore", "pipe", "inherit"] });
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (d: Buffer) => { if (d.toString().includes("written")) resolve(); });
    child.on("exit", (code) => reject(new Error(`child exited early with ${code}`)));
  });
  await new Promise((r) => setTimeout(r, waitMs));
  const exited = new Promise((r) => child.on("exit", r));
  child.kill("SIGKILL");
  await exited;
}

test("kill -9: complete chunks survive, and an idle open chunk is flushed by age", async () => {
  const dir = mkdtempSync(join(tmpdir(), "engram-kill-test-"));
  try {
    // 1000 messages of ~700 bytes with 64 KiB chunks: ~10 complete chunks, the tail chunk open;
    // the age flush is long (60 s) so the tail is lost.
    const big = join(dir, "big.mcap");
    await recordThenKill(big, 1000, 64 * 1024, 60_000, 100);
    const r1 = await recoverMcap(big);
    assert.equal(r1.truncated, true);
    assert.ok(r1.chunkCount >= 9, `${r1.chunkCount} complete chunks`);
    assert.ok(r1.messageCount >= 900 && r1.messageCount < 1000, `saved ${r1.messageCount} of 1000 (only the open chunk lost)`);
    const src = await McapSource.open(r1.outPath, "indexed");
    let i = 0;
    for await (const m of src.messages()) {
      assert.equal(m.sequence, i, "a contiguous prefix");
      assert.equal(decode("sensor_msgs/msg/JointState", m.cdr).name.length, 16);
      i++;
    }
    await src.close();
    assert.equal(i, r1.messageCount);

    // 5 small messages, far below the chunk size: the 150 ms age flush writes them before the kill.
    const small = join(dir, "small.mcap");
    await recordThenKill(small, 5, 1024 * 1024, 150, 700);
    const r2 = await recoverMcap(small);
    assert.equal(r2.messageCount, 5);
    assert.equal(r2.chunkCount, 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
