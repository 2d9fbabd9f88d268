import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { codecFor, codecFromSchema, decode, encode, KNOWN_TYPES, sampleOfEveryType, schemaTextFor } from "../../src/msgs/index.js";
import { McapSource } from "../../src/record/index.js";

const TALKER = "../shared/fixtures/rosbag2/talker/talker.mcap";

test("every known type round-trips encode -> decode", () => {
  const samples = sampleOfEveryType();
  for (const type of KNOWN_TYPES) {
    const msg = samples[type];
    const bytes = encode(type, msg as never);
    assert.deepEqual([...bytes.subarray(0, 4)], [0, 1, 0, 0], `${type}: CDR little-endian header`);
    assert.deepEqual(decode(type, bytes), msg, `${type} round trip`);
  }
});

test("schema texts are rosbag2's concatenated form with every dependency", () => {
  const text = schemaTextFor("sensor_msgs/msg/CameraInfo");
  const sections = text.split("\n").filter((l) => l.startsWith("MSG: "));
  assert.deepEqual(sections, ["MSG: sensor_msgs/RegionOfInterest", "MSG: std_msgs/Header", "MSG: builtin_interfaces/Time"]);
  assert.ok(text.includes(`\n${"=".repeat(80)}\nMSG: std_msgs/Header\n`));
  // A codec built from the text alone (what a reader of our recordings does) decodes our bytes.
  const msg = sampleOfEveryType()["sensor_msgs/msg/CameraInfo"];
  assert.deepEqual(codecFromSchema("sensor_msgs/msg/CameraInfo", text).decode(encode("sensor_msgs/msg/CameraInfo", msg)), msg);
});

test("fixture String messages re-encode byte-identically", { skip: !existsSync(TALKER) && `fixture ${TALKER} absent` }, async () => {
  const src = await McapSource.open(TALKER);
  let n = 0;
  for await (const m of src.messages({ topics: ["/topic"] })) {
    const value = decode("std_msgs/msg/String", m.cdr);
    assert.deepEqual(encode("std_msgs/msg/String", value), m.cdr, `message ${n}: ${value.data}`);
    n++;
  }
  await src.close();
  assert.equal(n, 10);
});

test("truncated or garbage CDR gives an error naming the type and byte length", () => {
  const js = encode("sensor_msgs/msg/JointState", sampleOfEveryType()["sensor_msgs/msg/JointState"]);
  assert.throws(() => decode("sensor_msgs/msg/JointState", js.subarray(0, 40)), /cannot decode "sensor_msgs\/msg\/JointState" from 40 bytes: truncated/);
  assert.throws(() => decode("std_msgs/msg/String", Uint8Array.of(0, 1)), /from 2 bytes: shorter than the 4-byte CDR header/);
  assert.throws(() => decode("std_msgs/msg/String", Uint8Array.of(0x7b, 0x22, 0x61, 0x22, 1, 2, 3, 4)), /bad CDR encapsulation header 7b 22 61 22, expected 00 01 00 00/);
  // A huge sequence length must fail fast, not allocate or hang.
  const garbage = Uint8Array.of(0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0x7f, 1, 2, 3);
  assert.throws(() => decode("sensor_msgs/msg/JointState", garbage), /cannot decode "sensor_msgs\/msg\/JointState" from 19 bytes/);
  // A truncated image inside a larger buffer must not read its neighbours' bytes.
  const img = encode("sensor_msgs/msg/Image", sampleOfEveryType()["sensor_msgs/msg/Image"]);
  const big = new Uint8Array(img.length + 64);
  big.set(img);
  assert.throws(() => decode("sensor_msgs/msg/Image", big.subarray(0, img.length - 5)), /truncated CDR, the message needs \d+ bytes/);
});

test("unknown type names the type and says it is neither known nor recorded", () => {
  assert.throws(() => codecFor("foo_msgs/msg/Bar"), /unknown message type "foo_msgs\/msg\/Bar": it is neither a known type .* nor given with a schema from a recording/);
  assert.throws(() => codecFromSchema("foo_msgs/msg/Bar", ""), /unknown message type "foo_msgs\/msg\/Bar": the recording stores no schema text/);
  assert.throws(() => codecFromSchema("foo_msgs/msg/Bar", "int32 x\nNotAType y\n"), /schema for "foo_msgs\/msg\/Bar" does not parse|cannot/);
});

test("a schema encoding other than ros2msg is refused by name", () => {
  assert.throws(() => codecFromSchema("pkg/msg/X", "module pkg { struct X { int32 a; }; };", "ros2idl"), /"pkg\/msg\/X": schema encoding "ros2idl" is not supported \(expected "ros2msg"\)/);
});
