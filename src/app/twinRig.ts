/**
 * The sim twin in this process as a Rig (trial/rig.ts): a LocalBus on a sim clock (lock-step) or the
 * wall clock (real-time), a SimNode that sets each episode's scene, and the twin's own success
 * check, checkpoints and subtask ends as the verdict and ground truth.
 */
import { SimClock, WallClock } from "../bus/clock.js";
import { LocalBus } from "../bus/local.js";
import type { Bus } from "../bus/types.js";
import type { LoadedRunConfig } from "../config/loaders.js";
import type { LoadedRobot } from "../robot/loadRobotProfile.js";
import { SimNode } from "../sim/node/SimNode.js";
import { getTask } from "../sim/tasks/index.js";
import type { EpisodeHandle, EpisodeScore, Pacing, Rig, RigTask } from "../trial/rig.js";
import type { EpisodeEnd } from "../trial/tick.js";
import { controlHzOf } from "../trial/trialParts.js";

/** Lock-step bus time of a run's start (2023-11-14), ns. */
const RUN_EPOCH_NS = 1_700_000_000_000_000_000n;
/**
 * Lock-step bus time between the starts of consecutive episodes, ns (one hour of sim time, far
 * beyond any task's step limit). Episode i starts at RUN_EPOCH_NS + i·EPISODE_SLOT_NS, whatever ran
 * before it in the process: the runtime reads absolute stamps, which doubles round at ~2e-7 s
 * there, so a start that followed the earlier episodes' lengths would make an episode's actions
 * depend on them, and a `--jobs` or `--shard` worker (which runs other episodes before it) diverge
 * from a sequential run. ROS time's int32 seconds hold 124,000 such slots.
 */
const EPISODE_SLOT_NS = 3_600_000_000_000n;

/** Options of `TwinRig.create`. */
export interface TwinRigOptions {
  run: LoadedRunConfig;
  robot: LoadedRobot;
  /**
   * Lock-step camera frames (SimNode's `cameraFrames`): `tick` (default) renders only the frame each
   * control tick reads, `all` every frame at the camera's rate. What the policy observes is identical.
   */
  cameraFrames?: "all" | "tick";
  /** Lock-step only: each tick also waits for its wall-clock time (rig.ts, Pacing). Default false. */
  wallPaced?: boolean;
  /** Wraps the run's bus (`--view`: the live view taps it). Default: none. */
  tapBus?: (bus: Bus) => Bus;
}

type TaskEpisode = NonNullable<ReturnType<SimNode["reset"]>>;

/** The in-process twin. Closing it closes the node and the bus. */
export class TwinRig implements Rig {
  readonly sensors = "twin";
  readonly groundTruthTopics = true;
  readonly pacing: Pacing;
  private running: { episode: TaskEpisode; simFailure: Error | null } | null = null;

  private constructor(
    readonly bus: Bus, readonly node: SimNode, private readonly clock: SimClock | WallClock,
    private readonly physicsHz: number, wallPaced: boolean,
  ) {
    this.pacing = clock instanceof SimClock
      ? { kind: "lockstep", advanceTo: (ns) => node.advanceTo(ns), wallPaced }
      : { kind: "wall" };
  }

  /** Builds the bus and the twin's node; throws unless the run config runs the sim in process. */
  static async create(o: TwinRigOptions): Promise<TwinRig> {
    const cfg = o.run.config;
    if (!cfg.sim.enabled || cfg.bus.kind !== "local") {
      throw new Error(`runTrial runs the in-process sim twin: run config "${cfg.name}" needs sim.enabled: true `
        + `and bus.kind: local (got sim.enabled=${cfg.sim.enabled}, bus.kind=${cfg.bus.kind})`);
    }
    const lockstep = cfg.sim.mode === "lockstep";
    const clock = lockstep ? new SimClock(RUN_EPOCH_NS) : new WallClock();
    const local = new LocalBus({ clock });
    const bus = o.tapBus ? o.tapBus(local) : local;
    const controlHz = controlHzOf(cfg, o.robot.profile);
    const node = await SimNode.create({
      bus, robot: o.robot, physicsHz: cfg.sim.physics_hz, controlHz, cameraFrames: o.cameraFrames ?? "tick",
    });
    return new TwinRig(bus, node, clock, cfg.sim.physics_hz, lockstep && o.wallPaced === true);
  }

