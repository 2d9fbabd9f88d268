/**
 * RoboMMEPolicy against a Python server from the other side of the wire: `engram_ml.servers.robomme_standin`
 * (our stand-in for RoboMME's MME-VLA server, written from its protocol, on the openpi numpy framing in
 * Python's msgpack + numpy). The server's log says what arrived: flags, dtypes, shapes, its step count.
 * (RoboMME's own server code was checked by hand: docs/remote-policy.md.)
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { loadRemotePolicy } from "../../src/policy/remote/definition.js";
import { RoboMMEPolicy } from "../../src/policy/remote/RoboMMEPolicy.js";
import { projectPython, pythonMissing, pythonOptions } from "../../src/policy/remote/python.js";
import type { PreparedObservation } from "../../src/policy/types.js";
import { loadRobotProfile } from "../../src/robot/loadRobotProfile.js";

const missing = pythonMissing(["engram_ml", "websockets", "msgpack", "numpy"]);
const dir = mkdtempSync(join(tmpdir(), "engram-robomme-"));
const log = join(dir, "requests.jsonl");
let child: ChildProcess | null = null;
let url = "";

before(async () => {
  if (missing) return;
  const args = ["-m", "engram_ml.servers.robomme_standin", "--port", "0", "--log", log];
  child = spawn(projectPython(), args, { stdio: ["ignore", "pipe", "pipe"], ...pythonOptions() });
  url = await new Promise<string>((resolve, reject) => {
    let out = "", err = "";
    child!.stderr!.on("data", (d) => { err += String(d); });
    child!.on("exit", (code) => reject(new Error(`robomme_standin exited (${code}): ${err}`)));
    child!.stdout!.on("data", (d) => {
      out += String(d);
      const m = /on (ws:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
  });
});
after(() => { child?.kill("SIGTERM"); rmSync(dir, { recursive: true, force: true }); });

const PROMPT = "watch the video carefully, then press the button";
const frame = (k: number): PreparedObservation => ({
  stampNs: BigInt(k),
  images: { exterior_left: new Float32Array(3 * 256 * 256).fill(0.25), wrist: new Float32Array(3 * 256 * 256) },
  state: Float64Array.from([k, 0, 0, -2, 0, 1.5, 0.8, 0.04]),
});

const options = { skip: missing ?? false, timeout: 60_000 };

test("the Python stand-in decodes reset / add_buffer / infer as numpy, answers [20, 8] chunks", options, async () => {
  const robot = loadRobotProfile("robots/franka-droid.yaml").profile;
  const p = loadRemotePolicy("policies/robomme-remote", { robot, url, onProgress: () => undefined });
  assert.ok(p instanceof RoboMMEPolicy);
  try {
    await p.reset({ task: "VideoRepick", episode: 0, seed: 0, instruction: PROMPT });
    await p.observeDemonstration([frame(0), frame(1), frame(2)]);
    for (let k = 3; k < 6; k++) await p.observe(frame(k));
    const chunk = await p.act();
    assert.equal(chunk.horizon, 16);
    assert.deepEqual(Array.from(chunk.actions.slice(0, 8)), [5, 0, 0, -2, 0, 1.5, 0.800000011920929, 0]);
  } finally {
    await p.close();
  }
  type Line = { fields: Record<string, unknown>; step_idx: number; exec_start_idx: number };
  const lines = readFileSync(log, "utf8").trim().split("\n").map((l) => JSON.parse(l) as Line);
  const u8 = (shape: number[]) => ({ dtype: "|u1", shape });
  const f4 = (shape: number[]) => ({ dtype: "<f4", shape });
  const buffer = { add_buffer: true, images: u8([3, 1, 256, 256, 3]), state: f4([3, 8]), exec_start_idx: 3 };
  const infer = {
    "observation/image": u8([256, 256, 3]), "observation/wrist_image": u8([256, 256, 3]),
    "observation/state": f4([8]), prompt: PROMPT,
  };
  // [request fields, the server's step_idx and exec_start_idx after it]
  assert.deepEqual(lines.map((l) => [l.fields, l.step_idx, l.exec_start_idx]), [
    [{ reset: true }, -1, 0], [buffer, 2, 3], [buffer, 5, 3], [infer, 5, 3],
  ]);
});
