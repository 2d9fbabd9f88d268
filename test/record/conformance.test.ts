/**
 * Conformance with real ROS 2: recordings written by `ros2 bag record` (../shared/fixtures/rosbag2,
 * from the ros2/rosbag2 test resources) must read and decode completely with the schema stored in
 * each file, through both readers.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { codecFromSchema, schemaTextFor } from "../../src/msgs/index.js";
import { McapSource, mcapFilesOf, qosFromOfferedYaml, type RecordedMessage } from "../../src/record/index.js";

const ROOT = "../shared/fixtures/rosbag2";
const skip = !existsSync(ROOT) && `fixtures folder ${ROOT} is absent (see ../shared/fixtures/README.md)`;

async function readAll(path: string, mode: "indexed" | "stream"): Promise<{ messages: RecordedMessage[]; decoded: unknown[] }> {
  const src = await McapSource.open(path, mode);
  const messages: RecordedMessage[] = [];
  const decoded: unknown[] = [];
  for await (const m of src.messages()) {
    assert.equal(m.schemaEncoding, "ros2msg", `${path} ${m.topic}`);
    assert.equal(m.messageEncoding, "cdr", `${path} ${m.topic}`);
    assert.deepEqual([...m.cdr.subarray(0, 4)], [0, 1, 0, 0], `${path} ${m.topic}: CDR header`);
    messages.push(m);
    decoded.push(codecFromSchema(m.type, m.schemaText, m.schemaEncoding).decode(m.cdr));
  }
  await src.close();
  return { messages, decoded };
}

test("every fixture recording decodes completely through both readers", { skip }, async () => {
  const folders = readdirSync(ROOT).filter((f) => !f.includes("."));
  assert.ok(folders.length >= 3, `expected talker, cdr_test, only_topics in ${ROOT}`);
  for (const folder of folders) {
    for (const file of mcapFilesOf(join(ROOT, folder))) {
      const indexed = await readAll(file, "indexed");
      const streamed = await readAll(file, "stream");
      assert.ok(indexed.messages.length > 0, `${file} has messages`);
      const key = (m: RecordedMessage) => `${m.topic}@${m.logTimeNs}#${m.sequence}`;
      assert.deepEqual(streamed.messages.map(key).sort(), indexed.messages.map(key).sort(), `${file}: same messages in both readers`);
    }
  }
});

test("talker: /topic is Hello, world! 0..9, first logTime as recorded", { skip }, async () => {
  const { messages, decoded } = await readAll(join(ROOT, "talker/talker.mcap"), "indexed");
  assert.equal(messages.length, 20);
  const topic = messages.flatMap((m, i) => (m.topic === "/topic" ? [{ m, v: decoded[i] as { data: string } }] : []));
  assert.deepEqual(topic.map((t) => t.v.data), Array.from({ length: 10 }, (_, i) => `Hello, world! ${i}`));
  assert.equal(topic[0]!.m.logTimeNs, 1585866235112609068n);
  assert.equal(topic[0]!.m.type, "std_msgs/msg/String");
  const log = decoded[messages.findIndex((m) => m.topic === "/rosout")] as { msg: string; name: string; level: number };
  assert.equal(log.msg, "Publishing: 'Hello, world! 0'");
  assert.equal(log.name, "minimal_publisher");
});

test("cdr_test: 7 messages, every field of BasicTypes and Arrays decodes", { skip }, async () => {
  const { messages, decoded } = await readAll(join(ROOT, "cdr_test/cdr_test_0.mcap"), "indexed");
  assert.equal(messages.length, 7);
  const basicFields = ["bool_value", "byte_value", "char_value", "float32_value", "float64_value", "int8_value", "uint8_value",
    "int16_value", "uint16_value", "int32_value", "uint32_value", "int64_value", "uint64_value"];
  const basics = decoded.filter((_, i) => messages[i]!.type === "test_msgs/msg/BasicTypes") as Record<string, unknown>[];
  const arrays = decoded.filter((_, i) => messages[i]!.type === "test_msgs/msg/Arrays") as Record<string, unknown>[];
  assert.equal(basics.length, 3);
  assert.equal(arrays.length, 4);
  for (const b of basics) assert.deepEqual(Object.keys(b).sort(), [...basicFields].sort());
  assert.equal(basics[0]!.int32_value, 123);
  assert.equal(typeof basics[0]!.int64_value, "bigint");
  // Every non-constant field of the embedded Arrays schema is present, fixed arrays have length 3.
  const schema = messages.find((m) => m.type === "test_msgs/msg/Arrays")!.schemaText.split(/\n=+\n/)[0]!;
  const fields = schema.split("\n").map((l) => l.replace(/#.*/, "").trim()).filter((l) => l && !l.includes("="))
    .map((l) => ({ type: l.split(/\s+/)[0]!, name: l.split(/\s+/)[1]! }));
  assert.ok(fields.length >= 30, `Arrays has ${fields.length} fields`);
  for (const a of arrays) {
    for (const f of fields) {
      assert.ok(f.name in a && a[f.name] !== undefined, `Arrays field ${f.name} decoded`);
      if (f.type.endsWith("[3]")) assert.equal((a[f.name] as ArrayLike<unknown>).length, 3, `Arrays.${f.name} has 3 elements`);
    }
    assert.equal((a.basic_types_values as Record<string, unknown>[])[0]!.int32_value !== undefined, true);
  }
  assert.deepEqual([...(arrays[0]!.string_values as string[])].length, 3);
});

