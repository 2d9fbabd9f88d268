/**
 * The sim twin as a robot on a Bus: it publishes the profile's joint states, cameras and camera
 * infos at their rates with their frame ids, /clock, and the task's ground truth (/sim/*); it
 * obeys the commands the runtime's output adapters publish (JointTrajectory chunks, streamed
 * JointState targets, PoseStamped + gripper, the leader arm). Time: lock-step (`advanceTo` /
 * `advanceBy`, the caller drives; a SimClock on the bus follows) or real-time (`runRealtime`,
 * paced on the bus's wall clock).
 * NOTE: over 300 lines: the node owns the world, the sensors, the command followers and the clock,
 * and both time modes step them in one order; the parts live in files beside it (sensors.ts,
 * commands.ts, TaskEpisode.ts, resetServer.ts).
 */
import { SimClock } from "../../bus/clock.js";
import { RELIABLE_QOS, type Bus } from "../../bus/types.js";
import { decode } from "../../msgs/codec.js";
import type { RosTypeMap, KnownRosType } from "../../msgs/types.js";
import {
  SIM_CHECKPOINTS, SIM_EPISODE, SIM_LOG, SIM_SUBTASK, SIM_SUBTASK_END, type SimCheckpointMsg, type SimEpisodeMsg,
} from "../../msgs/simTopics.js";
import type { TopicContract } from "../../msgs/topicContract.js";
import type { LoadedRobot } from "../../robot/loadRobotProfile.js";
import type { CommandSpec } from "../../robot/types.js";
import type { TaskDefinition, TaskScene } from "../tasks/types.js";
import { SimWorld } from "../world/SimWorld.js";
import { TrajectoryFollower, validateJointTargets, validateTrajectory, type CommandVerdict, type ValidTargets } from "./commands.js";
import { gripperToTarget, poseToTargets } from "./poseCommand.js";
import { RenderPool } from "./renderPool.js";
import { SensorPublishers } from "./sensors.js";
import { TaskEpisode, type EpisodeTick } from "./TaskEpisode.js";

/** Options of a SimNode. */
export interface SimNodeOptions {
  bus: Bus;
  robot: LoadedRobot;
  /** Physics rate, Hz (≥ 240, a whole multiple of the control rate). Default 240. */
  physicsHz?: number;
  /** Task control rate, Hz (task updates, expert ticks). Default profile.control_hz. */
  controlHz?: number;
  /** Render and publish cameras (default true). */
  cameras?: boolean;
  /** Render cameras in this many worker threads (0 = on the sim's thread, the default). */
  renderWorkers?: number;
  /** /clock rate, Hz (default 100; 0 = off). */
  clockHz?: number;
  /** Which command interface the runtime drives (default profile.command.interface). */
  commandInterface?: CommandSpec["interface"];
  /** Where rejected commands and warnings go (default console.warn); they also go on /sim/log. */
  log?: (line: string) => void;
  /**
   * Follow the leader-arm topic directly (default true, a follower whose driver mirrors the leader).
   * False when the runtime forwards the leader through its safety filter (`engram record --source
   * leader|keyboard`), so only the filtered command moves the arm.
   */
  followLeader?: boolean;
  /**
   * Which camera frames lock-step advances publish: `all` (default; every frame at the camera's
   * rate, what a recording needs) or `tick` (only each camera's last frame due within one
   * `advanceTo`, i.e. the frame a control tick at the advance's end reads; the frames in between are
   * never rendered). Each published frame is identical either way. Real-time mode publishes all.
   */
  cameraFrames?: "all" | "tick";
  /** Called after every control step of an episode (snapshots, progress). */
  onTick?: (tick: EpisodeTick, node: SimNode) => void | Promise<void>;
}

/** Real-time mode drops camera frames while the sim runs more than this behind the wall clock. */
const REALTIME_DROP_LAG_NS = 50_000_000;
/** Longest the lock-step loop runs physics steps without yielding to timers and signals (ms). */
const MAX_BLOCK_MS = 50;

/** The sim twin's node. Create with `SimNode.create`. */
export class SimNode {
  readonly world: SimWorld;
  readonly sensors: SensorPublishers;
  episode: TaskEpisode | null = null;
  private readonly substeps: number;
  private readonly controlHz: number;
  private readonly simClock: SimClock | null;
  private readonly follower: TrajectoryFollower;
  private readonly unsubscribe: (() => void)[] = [];
  private readonly pub: {
    subtaskEnd: (ended: boolean) => void; subtask: (text: string) => void; checkpoints: (c: SimCheckpointMsg) => void;
    episode: (m: SimEpisodeMsg) => void; log: (line: string) => void;
  };
  private epochNs = 0n;
  private expertOut: { subtaskEnded?: string; subtask?: string; done: boolean } | null = null;
  private closed = false;
  private realtime = false;
  private readonly pool: RenderPool | null;
  private readonly tickHooks: ((tick: EpisodeTick, node: SimNode) => void | Promise<void>)[] = [];

