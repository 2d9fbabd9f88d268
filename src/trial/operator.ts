/**
 * The operator of a hardware trial: resets the scene between episodes ("reset the scene, press
 * enter") and judges each episode (`s` success, `f` failure, `a` abort; `q` stops the run). Input
 * is an injected async source of text: one key per item from a raw-mode terminal (works over SSH,
 * no global hotkeys), one line per item from a pipe, or one message per item on the
 * `/engram/operator` topic (std_msgs/msg/String), which is how an operator talks to a trial started
 * by `ros2 launch` (launch gives its processes no terminal). Tests inject a scripted source.
 */
import { RELIABLE_QOS, type Bus } from "../bus/types.js";
import { codecFor } from "../msgs/codec.js";
import { watchHeartbeat } from "./heartbeat.js";
import { OPERATOR_TOPIC, type OperatorInput } from "./operatorInput.js";

export { SimJudge, type SimJudgeOptions } from "./simJudge.js";
export { InputQueue, mergeInputs, OPERATOR_TOPIC, terminalInput, topicInput, type OperatorInput } from "./operatorInput.js";

/** Where a trial also publishes its operator prompts (std_msgs/msg/String, latched), for an operator elsewhere. */
export const OPERATOR_PROMPT_TOPIC = "/engram/operator_prompt";

/** The scene an episode runs on: the task id and the seed of episode i (the run's seed + i). */
export interface EpisodeScene { task: string; seed: number }

/** An episode outcome as the operator judges it. */
export type OperatorOutcome = "success" | "failure" | "aborted";

/** What one input item means. */
export type OperatorCommand = { kind: "start" } | { kind: "stop" } | { kind: "outcome"; outcome: OperatorOutcome };

/** What the operator is being asked for now (for prompts and scripted operators). */
export type OperatorPhase = "reset" | "running" | "outcome" | "idle";

/**
 * Reads one input item: enter (an empty line, `\r`, `\n`, "enter") starts, `s`/`f`/`a` judge,
 * `q` or Ctrl-C stops; case and surrounding spaces are ignored. Anything else is null. Pure.
 */
export function parseOperatorInput(text: string): OperatorCommand | null {
  if (text === "\r" || text === "\n" || text === "\r\n") return { kind: "start" };
  const t = text.trim().toLowerCase();
  switch (t) {
    case "": case "enter": return { kind: "start" };
    case "s": case "success": return { kind: "outcome", outcome: "success" };
    case "f": case "failure": case "fail": return { kind: "outcome", outcome: "failure" };
    case "a": case "abort": case "aborted": return { kind: "outcome", outcome: "aborted" };
    case "q": case "quit": case "stop": case "\u0003": return { kind: "stop" };
    default: return null;
  }
}

/** Options of an Operator. */
export interface OperatorOptions {
  /** Prompt and notice lines (default: stderr). */
  write?: (line: string) => void;
  /** Called when the phase changes (scripted operators in tests answer prompts through this). */
  onPhase?: (phase: OperatorPhase, episode: number) => void;
}

/**
 * Who starts and judges the episodes of a trial whose robot the trial does not own: a human
 * `Operator`, or `SimJudge` when the robot is the sim twin in another process.
 */
export interface TrialJudge {
  /** True once no new episode should start. */
  readonly stopRequested: boolean;
  /** A verdict given while the episode runs, or null; polled every tick. */
  readonly verdict: OperatorOutcome | null;
  /** Between episodes: resolves when the scene is ready ("start") or the run should end ("stop"). */
  awaitReset(episode: number, total: number, scene: EpisodeScene): Promise<"start" | "stop">;
  /** The episode starts running. */
  beginEpisode(episode: number): void;
  /** The episode ended without a verdict (step limit): the outcome, while the robot holds. */
  awaitOutcome(episode: number, why: string): Promise<OperatorOutcome>;
  /** The episode is over. */
  endEpisode(): void;
}

/**
 * Turns operator input into trial decisions. Input that arrives when nothing is asked (or a key
 * that does not fit the question) is ignored with a notice, so a stray key can never start an
 * episode early. When the whole input ends (EOF on every source) the run stops.
 */
export class Operator implements TrialJudge {
  private phase: OperatorPhase = "idle";
  private episode = -1;
  private waiter: ((c: OperatorCommand) => void) | null = null;
  private runningVerdict: OperatorOutcome | null = null;
  private stopped = false;
  private ended = false;
  private readonly write: (line: string) => void;

  constructor(private readonly input: OperatorInput, private readonly o: OperatorOptions = {}) {
    this.write = o.write ?? ((l) => process.stderr.write(l + "\n"));
    void this.pump();
  }

  /** True once the operator pressed `q` (or the input ended): no new episode should start. */
  get stopRequested(): boolean { return this.stopped; }

  /** The verdict given while the episode runs (`s`/`f`/`a`), or null: the BusRig's verdict, polled every tick. */
  get verdict(): OperatorOutcome | null { return this.runningVerdict; }

