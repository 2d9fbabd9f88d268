/**
 * Child process for the kill -9 test (not a test itself): records `count` JointState messages
 * into argv[2] with small chunks, prints "written" and then idles until it is killed.
 */
import { McapRecorder } from "../../src/record/index.js";
import { RELIABLE_QOS } from "../../src/bus/types.js";
import { encode, sampleJointState } from "../../src/msgs/index.js";

const [path, countText, chunkText, ageText] = process.argv.slice(2);
const rec = await McapRecorder.open(path!, { chunkSizeBytes: Number(chunkText), maxChunkAgeMs: Number(ageText) });
await rec.addTopic("/joint_states", "sensor_msgs/msg/JointState", RELIABLE_QOS);
for (let i = 0; i < Number(countText); i++) {
  const t = 1_700_000_000_000_000_000n + BigInt(i) * 5_000_000n;
  await rec.write("/joint_states", encode("sensor_msgs/msg/JointState", sampleJointState(16, t, i)), t);
}
process.stdout.write("written\n");
setInterval(() => undefined, 1000);