  private constructor(private readonly o: SimNodeOptions, world: SimWorld) {
    const profile = o.robot.profile;
    this.world = world;
    const controlHz = o.controlHz ?? profile.control_hz;
    this.controlHz = controlHz;
    this.substeps = Math.round(world.physicsHz / controlHz);
    if (this.substeps < 1 || Math.abs(this.substeps * controlHz - world.physicsHz) > 1e-6) {
      throw new Error(`sim: physics rate ${world.physicsHz} Hz is not a whole multiple of the control rate ${controlHz} Hz`);
    }
    this.simClock = o.bus.clock instanceof SimClock ? o.bus.clock : null;
    this.pool = (o.renderWorkers ?? 0) > 0 && (o.cameras ?? true) ? new RenderPool(o.renderWorkers!) : null;
    this.sensors = new SensorPublishers({
      bus: o.bus, world, profile, calibrations: o.robot.calibrations, cameras: o.cameras, clockHz: o.clockHz,
      ...(this.pool ? { renderPool: this.pool } : {}),
    });
    this.follower = new TrajectoryFollower(world.jointPositions());
    const pub = <T>(c: TopicContract<T>) => {
      const send = o.bus.advertise(c.topic, c.type, c.qos);
      return (value: T) => send(c.encode(value));
    };
    this.pub = {
      subtaskEnd: pub(SIM_SUBTASK_END), subtask: pub(SIM_SUBTASK), checkpoints: pub(SIM_CHECKPOINTS),
      episode: pub(SIM_EPISODE), log: pub(SIM_LOG),
    };
    this.subscribeCommands();
    this.epochNs = o.bus.clock.nowNs();
  }

  /** Builds the world (rapier) and the node's publishers and subscriptions. */
  static async create(o: SimNodeOptions): Promise<SimNode> {
    const world = await SimWorld.create({ profile: o.robot.profile, physicsHz: o.physicsHz ?? 240 });
    return new SimNode(o, world);
  }

  /** Bus time of the current sim state, ns (episode epoch + sim time since reset). */
  get nowNs(): bigint { return this.epochNs + this.world.timeNs; }

  /** Control steps per physics step ratio (physics steps per control step). */
  get physicsStepsPerControl(): number { return this.substeps; }

  private log(line: string): void {
    (this.o.log ?? ((l: string) => console.warn(l)))(line);
    if (!this.closed) this.pub.log(line);
  }

  private sub<K extends KnownRosType>(topic: string, type: K, handle: (msg: RosTypeMap[K]) => CommandVerdict<ValidTargets> | "handled"): void {
    this.unsubscribe.push(this.o.bus.subscribe(topic, type, { ...RELIABLE_QOS, depth: 10 }, (cdr) => {
      let verdict: CommandVerdict<ValidTargets> | "handled";
      try {
        verdict = handle(decode(type, cdr));
      } catch (err) {
        verdict = { kind: "reject", reason: `${topic}: undecodable ${type}: ${err instanceof Error ? err.message : String(err)}` };
      }
      if (verdict === "handled") return;
      if (verdict.kind === "accept") this.follower.setTargets(verdict.value);
      else {
        this.log(`rejected command on ${topic}: ${verdict.reason}; holding [t=${this.nowNs} ns]`);
        this.follower.holdAt(this.world.jointPositions());
      }
    }));
  }

