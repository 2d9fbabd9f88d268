/**
 * `engram start` (`npm start`): the main job on its embedded default. Until a trained reference
 * policy ships, that is the sim twin (X-One, lock-step, no ROS 2) running its scripted expert on
 * Put Back Block for a few episodes, writing snapshots and printing the summary.
 * Extra arguments are passed through to `engram sim`.
 */
export async function main(args: string[]): Promise<number> {
  const sim = await import("./sim.js");
  const defaults = ["launch/sim-x-one.yaml", "--expert", "--task", "put-back-block", "--episodes", "3", "--seed", "1000"];
  return sim.main([...defaults, ...args]);
}
