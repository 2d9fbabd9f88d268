/**
 * A process that appends sessions to a history store until it is killed (the kill -9 test):
 * `tsx test/fakes/historyAppender.ts <dir>`. Prints `stored <id>` after each session is in place and
 * `open <id>` once the next one has frames, so the test can kill it mid-session.
 */
import { HistoryStore } from "../../src/memory/historyStore.js";

const dir = process.argv[2]!;
const { store } = await HistoryStore.open(dir, 16);
for (let s = 0; ; s++) {
  const writer = store.beginSession({ kind: "episode", task: `task-${s % 3}`, encoder: "test" });
  for (let i = 0; i < 32; i++) {
    const feature = Float32Array.from({ length: 16 }, (_, k) => s + i / 100 + k / 1000);
    writer.append({ feature, step: i, stampNs: BigInt(s * 1000 + i), thumbnailJpeg: new Uint8Array(200).fill(s & 255) });
    if (i === 16) process.stdout.write(`open ${writer.id}\n`);
  }
  const info = writer.close();
  process.stdout.write(`stored ${info!.id}\n`);
}