  private subscribeCommands(): void {
    const profile = this.o.robot.profile, cmd = profile.command, joints = profile.joints;
    const iface = this.o.commandInterface ?? cmd.interface;
    if (iface === "stream") {
      this.sub(cmd.joint_topic, "sensor_msgs/msg/JointState", (m) => validateJointTargets(m, joints, cmd.joint_topic));
    } else {
      this.sub(cmd.joint_topic, "trajectory_msgs/msg/JointTrajectory", (m) => {
        const v = validateTrajectory(m, joints, this.nowNs, cmd.joint_topic);
        if (v.kind === "reject") return v;
        this.follower.start(v.value, this.nowNs, this.world.jointPositions());
        return "handled";
      });
    }
    const eeArm = Object.values(profile.layouts).find((l) => l.kind === "end_effector");
    const arm = profile.arms.find((a) => eeArm?.kind === "end_effector" && a.name === eeArm.arm) ?? profile.arms[0]!;
    if (cmd.pose_topic) this.sub(cmd.pose_topic, "geometry_msgs/msg/PoseStamped", (m) => poseToTargets(m, arm, this.world, cmd.pose_topic));
    if (cmd.gripper_topic) {
      const gi = this.world.jointNames().indexOf(arm.gripper);
      this.sub(cmd.gripper_topic, "std_msgs/msg/Float32", (m) => gripperToTarget(m, joints[gi]!, gi, cmd.gripper_topic));
    }
    if (this.o.followLeader ?? true) {
      this.sub(profile.teleop.leader_topic, "sensor_msgs/msg/JointState", (m) => validateJointTargets(m, joints, profile.teleop.leader_topic));
    }
  }

  /**
   * Starts an episode: resets the world (robot at home), builds the task scene for `seed` and,
   * with `expert`, lets the task's scripted expert drive. Without a task, just resets the robot.
   */
  reset(episode?: { task: TaskDefinition<TaskScene>; seed: number; expert?: boolean }): TaskEpisode | null {
    this.epochNs = this.o.bus.clock.nowNs();
    this.world.reset();
    this.follower.holdAt(this.world.jointPositions());
    this.sensors.restart();
    this.expertOut = null;
    this.episode = episode ? new TaskEpisode(episode.task, episode.seed, this.world, this.o.robot.profile, this.controlHz, episode.expert ?? false) : null;
    if (this.episode) {
      const e = this.episode;
      const subtasks = e.task.subtasks(e.scene);
      this.pub.episode({ done: false, task: e.task.id, seed: e.seed, instruction: e.instruction, subtasks });
      if (e.currentSubtask !== undefined) this.pub.subtask(e.currentSubtask);
    }
    return this.episode;
  }

  /**
   * Runs 0.1 s of sim (publishing) and resets the robot: the first steps pay one-off costs
   * (codec set-up, lazy wasm and module work: seconds on a loaded machine) that would otherwise
   * put a real-time loop behind from its start. Call before `runRealtime`.
   */
  async warmUp(): Promise<void> {
    this.reset();
    await this.advanceBy(100_000_000n);
    this.reset();
  }

  /** Lock-step: runs physics steps up to bus time `ns`, publishing everything due on the way. */
  async advanceTo(ns: bigint): Promise<void> {
    // Let the bus deliver commands published before this call, so they act from the first step.
    await new Promise<void>((r) => setImmediate(r));
    const untilNs = this.o.cameraFrames === "tick" && !this.realtime ? this.lastStepTimeBefore(ns) : undefined;
    let yieldedAtMs = performance.now();
    while (!this.closed && this.epochNs + this.world.stepTimeNs(this.world.stepCount + 1) <= ns) {
      await this.stepOnce(untilNs);
      // Awaited steps run as microtasks: yield to timers and signal handlers now and then, so no
      // number of physics steps per tick can hold the thread (and a SIGINT) for long.
      if (performance.now() - yieldedAtMs > MAX_BLOCK_MS) {
        await new Promise<void>((r) => setImmediate(r));
        yieldedAtMs = performance.now();
      }
    }
    await this.sensors.flush();
    // One more turn delivers the frames whose JPEG encodes finished last, so a tick at `ns` always
    // reads the frame due at `ns` (without it, a race with sharp's threads chose that or the one before).
    await new Promise<void>((r) => setImmediate(r));
    if (this.simClock && ns > this.simClock.nowNs()) await this.simClock.advanceTo(ns);
  }

  /** Episode-relative time of the last physics step at or before bus time `ns`, ns. */
  private lastStepTimeBefore(ns: bigint): number {
    let k = this.world.stepCount;
    while (this.epochNs + this.world.stepTimeNs(k + 1) <= ns) k++;
    return Number(this.world.stepTimeNs(k));
  }

  /** Lock-step: advances by `deltaNs` from the current sim time. */
  advanceBy(deltaNs: bigint): Promise<void> { return this.advanceTo(this.nowNs + deltaNs); }

  /**
   * Lock-step: runs the episode's demonstration phase (RoboMME's video tasks) to its end, publishing
   * its frames and joint states as any other steps; returns its control steps (0 without one).
   */
  async runDemonstration(): Promise<number> {
    const e = this.episode;
    if (!e) throw new Error("sim: runDemonstration needs an episode (call reset with a task first)");
    const periodNs = this.world.stepTimeNs(this.substeps);
    while (e.inDemonstration && !this.closed) {
      await this.advanceTo(this.epochNs + this.world.stepTimeNs(this.world.stepCount) + periodNs);
    }
    return e.demonstrationSteps;
  }

