import { fileURLToPath } from "node:url";
import { encode } from "../src/msgs/codec.js";
import { percentile } from "../src/observe/stats.js";
import type { ActionChunk } from "../src/policy/types.js";
import { getLayout, loadRobotProfile } from "../src/robot/index.js";
import { streamOutput, trajectoryOutput } from "../src/control/output/index.js";
import { SafetyFilter } from "../src/control/safetyFilter.js";

/**
 * `engram bench control`: cost of the safety/output stage on robots/x-one.yaml with a 30 x 16 chunk
 * that needs clamping (joints past their limits, steps past the rate limit): checkChunk + trajectory
 * build (+ CDR encode), and per tick checkStep + stream build. Figures in µs.
 */
export async function bench(): Promise<Record<string, unknown>> {
  const { profile } = loadRobotProfile(fileURLToPath(new URL("../robots/x-one.yaml", import.meta.url)));
  const layout = getLayout(profile, "bimanual_16d");
  if (layout.kind !== "joint") throw new Error("x-one bimanual_16d must be a joint layout");
  const H = 30, D = layout.names.length;
  const actions = new Float64Array(H * D);
  for (let k = 0; k < H; k++) for (let j = 0; j < D; j++) actions[k * D + j] = Math.sin(0.3 * k + j) * (j % 3 === 0 ? 4 : 0.5);
  const chunk: ActionChunk = { jointNames: layout.names, actions, horizon: H, dim: D };
  const measured = profile.home;
  const filter = new SafetyFilter({ profile, layout });
  const traj = trajectoryOutput(profile, layout.names);
  const stream = streamOutput(profile, layout.names);

  const chunkUs: number[] = [], encodeUs: number[] = [], stepUs: number[] = [];
  let clamped = 0;
  for (let i = 0; i < 1200; i++) {
    const t0 = performance.now();
    const v = filter.checkChunk(chunk, measured);
    if (v.kind === "hold") throw new Error(`bench chunk unexpectedly held: ${v.details}`);
    if (v.kind === "clamped") clamped = v.interventions.length;
    const [msg] = traj.buildChunk(v.command, 0n, measured);
    const t1 = performance.now();
    if (msg?.type === "trajectory_msgs/msg/JointTrajectory") encode(msg.type, msg.message);
    const t2 = performance.now();
    const s = filter.checkStep({ jointNames: layout.names, positions: actions.subarray((i % H) * D, (i % H + 1) * D) }, measured);
    if (s.kind !== "hold") stream.buildStep(s.command, 0n, measured);
    const t3 = performance.now();
    if (i >= 200) { chunkUs.push((t1 - t0) * 1e3); encodeUs.push((t2 - t1) * 1e3); stepUs.push((t3 - t2) * 1e3); }
  }
  const round = (x: number) => Math.round(x * 10) / 10;
  return {
    chunk: `${H}x${D}`,
    interventions_per_chunk: clamped,
    check_chunk_and_trajectory_build_us_p50: round(percentile(chunkUs, 0.5)),
    check_chunk_and_trajectory_build_us_p99: round(percentile(chunkUs, 0.99)),
    trajectory_cdr_encode_us_p50: round(percentile(encodeUs, 0.5)),
    check_step_and_stream_build_us_p50: round(percentile(stepUs, 0.5)),
    check_step_and_stream_build_us_p99: round(percentile(stepUs, 0.99)),
  };
}
