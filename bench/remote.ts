/**
 * Remote-policy bench section (issue 13): Put Back Block episodes on the sim twin
 * (launch/sim-x-one.yaml: X-One, 3 cameras at 128x96) until at least 400 control steps have run,
 * mem0-tiny served by `python -m engram_ml serve` over the `mem0` protocol with 150 ms added to every
 * reply, the control loop at 10 Hz paced on the wall clock (runTrial's `wallPaced`: the twin stays
 * lock-step and deterministic, the policy's round trips cost wall time as on hardware). Each
 * episode's tick clock starts once its first chunk is in (`first_chunk_ms`, the arm at rest until
 * then); from there on every late tick and every hold counts.
 *
 *   npm run bench -- remote
 *
 * starts the server itself on the shipped policies/mem0-tiny (its weights rebuilt into a torch
 * checkpoint by `python -m engram_ml import-bundle`). ENGRAM_REMOTE_BENCH_DELAY_MS (default 150),
 * ENGRAM_REMOTE_BENCH_SEED (first seed, default 1000), ENGRAM_REMOTE_BENCH_STEPS (default 400; also
 * each episode's step limit). Against a server already running elsewhere (its latency is whatever it
 * is): ENGRAM_REMOTE_BENCH_URL=ws://gpu-host:8765 (and ENGRAM_REMOTE_BENCH_BUNDLE, default policies/mem0-remote).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadRunConfig } from "../src/config/loaders.js";
import { percentile } from "../src/observe/stats.js";
import { pythonServerMissing, startPolicyServer, type LocalServer } from "../src/policy/remote/localServer.js";
import { runEngramMl } from "../src/policy/remote/python.js";
import { RemotePolicy } from "../src/policy/remote/RemotePolicy.js";
import { loadRobotProfile } from "../src/robot/loadRobotProfile.js";
import { runTrial } from "../src/app/runTrial.js";

function stats(ms: number[]): { p50: number; p99: number; max: number; n: number } | null {
  if (ms.length === 0) return null;
  const r = (v: number) => Math.round(v * 10) / 10;
  return { p50: r(percentile(ms, 0.5)), p99: r(percentile(ms, 0.99)), max: r(Math.max(...ms)), n: ms.length };
}

function intEnv(name: string, fallback: number): number {
  const v = process.env[name];
  if (v === undefined || v === "") return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name}=${JSON.stringify(v)}: expected a non-negative number`);
  return n;
}

/** Rebuilds a torch checkpoint from the shipped ONNX bundle and serves it with `delayMs` added per reply. */
async function startShippedServer(dir: string, delayMs: number): Promise<LocalServer> {
  const ckpt = join(dir, "mem0-tiny.pt");
  const r = runEngramMl(["import-bundle", "policies/mem0-tiny", ckpt, join(dir, "perception.pt")]);
  if (r.status !== 0) throw new Error(`engram_ml import-bundle policies/mem0-tiny failed: ${r.stderr.trim()}`);
  return startPolicyServer(["--checkpoint", ckpt, "--port", "0", "--delay-ms", String(delayMs), "--threads", "1"]);
}

