/** Runs `engram run` on the sim twin as a child process and reads what it leaves (runStop/runAbort tests). */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { decode } from "../../src/msgs/codec.js";
import { ENGRAM_EVENTS } from "../../src/msgs/events.js";
import { McapSource } from "../../src/bus/mcapReader.js";
import { loadRobotProfile } from "../../src/robot/index.js";

const REPO = new URL("../../", import.meta.url).pathname;
const COMMAND_TOPIC = loadRobotProfile(join(REPO, "robots/x-one.yaml")).profile.command.joint_topic;

/** How the child exited, and when (performance.now()). */
export interface Exit { code: number | null; signal: NodeJS.Signals | null; atMs: number; stderr: string }

/** Spawns `engram run launch/sim-x-one.yaml` with `policy` into `out`; `preload` is an extra `node --import`, `args` more flags. */
export function startRun(out: string, policy: string, episodes: number, opts: { preload?: string; env?: Record<string, string>; args?: string[] } = {}): { child: ChildProcess; exited: Promise<Exit>; stderr: () => string } {
  const preload = opts.preload ? ["--import", opts.preload] : [];
  const child = spawn(process.execPath, ["--import", "tsx", ...preload, "src/cli.ts", "run", "launch/sim-x-one.yaml", "--policy", policy, "--episodes", String(episodes), "--out", out, ...(opts.args ?? [])], {
    cwd: REPO, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...opts.env },
  });
  let stderr = "";
  child.stderr!.on("data", (c) => { stderr += String(c); });
  child.stdout!.resume();
  const exited = new Promise<Exit>((resolve) => child.on("exit", (code, signal) => resolve({ code, signal, atMs: performance.now(), stderr })));
  return { child, exited, stderr: () => stderr };
}

/** Polls `ok` every 100 ms; throws when the child exits first or after `timeoutMs`. */
export async function until(what: string, ok: () => boolean, timeoutMs: number, exited: Promise<Exit>): Promise<void> {
  let done: Exit | null = null;
  void exited.then((e) => { done = e; });
  const t0 = performance.now();
  while (!ok()) {
    if (done) throw new Error(`engram run exited (${(done as Exit).code}) before ${what}: ${(done as Exit).stderr}`);
    if (performance.now() - t0 > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** One /engram/events object. */
export type Ev = { event: string; [k: string]: unknown };

/** Events, the command topic's message count and joint-state log times, read through the MCAP index. */
export async function readEpisode(path: string): Promise<{ mode: string; events: Ev[]; commands: number; lastCommandPoints: number; joints: bigint[]; lastNs: bigint }> {
  const src = await McapSource.open(path, "indexed"); // throws when the file has no usable index
  try {
    const events: Ev[] = [];
    const joints: bigint[] = [];
    let commands = 0, lastCommandPoints = -1;
    let lastNs = 0n;
    for await (const m of src.messages({ topics: [ENGRAM_EVENTS.topic, "/joint_states", COMMAND_TOPIC] })) {
      if (m.logTimeNs > lastNs) lastNs = m.logTimeNs;
      if (m.topic === ENGRAM_EVENTS.topic) events.push(ENGRAM_EVENTS.decode(m.cdr) as Ev);
      else if (m.topic === "/joint_states") joints.push(m.logTimeNs);
      else { commands++; lastCommandPoints = decode("trajectory_msgs/msg/JointTrajectory", m.cdr).points.length; }
    }
    return { mode: src.mode, events, commands, lastCommandPoints, joints, lastNs };
  } finally {
    await src.close();
  }
}

/** The objects of a .jsonl file. */
export const jsonl = (path: string) => readFileSync(path, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l) as Ev);