  /** Lock-step: runs whole control steps until the episode is done (or `maxSteps`); returns control steps run. */
  async runEpisode(maxSteps = Infinity): Promise<number> {
    const e = this.episode;
    if (!e) throw new Error("sim: runEpisode needs an episode (call reset with a task first)");
    const periodNs = this.world.stepTimeNs(this.substeps);
    let n = 0;
    while (!e.done && n < maxSteps && !this.closed) { await this.advanceTo(this.epochNs + this.world.stepTimeNs(this.world.stepCount) + periodNs); n++; }
    return n;
  }

  private async stepOnce(untilNs?: number): Promise<void> {
    const w = this.world, e = this.episode;
    const atControl = w.stepCount % this.substeps === 0;
    const expertDrives = e?.expertDrives ?? false;
    if (e && expertDrives && atControl && !e.done) {
      const out = e.expertTargets(w)!;
      w.setJointTargets(out.targets);
      this.expertOut = out;
    } else if (!expertDrives) {
      w.setJointTargets(this.follower.targetsAt(this.nowNs));
    }
    w.step();
    const stamp = this.nowNs;
    if (this.simClock && stamp > this.simClock.nowNs()) await this.simClock.advanceTo(stamp);
    const late = this.realtime && Number(this.o.bus.clock.nowNs() - stamp) > REALTIME_DROP_LAG_NS;
    const published = await this.sensors.publishDue(Number(w.timeNs), stamp, late, untilNs);
    const atTick = e !== null && !e.done && w.stepCount % this.substeps === 0;
    if (atTick) await this.controlTick(e);
    // Let the bus deliver what this step published (subscribers see it at this sim time).
    if (published || atTick) await new Promise<void>((r) => setImmediate(r));
  }

  private async controlTick(e: TaskEpisode): Promise<void> {
    const tick = e.tick(this.world, e.expert ? this.expertOut : null);
    // The demonstration just ended: whoever commands next starts from where it left the arm.
    if (tick.demonstration && !e.inDemonstration) this.follower.holdAt(this.world.jointPositions());
    this.pub.subtaskEnd(tick.subtaskEnded !== undefined);
    if (tick.subtaskChanged !== undefined) this.pub.subtask(tick.subtaskChanged);
    for (const c of tick.checkpoints) this.pub.checkpoints({ task: e.task.id, seed: e.seed, ...c });
    if (tick.done) {
      this.pub.episode({
        done: true, task: e.task.id, seed: e.seed, success: e.success, steps: e.stepCount,
        checkpoints: e.checkpoints(), subtask_ends: e.ends(),
      });
    }
    await this.o.onTick?.(tick, this);
    for (const h of [...this.tickHooks]) await h(tick, this);
  }

  /** Adds a hook called after every control step of an episode; returns its remover. */
  onTickHook(hook: (tick: EpisodeTick, node: SimNode) => void | Promise<void>): () => void {
    this.tickHooks.push(hook);
    return () => { const i = this.tickHooks.indexOf(hook); if (i >= 0) this.tickHooks.splice(i, 1); };
  }

  /**
   * Real-time mode: steps physics to keep up with the bus's (wall) clock until `signal` aborts.
   * Warns once per episode when it falls more than 100 ms behind. `beforeAdvance` runs between
   * advances, where the scene may change (a reset served over the bus: SimResetServer.poll).
   */
  async runRealtime(signal: AbortSignal, beforeAdvance?: () => void): Promise<void> {
    this.realtime = true;
    let warned = false;
    while (!signal.aborted && !this.closed) {
      beforeAdvance?.();
      const target = this.o.bus.clock.nowNs();
      await this.advanceTo(target);
      const lagMs = Number(this.o.bus.clock.nowNs() - this.nowNs) / 1e6;
      if (lagMs > 100 && !warned) { warned = true; this.log(`sim: real-time mode is ${lagMs.toFixed(0)} ms behind the wall clock (physics + rendering too slow); dropping camera frames until it catches up`); }
      if (lagMs < 5) await new Promise((r) => setTimeout(r, 2));
      else await new Promise((r) => setImmediate(r));
    }
    this.realtime = false;
  }

  /** Unsubscribes, stops stepping, stops render workers and frees the physics world (the bus stays open). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const u of this.unsubscribe) u();
    void this.pool?.close();
    this.world.dispose();
  }
}