/** The figures of wall-paced twin episodes (at least ENGRAM_REMOTE_BENCH_STEPS steps in all) against the policy server. */
export async function bench(): Promise<Record<string, unknown>> {
  const minSteps = intEnv("ENGRAM_REMOTE_BENCH_STEPS", 400), seed = intEnv("ENGRAM_REMOTE_BENCH_SEED", 1000);
  let url = process.env.ENGRAM_REMOTE_BENCH_URL;
  const bundle = process.env.ENGRAM_REMOTE_BENCH_BUNDLE ?? "policies/mem0-remote";
  const dir = mkdtempSync(join(tmpdir(), "engram-remote-bench-"));
  let server: LocalServer | null = null;
  let delayMs: number | null = null;
  try {
    if (!url) {
      const missing = pythonServerMissing(["onnx"]);
      if (missing) return { skipped: `${missing}; or set ENGRAM_REMOTE_BENCH_URL to a running policy server (python -m engram_ml serve)` };
      delayMs = intEnv("ENGRAM_REMOTE_BENCH_DELAY_MS", 150);
      server = await startShippedServer(dir, delayMs);
      url = server.url;
    }
    const run = loadRunConfig("launch/sim-x-one.yaml");
    const robot = loadRobotProfile(run.robotPath);
    const episodes: Record<string, unknown>[] = [];
    const events: Record<string, unknown>[] = [];
    const observeRoundTripMs: number[] = [], observeWaitMs: number[] = [], actWaitMs: number[] = [], tickBusyMs: number[] = [];
    let late = 0, lateOnPolicy = 0, steps = 0;
    // One episode per trial (a solved episode ends early), until the steps add up; the server stays up.
    for (let i = 0; steps < minSteps; i++) {
      const out = join(dir, `run-${i}`);
      let policy: RemotePolicy | null = null;
      await runTrial({
        run, robot, policyPath: bundle, policyUrl: url, task: "put-back-block",
        episodes: 1, seed: seed + i, outDir: out, maxSteps: minSteps, noRecord: true, wallPaced: true,
        wrapPolicy: (p) => {
          if (!(p instanceof RemotePolicy)) throw new Error(`${bundle} is not a remote policy bundle (kind: remote)`);
          return (policy = p);
        },
      });
      const ev = readFileSync(join(out, "events.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
      const ticks = JSON.parse(readFileSync(join(out, "ticks.jsonl"), "utf8").trim().split("\n")[0]!) as { tick_ms: number[]; late: number; late_on_policy: number; first_chunk_ms: number | null };
      const end = ev.find((e) => e.event === "episode_end");
      const n = Number(end?.steps ?? 0);
      steps += n; late += ticks.late; lateOnPolicy += ticks.late_on_policy;
      tickBusyMs.push(...ticks.tick_ms);
      events.push(...ev);
      const t = (policy as RemotePolicy | null)!.timing;
      // The waits of the ticks after the first chunk's (that tick's waits are first_chunk_ms).
      const firstStep = Number(ev.find((e) => e.event === "first_chunk")?.step ?? 0);
      observeRoundTripMs.push(...t.observeRoundTripMs);
      observeWaitMs.push(...t.observeCallMs.slice(firstStep + 1));
      actWaitMs.push(...t.actCallMs.slice(1));
      episodes.push({ seed: seed + i, steps: n, outcome: end?.outcome ?? null, first_chunk_ms: ticks.first_chunk_ms, late: ticks.late, late_on_policy: ticks.late_on_policy, declared_ends: ev.filter((e) => e.event === "subtask_end").length });
    }
    const of = (name: string) => events.filter((e) => e.event === name);
    const chunks = of("remote_chunk");
    return {
      url, bundle, delay_ms_added: delayMs, task: "put-back-block", control_hz: 10, cameras: 3,
      steps, episodes,
      late_ticks: late,
      // Late but for their own observe + act wait; the others were late from the twin's physics and rendering (in the tick's period here) or the host's load.
      late_ticks_from_policy: lateOnPolicy,
      holds: of("safety_hold").length, hold_reasons: [...new Set(of("safety_hold").map((e) => `${String(e.reason)}: ${String(e.details ?? "")}`.slice(0, 160)))],
      remote_faults: of("remote_fault").map((e) => String(e.reason).slice(0, 200)),
      round_trip_ms: { observe_3_cameras: stats(observeRoundTripMs), act: stats(chunks.map((c) => Number(c.roundTripMs))) },
      tick_wait_on_policy_ms: { observe: stats(observeWaitMs), act: stats(actWaitMs) },
      tick_busy_ms: stats(tickBusyMs),
      chunks: chunks.length, prefetched_chunks: chunks.filter((c) => c.prefetched === true).length,
      dropped_points_mean: chunks.length ? Math.round(chunks.reduce((a, c) => a + Number(c.dropped), 0) / chunks.length * 100) / 100 : null,
      stale_chunks: of("remote_stale_chunk").length,
    };
  } finally {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
