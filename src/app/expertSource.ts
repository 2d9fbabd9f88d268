/**
 * The sim's scripted expert as a teleop source: every joint target vector the expert hands the
 * sim is also PUBLISHED on the leader-arm topic (sensor_msgs/JointState in the world's joint
 * order, stamped with the bus time it takes effect), so the recording holds real commands that
 * `engram replay` can re-send to a sim or a robot following the leader.
 */
import { RELIABLE_QOS, type Bus } from "../bus/types.js";
import { encode } from "../msgs/codec.js";
import { timeFromNs } from "../msgs/types.js";
import type { TaskEpisode } from "../sim/node/TaskEpisode.js";
import type { ExpertPerturbation } from "../sim/expert/perturbation.js";

/**
 * Wraps `episode.expert.next` so each step's targets are published on `leaderTopic` before the
 * sim applies them. With `perturbation` the sim executes the perturbed targets while the clean
 * ones are published (and so recorded as the action): DART-style data. NOTE: wraps the episode's
 * own expert object (the sim keeps driving with it); the wrap lives as long as the episode.
 * Throws when the episode has no expert.
 */
export function publishExpertTargets(
  episode: TaskEpisode, bus: Bus, leaderTopic: string, jointNames: readonly string[], perturbation?: ExpertPerturbation,
): void {
  const expert = episode.expert;
  if (!expert) throw new Error(`record: task "${episode.task.id}" seed ${episode.seed}: the episode has no scripted expert to publish`);
  const publish = bus.advertise(leaderTopic, "sensor_msgs/msg/JointState", RELIABLE_QOS);
  const names = [...jointNames];
  const inner = expert.next.bind(expert);
  expert.next = (world, step) => {
    const out = inner(world, step);
    publish(encode("sensor_msgs/msg/JointState", {
      header: { stamp: timeFromNs(bus.clock.nowNs()), frame_id: "" },
      name: names, position: Float64Array.from(out.targets), velocity: [], effort: [],
    }));
    return perturbation ? { ...out, targets: perturbation.apply(world, out) } : out;
  };
}
