/** Record headers byte for byte against @mcap/core's builder; the writer into an in-memory two-method sink. */
import assert from "node:assert/strict";
import test from "node:test";
import { McapIndexedReader, McapRecordBuilder, McapStreamReader, type IReadable } from "@mcap/core";
import { chunkHeader, messageHeader } from "../../src/record/mcapRecords.js";
import type { ChunkCompression } from "../../src/record/chunkCompression.js";
import { decompressHandlers } from "../../src/bus/mcapReader.js";
import { McapFileWriter, type McapSink } from "../../src/record/mcapWriter.js";

const concat = (parts: Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let o = 0;
  for (const p of parts) { out.set(p, o); o += p.byteLength; }
  return out;
};

test("messageHeader + payload equals McapRecordBuilder.writeMessage", () => {
  const cases = [
    { channelId: 0, sequence: 0, logTime: 0n, publishTime: 0n, data: new Uint8Array(0) },
    { channelId: 3, sequence: 17, logTime: 1_700_000_000_123_456_789n, publishTime: 1_700_000_000_000_000_001n, data: new Uint8Array([1, 2, 3]) },
    { channelId: 0xffff, sequence: 0xffffffff, logTime: 2n ** 64n - 1n, publishTime: 2n ** 63n, data: new Uint8Array(1000).fill(7) },
  ];
  for (const m of cases) {
    const b = new McapRecordBuilder();
    b.writeMessage(m);
    assert.deepEqual(concat([messageHeader(m, m.data.byteLength), m.data]), b.buffer, `channel ${m.channelId}`);
  }
});

test("chunkHeader + records equals McapRecordBuilder.writeChunk (no compression and named compressions)", () => {
  for (const compression of ["", "zstd", "lz4"]) {
    for (const records of [new Uint8Array(0), new Uint8Array([9, 8, 7, 6, 5])]) {
      const c = { messageStartTime: 5n, messageEndTime: 2n ** 62n, uncompressedSize: 123_456n, uncompressedCrc: 0xdeadbeef, compression, records };
      const b = new McapRecordBuilder();
      b.writeChunk(c);
      assert.deepEqual(concat([chunkHeader(c, records.byteLength), records]), b.buffer, `compression "${compression}", ${records.byteLength} bytes`);
    }
  }
});

/** An in-memory sink that writes at most `maxPerCall` bytes per writev (a short-writing file). */
function memorySink(maxPerCall = Infinity): McapSink & { bytes(): Uint8Array; syncs: number } {
  const parts: Uint8Array[] = [];
  const sink = {
    syncs: 0,
    async writev(buffers: Uint8Array[]) {
      let budget = maxPerCall, written = 0;
      for (const x of buffers) {
        const n = Math.min(x.byteLength, budget);
        parts.push(x.slice(0, n));
        written += n;
        budget -= n;
        if (budget <= 0) break;
      }
      return { bytesWritten: written };
    },
    async datasync() { sink.syncs++; },
    bytes: () => concat(parts),
  };
  return sink;
}

async function writeSample(sink: McapSink, compression: ChunkCompression, fsync = false): Promise<void> {
  const w = new McapFileWriter(sink, 64, fsync, compression);
  await w.start({ profile: "ros2", library: "engram-test" });
  const schemaId = await w.registerSchema({ name: "std_msgs/msg/String", encoding: "ros2msg", data: new TextEncoder().encode("string data") });
  const channelId = await w.registerChannel({ schemaId, topic: "/chatter", messageEncoding: "cdr", metadata: new Map() });
  for (let i = 0; i < 20; i++) await w.addMessage({ channelId, sequence: i, logTime: BigInt(1000 + i), publishTime: BigInt(1000 + i), data: new Uint8Array(10 + i).fill(i) });
  await w.end();
}

for (const compression of ["none", "zstd"] as const) {
  test(`the writer works through a two-method sink (${compression} chunks): short writes are resent, the file reads back whole`, async () => {
    const whole = memorySink();
    await writeSample(whole, compression);
    const short = memorySink(7);
    await writeSample(short, compression, true);
    assert.deepEqual(short.bytes(), whole.bytes(), "short writes give the same bytes");
    assert.ok(short.syncs > 0, "datasync is called with fsync on");

    const bytes = whole.bytes();
    const handlers = await decompressHandlers();
    const readable: IReadable = { size: async () => BigInt(bytes.byteLength), read: async (o, n) => bytes.subarray(Number(o), Number(o + n)) };
    const reader = await McapIndexedReader.Initialize({ readable, decompressHandlers: handlers });
    const seen: number[] = [];
    for await (const m of reader.readMessages()) seen.push(m.sequence);
    assert.deepEqual(seen, Array.from({ length: 20 }, (_, i) => i));
    assert.ok(reader.chunkIndexes.length > 1, "several chunks at 64 bytes each");
    assert.ok(reader.chunkIndexes.every((c) => c.compression === (compression === "none" ? "" : compression)));
    const stream = new McapStreamReader({ validateCrcs: true, decompressHandlers: handlers });
    stream.append(bytes);
    let records = 0;
    while (stream.nextRecord()) records++;
    assert.ok(stream.done(), "the stream reader validates every CRC to the end");
    assert.ok(records > 40);
  });
}

test("a sink that stops writing is an error naming the offset, not a silent loss", async () => {
  const stuck: McapSink = { writev: async () => ({ bytesWritten: 0 }) };
  const w = new McapFileWriter(stuck);
  await assert.rejects(w.start({ profile: "ros2", library: "x" }), /MCAP sink wrote 0 bytes of \d+ \(at file offset 0\)/);
});
