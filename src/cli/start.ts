/**
 * `engram start` (`npm start`): the main job on its embedded default. The sim twin (X-One,
 * in-process, lock-step, no ROS 2) runs the shipped reference policy policies/mem0-tiny on Put Back
 * Block for five held-out seeds, with a progress bar, and writes the run folder (episode MCAPs,
 * events, summary.json, report.md). Extra arguments are passed through to `engram run`
 * (e.g. `--episodes 1`, `--out DIR`, `--json`).
 */
export async function main(args: string[]): Promise<number> {
  const run = await import("./run.js");
  const defaults = ["launch/sim-x-one.yaml", "--policy", "policies/mem0-tiny", "--task", "put-back-block", "--episodes", "5", "--seed", "1000"];
  return run.main([...defaults, ...args]);
}
