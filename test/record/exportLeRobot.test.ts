/**
 * engram export --format lerobot on two recorded expert episodes (3 cameras, 12 steps each), read
 * back by independent readers: pyarrow (PyPI, the venv .ci/run creates) for the parquet tables and
 * ffprobe (Debian's ffmpeg) for the videos. Frame counts, timestamps, episode ranges, task text,
 * subtask labels and the action/state columns must match the MCAPs.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main as exportMain } from "../../src/cli/export.js";
import { loadRunConfig } from "../../src/config/loaders.js";
import { decode } from "../../src/msgs/codec.js";
import { readRecordedEpisode } from "../../src/record/replayEpisode.js";
import { recordEpisodes } from "../../src/app/recordSession.js";
import { getLayout, toPolicyVector } from "../../src/robot/layout.js";
import { loadRobotProfile } from "../../src/robot/loadRobotProfile.js";
import { missingPython, missingTool, runPython, VENV_PYTHON } from "./externalTools.js";

const dir = mkdtempSync(join(tmpdir(), "engram-lerobot-test-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const run = loadRunConfig("launch/sim-x-one.yaml");
const robot = loadRobotProfile(run.robotPath);
const STEPS = 12;
const out = join(dir, "lerobot");
const missing = missingTool("ffmpeg") ?? missingTool("ffprobe") ?? missingPython(VENV_PYTHON, ["pyarrow"]);

before(async () => {
  if (missing) return;
  await recordEpisodes({ run, robot, source: "expert", task: "put-back-block", episodes: 2, seed: 11, outDir: dir, maxSteps: STEPS });
  assert.equal(await exportMain([dir, "--format", "lerobot", "--out", out, "--json"]), 0);
}, { timeout: 120_000 });

test("LeRobot v3.0 export reads back through pyarrow and ffprobe, matching the MCAPs", { skip: missing ?? false, timeout: 60_000 }, async () => {
  const info = JSON.parse(readFileSync(join(out, "meta", "info.json"), "utf8")) as Record<string, any>;
  assert.equal(info.codebase_version, "v3.0");
  assert.equal(info.robot_type, "x-one");
  assert.equal(info.fps, 10);
  assert.equal(info.total_episodes, 2);
  assert.equal(info.data_path, "data/chunk-{chunk_index:03d}/file-{file_index:03d}.parquet");
  assert.equal(info.video_path, "videos/{video_key}/chunk-{chunk_index:03d}/file-{file_index:03d}.mp4");
  const layout = getLayout(robot.profile, "bimanual_16d");
  assert.deepEqual(info.features["action"], { dtype: "float32", shape: [16], names: layout.kind === "joint" ? layout.names : [] });
  for (const cam of ["head", "left_wrist", "right_wrist"]) assert.deepEqual(info.features[`observation.images.${cam}`].shape, [480, 640, 3]);
  const stats = JSON.parse(readFileSync(join(out, "meta", "stats.json"), "utf8")) as Record<string, any>;
  assert.equal(stats["action"].mean.length, 16);
  assert.deepEqual(stats["observation.images.head"].mean.length, 3);

  const script = `
import json, sys
import pyarrow.parquet as pq
root = sys.argv[1]
data = pq.read_table(f"{root}/data/chunk-000/file-000.parquet")
episodes = pq.read_table(f"{root}/meta/episodes/chunk-000/file-000.parquet")
tasks = pq.read_table(f"{root}/meta/tasks.parquet")
print(json.dumps({
    "columns": data.column_names, "data": data.to_pydict(), "episodes": episodes.to_pydict(), "tasks": tasks.to_pydict(),
    "tasks_pandas_index": json.loads(tasks.schema.metadata[b"pandas"])["index_columns"],
    "state_type": str(data.schema.field("observation.state").type),
}))
`;
  const r = JSON.parse(runPython(VENV_PYTHON, script, [out])) as {
    columns: string[]; data: Record<string, any[]>; episodes: Record<string, any[]>; tasks: Record<string, any[]>; tasks_pandas_index: string[]; state_type: string;
  };
  for (const c of ["observation.state", "action", "timestamp", "frame_index", "episode_index", "index", "task_index", "subtask_index", "subtask_end"]) assert.ok(r.columns.includes(c), c);
  assert.equal(r.state_type, "list<element: float not null>");
  const N = r.data["index"]!.length;
  assert.equal(N, info.total_frames);
  assert.deepEqual(r.data["index"], Array.from({ length: N }, (_, i) => i));
  assert.deepEqual(r.episodes["episode_index"], [0, 1]);
  const lengths = r.episodes["length"] as number[];
  assert.equal(lengths[0]! + lengths[1]!, N);
  assert.deepEqual(r.episodes["dataset_from_index"], [0, lengths[0]]);
  assert.deepEqual(r.episodes["dataset_to_index"], [lengths[0], N]);
  assert.deepEqual(r.episodes["videos/observation.images.head/from_timestamp"], [0, lengths[0]! / 10]);
  assert.deepEqual(r.tasks, { task: ["Move the block to the center, press the button, then put the block back on the mat it started on."], task_index: [0] });
  assert.deepEqual(r.tasks_pandas_index, ["task"]);
  assert.deepEqual(r.episodes["tasks"], [r.tasks["task"], r.tasks["task"]]);

  // Timestamps restart at 0 each episode, 1/fps apart; frame k's action is the leader command issued after tick k.
  for (let e = 0; e < 2; e++) {
    const from = (r.episodes["dataset_from_index"] as number[])[e]!;
    const ep = await readRecordedEpisode(join(dir, "episodes", `${e}.mcap`), robot.profile);
    for (let k = 0; k < lengths[e]!; k++) {
      assert.ok(Math.abs(r.data["timestamp"]![from + k] - k / 10) < 1e-6, `episode ${e} frame ${k} timestamp`);
      assert.equal(r.data["episode_index"]![from + k], e);
      assert.equal(r.data["frame_index"]![from + k], k);
    }
    const js = decode("sensor_msgs/msg/JointState", ep.commands[3]!.cdr);
    const want = Array.from(toPolicyVector(layout, js.name, js.position), (v) => Math.fround(v));
    assert.deepEqual(r.data["action"]![from + 2], want, `episode ${e}: frame 2's action is the command at 0.3 s`);
    assert.equal(r.data["observation.state"]![from + 2].length, 16);
    // Put Back Block's one annotation segment spans the episode; its last 8 frames are end labels.
    assert.deepEqual(r.data["subtask_end"]!.slice(from, from + lengths[e]!).map(Boolean), Array.from({ length: lengths[e]! }, (_, k) => k >= STEPS - 8 && k < STEPS));
  }

  for (const cam of ["head", "left_wrist", "right_wrist"]) {
    const video = join(out, "videos", `observation.images.${cam}`, "chunk-000", "file-000.mp4");
    const probe = spawnSync("ffprobe", ["-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries", "stream=codec_name,width,height,r_frame_rate,nb_read_frames", "-of", "json", video], { encoding: "utf8" });
    assert.equal(probe.status, 0, probe.stderr);
    const s = (JSON.parse(probe.stdout) as { streams: Array<Record<string, string | number>> }).streams[0]!;
    assert.deepEqual([s["codec_name"], s["width"], s["height"], s["r_frame_rate"], Number(s["nb_read_frames"])], ["h264", 640, 480, "10/1", N], cam);
  }
});