  /**
   * Lock-step: moves the bus to the episode's slot first. Sets the scene for `seed`; real-time: the
   * twin steps on the wall clock by itself until the episode's handle closes.
   */
  async reset(task: RigTask, seed: number, i: number): Promise<EpisodeHandle> {
    const { clock, node } = this;
    if (clock instanceof SimClock) {
      // The previous episode's last messages (its final command) are still in the bus's delivery
      // queue: let them arrive in that episode's time, as SimClock lets what a tick published
      // arrive before time moves on, not at the next slot (where the sim rejects a command from
      // an hour ago, logging it, and holds).
      await new Promise<void>((r) => setImmediate(r));
      await new Promise<void>((r) => setImmediate(r));
      const start = RUN_EPOCH_NS + BigInt(i) * EPISODE_SLOT_NS;
      if (clock.nowNs() > start) {
        throw new Error(`episode ${i} would start at bus time ${start} ns, `
          + `but the run is already at ${clock.nowNs()} ns `
          + `(an episode ran past ${EPISODE_SLOT_NS / 1_000_000_000n} s of sim time)`);
      }
      await clock.advanceTo(start);
    }
    const definition = getTask(task.id);
    const wall0 = performance.now();
    const sim0 = clock.nowNs();
    const episode = node.reset({ task: definition, seed })!;
    // A video task's demonstration runs before the policy's first tick (its frames go out on the bus).
    if (clock instanceof SimClock) await node.runDemonstration();
    const running = { episode, simFailure: null as Error | null };
    this.running = running;
    const stopSim = new AbortController();
    // A twin that fails ends the episode held (the verdict), never as an unhandled rejection that
    // would kill the run and its recording.
    const simLoop = clock instanceof SimClock ? null
      : node.runRealtime(stopSim.signal).catch((err: unknown) => {
        running.simFailure = err instanceof Error ? err : new Error(String(err));
      });
    const stop = async (): Promise<void> => { stopSim.abort(); await simLoop; };
    return {
      instruction: episode.instruction,
      subtasks: definition.subtasks(episode.scene),
      stepLimit: episode.limit,
      physicsHz: this.physicsHz,
      startPose: () => Object.fromEntries(node.world.jointNames().map((n, j) => [n, node.world.jointPositions()[j]!])),
      begin: () => {},
      finish: async (end: EpisodeEnd) => { await stop(); return { end, runGoesOn: false }; },
      score: (): EpisodeScore => {
        const simS = Number(clock.nowNs() - sim0) / 1e9, wallS = (performance.now() - wall0) / 1000;
        return {
          duration_s: Math.round(simS * 1000) / 1000,
          checkpoints: episode.checkpoints().map((c) => ({ id: c.id, label: c.label, step: c.step })),
          checkpoints_defined: task.checkpoints.map((c) => ({ id: c.id, label: c.label })),
          true_ends: episode.ends().map((e) => e.step),
          realtime_factor: wallS > 0 ? Math.round((simS / wallS) * 1000) / 1000 : null,
        };
      },
      close: stop,
    };
  }

  /** The twin failing (real-time mode), else its own success check once the episode is done. */
  verdict(): EpisodeEnd | null {
    if (!this.running) return null;
    const { episode, simFailure } = this.running;
    if (simFailure) return { kind: "aborted", reason: `sim twin (real-time mode) failed: ${simFailure.message}` };
    return episode.done ? (episode.success ? { kind: "success" } : { kind: "failure", reason: "step limit" }) : null;
  }

  async close(): Promise<void> {
    this.node.close();
    await this.bus.close();
  }
}