test("only_topics: 7 messages, channel metadata carries offered_qos_profiles and topic_type_hash", { skip }, async () => {
  const file = join(ROOT, "only_topics/only_topics.mcap");
  const src = await McapSource.open(file, "indexed");
  const topics = await src.topics();
  assert.deepEqual(topics.map((t) => t.topic).sort(), ["/events/write_split", "/parameter_events", "/rosout"]);
  for (const t of topics) {
    assert.match(t.metadata.get("offered_qos_profiles") ?? "", /^- history: 3\n  depth: 0\n  reliability: 1\n/);
    assert.match(t.metadata.get("topic_type_hash") ?? "", /^RIHS01_[0-9a-f]{64}$/);
  }
  const rosout = topics.find((t) => t.topic === "/rosout")!;
  assert.equal(qosFromOfferedYaml(rosout.metadata.get("offered_qos_profiles"))?.durability, "transient_local");
  // Our bundled Jazzy schema for ParameterEvent is byte-identical to what rosbag2 stored.
  const pe = topics.find((t) => t.topic === "/parameter_events")!;
  assert.equal(schemaTextFor("rcl_interfaces/msg/ParameterEvent"), pe.schemaText);
  await src.close();
  const { messages } = await readAll(file, "stream");
  assert.equal(messages.length, 7);
});

test("engram inspect --json on talker.mcap reports 20 messages on 3 topics", { skip }, async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", "src/cli.ts", "inspect", join(ROOT, "talker/talker.mcap"), "--json"]);
  const lines = stdout.trim().split("\n");
  assert.equal(lines.length, 1, "exactly one JSON line");
  const s = JSON.parse(lines[0]!) as { messageCount: number; startNs: string; endNs: string; topics: { topic: string; type: string; count: number }[] };
  assert.equal(s.messageCount, 20);
  assert.equal(s.topics.length, 3);
  assert.equal(s.startNs, "1585866235112411371");
  assert.equal(s.endNs, "1585866239643508139");
  assert.deepEqual(s.topics.find((t) => t.topic === "/topic"), { topic: "/topic", type: "std_msgs/msg/String", count: 10, serializationFormat: "cdr" });
  // A rosbag2 folder inspects the same.
  const { stdout: folderOut } = await promisify(execFile)(process.execPath, ["--import", "tsx", "src/cli.ts", "inspect", join(ROOT, "talker"), "--json"]);
  assert.equal((JSON.parse(folderOut) as { messageCount: number }).messageCount, 20);
});
