/**
 * The planner's stages of the control tick (DESIGN.md §3, "Planner"): episode start (the initial
 * image, the global task, the first plan on M(n) tasks) and subtask ends (the robot holds while the
 * planner thinks). The planner is called only here, never per step.
 */
import { frameToJpeg } from "../observe/preprocess.js";
import { plannerContext, shouldCallPlanner } from "../policy/planner/gating.js";
import { PlannerFailure } from "../policy/planner/types.js";
import { applyHold, type Ended, type Episode, type EpisodeEnd, type Tick } from "./tick.js";

/**
 * Episode start, once, on the first tick that passes preprocessing: keeps the planner camera's
 * image, starts the global task and (M(n)) asks the planner for the first subtask. A failed planner
 * ends the episode with the robot held.
 */
export async function start(ep: Episode, t: Tick): Promise<Ended | void> {
  if (ep.started) return;
  ep.started = true;
  ep.initialJpeg = await plannerJpeg(ep);
  ep.events.emit({ event: "subtask_start", step: t.k, subtask: ep.planning.globalTask, source: "global" });
  if (!shouldCallPlanner(ep.planning.complexity, { kind: "episode_start" })) return;
  const end = await askPlanner(ep, t.k);
  if (end) return { kind: "ended", end, hold: { kind: "hold", reason: "timeout", details: "planner failed at episode start" } };
}

/**
 * On a declared subtask end: records it, drops the running chunk and (M(n)) holds while the planner
 * names the next subtask with the end image. A failed planner ends the episode (already held).
 */
export async function plan(ep: Episode, t: Tick): Promise<Ended | void> {
  if (!t.observed?.subtaskEnded) return;
  ep.result.declaredEnds.push(t.k);
  ep.events.emit({ event: "subtask_end", step: t.k, subtask: ep.subtask, logit: t.observed.logit });
  ep.control.scheduler.clear();
  if (!shouldCallPlanner(ep.planning.complexity, { kind: "tick", subtaskEnded: true })) return;
  // The robot holds while the planner thinks: the running chunk must not continue.
  applyHold(ep, { kind: "hold", reason: "timeout", details: "waiting for the planner" }, t.measured, t.tickNs, t.k);
  ep.finished.push({ subtask: ep.subtask, endImageJpeg: (await plannerJpeg(ep)) ?? new Uint8Array() });
  const end = await askPlanner(ep, t.k);
  if (end) return { kind: "ended", end };
}

/** Asks the planner for the next subtask and hands it to the policy; null on success, else how the episode ends. */
async function askPlanner(ep: Episode, step: number): Promise<EpisodeEnd | null> {
  const { planner } = ep.planning;
  const signal = ep.signal;
  const events = ep.events;
  if (!planner) return null;
  const ctx = plannerContext(ep.planning.globalTask, ep.initialJpeg ?? new Uint8Array(), ep.finished, ep.planning.keyMemory);
  try {
    const answer = await untilAborted(planner.next(ctx), signal);
    ep.result.plannerLatenciesMs.push(answer.latencyMs);
    events.emit({ event: "planner_call", step, latency_ms: answer.latencyMs, answer: answer.subtask, finished: ctx.finished.length });
    try { ep.policy.setInstruction(answer.subtask); } catch {
      // An answer the policy cannot follow fails this episode; the planner itself works, so the run goes on.
      events.emit({ event: "planner_answer_unknown", step, answer: answer.subtask });
      return { kind: "failure", reason: `planner answer ${JSON.stringify(answer.subtask)} is not in the policy's vocabulary` };
    }
    ep.subtask = answer.subtask;
    events.emit({ event: "subtask_start", step, subtask: answer.subtask });
    return null;
  } catch (err) {
    const reason = (err as Error).message;
    if (signal?.aborted) {
      events.emit({ event: "planner_abandoned", step, reason });
      return { kind: "aborted", reason };
    }
    events.emit({ event: "planner_failure", step, reason });
    // A finished plan is the policy's mistake, not a dead planner: this episode fails, the run goes on.
    if (err instanceof PlannerFailure && err.kind === "complete") {
      return ep.verdict(step) ?? { kind: "failure", reason: `plan complete: ${reason}`, planComplete: true };
    }
    return { kind: "aborted", reason: `planner failed: ${reason}`, plannerDown: true };
  }
}

/** The planner camera's newest frame as JPEG; null when there is none or it is malformed. */
async function plannerJpeg(ep: Episode): Promise<Uint8Array | null> {
  const frame = ep.plannerCamera && ep.sensors.frame(ep.plannerCamera);
  return frame ? frameToJpeg(frame) : null;
}

/** `work`, or a rejection naming the stop as soon as `signal` aborts (the work itself runs on, ignored). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  const why = () => new Error(`interrupted (${signal.reason instanceof Error ? signal.reason.message : String(signal.reason)}) while waiting for the planner`);
  if (signal.aborted) return Promise.reject(why());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(why());
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