  /** Between episodes: asks for a scene reset; resolves "start" on enter, "stop" on `q`. */
  async awaitReset(episode: number, total: number): Promise<"start" | "stop"> {
    if (this.stopped) return "stop";
    this.write(`[operator] episode ${episode + 1}/${total}: reset the scene, then press enter (q: stop the run)`);
    const c = await this.ask("reset", episode, (cmd) => cmd.kind !== "outcome");
    return c.kind === "start" ? "start" : "stop";
  }

  /** The episode is running: from now `s`/`f`/`a` end it and `q` aborts it and stops the run. */
  beginEpisode(episode: number): void {
    this.runningVerdict = null;
    this.setPhase("running", episode);
    this.write(`[operator] episode ${episode + 1} running: s success, f failure, a abort, q abort and stop`);
  }

  /** The episode ended without a verdict (step limit): the robot holds while the operator judges it. */
  async awaitOutcome(episode: number, why: string): Promise<OperatorOutcome> {
    if (this.stopped) return "aborted";
    this.write(`[operator] episode ${episode + 1} ended (${why}); robot holding. Outcome? s success, f failure, a abort`);
    const c = await this.ask("outcome", episode, (cmd) => cmd.kind !== "start");
    return c.kind === "outcome" ? c.outcome : "aborted";
  }

  /** No question pending (between an episode's end and the next prompt). */
  endEpisode(): void { this.setPhase("idle", this.episode); }

  private setPhase(phase: OperatorPhase, episode: number): void {
    this.phase = phase;
    this.episode = episode;
    this.o.onPhase?.(phase, episode);
  }

  private ask(phase: OperatorPhase, episode: number, fits: (c: OperatorCommand) => boolean): Promise<OperatorCommand> {
    if (this.ended) { this.stopped = true; return Promise.resolve({ kind: "stop" }); }
    return new Promise((resolve) => {
      this.waiter = (c) => {
        if (!fits(c)) { this.write(`[operator] ${describe(c)} does not answer this prompt; ignored`); return; }
        this.waiter = null;
        this.phase = "idle";
        resolve(c);
      };
      this.setPhase(phase, episode);
    });
  }

  private async pump(): Promise<void> {
    try {
      for await (const text of this.input) this.handle(text);
    } catch (err) {
      this.write(`[operator] input failed: ${(err as Error).message}; stopping the run after this episode`);
    }
    this.ended = true;
    this.stopped = true;
    if (this.phase === "running" && this.runningVerdict === null) this.runningVerdict = "aborted";
    this.waiter?.({ kind: "stop" });
  }

  private handle(text: string): void {
    const c = parseOperatorInput(text);
    if (!c) { if (text.trim() !== "" && this.phase !== "idle") this.write(`[operator] unknown key ${JSON.stringify(text)} (s, f, a, q, enter)`); return; }
    if (c.kind === "stop") this.stopped = true;
    switch (this.phase) {
      case "running":
        if (c.kind === "start") return;
        if (this.runningVerdict === null) this.runningVerdict = c.kind === "stop" ? "aborted" : c.outcome;
        return;
      case "reset":
      case "outcome":
        this.waiter?.(c);
        return;
      case "idle":
        if (c.kind !== "stop") this.write(`[operator] ${describe(c)} ignored: nothing is being asked now`);
        return;
    }
  }
}

function describe(c: OperatorCommand): string {
  return c.kind === "outcome" ? `"${c.outcome}"` : c.kind === "start" ? "enter" : "q";
}

/**
 * The far end of `/engram/operator`: forwards every item of `input` (keys from the operator's own
 * terminal, e.g. over `ssh -t`) to the topic, and shows each prompt the trial publishes on
 * OPERATOR_PROMPT_TOPIC. This is how an operator drives a trial that `ros2 launch` started.
 * Says so when the runtime's heartbeat stops for `silentAfterMs` (heartbeat.ts). Resolves when the
 * input ends; the subscriptions are removed then.
 */
export async function relayOperator(bus: Bus, input: OperatorInput, show: (line: string) => void, silentAfterMs?: number): Promise<void> {
  const codec = codecFor("std_msgs/msg/String");
  const publish = bus.advertise(OPERATOR_TOPIC, "std_msgs/msg/String", RELIABLE_QOS);
  const off = bus.subscribe(OPERATOR_PROMPT_TOPIC, "std_msgs/msg/String", { ...RELIABLE_QOS, durability: "transient_local", depth: 1 }, (cdr) => {
    try { show(codec.decode(cdr).data); } catch (err) { show(`[operator] ${OPERATOR_PROMPT_TOPIC}: undecodable std_msgs/msg/String: ${(err as Error).message}`); }
  });
  const unwatch = watchHeartbeat(bus, show, silentAfterMs);
  try {
    for await (const item of input) publish(codec.encode({ data: item }));
  } finally {
    unwatch();
    off();
  }
}
