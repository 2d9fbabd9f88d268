/**
 * The robot-facing stages of the control tick (DESIGN.md §1): gate, preprocess, observe, act,
 * publish. Each reads and fills the tick context and returns a Hold instead of throwing on bad
 * input; the loop's driver applies the hold and checks the end. The planner's stages (episode
 * start, subtask ends) are in planStages.ts.
 */
import { firstHold, reorderChunk, withDeadline, type Hold } from "../control/index.js";
import { describeProblems, type JointStateProblem } from "../observe/checkJointState.js";
import { imageType } from "../observe/latestSensors.js";
import { frameToTensor } from "../observe/preprocess.js";
import { stateVector } from "../robot/stateVector.js";
import { report, type Episode, type Tick } from "./tick.js";

/**
 * Decodes the newest joint state and checks it whole against the profile, then holds on a latched
 * stop, a stale sensor or a joint state that fails the check (naming the joint and the problem);
 * when it passes after a hold, the hold's release is an event. `t.measured` is set only from a
 * joint state that passed, so no later stage (nor the hold command) is built from one that lies.
 */
export async function gate(ep: Episode, t: Tick): Promise<Hold | void> {
  const check = ep.sensors.measured();
  t.measured = check?.kind === "valid" ? check.positions : null;
  const g = firstHold(ep.control.stops.check(t.tickNs), ep.control.watchdog.check(t.tickNs));
  if (g.kind === "hold") return g;
  const topic = ep.control.profile.joint_state.topic;
  if (!check) return { kind: "hold", reason: "stale", topic, details: `no joint state yet on ${topic}` };
  if (check.kind === "invalid") return invalidJointState(check.problems, topic, ep.control.profile.name, t.k);
  if (ep.holding !== null) {
    ep.events.emit({ event: "hold_released", step: t.k, reason: ep.holding });
    ep.counter.release();
    ep.holding = null;
  }
}

/** The hold for a joint state that failed the check: the first problem in words, every bad joint in `values`. */
function invalidJointState(problems: readonly JointStateProblem[], topic: string, robot: string, step: number): Hold {
  return {
    kind: "hold", reason: "invalid_joint_state", topic,
    details: `${describeProblems(problems)} [robot=${robot} step=${step}]`,
    values: problems.map((p) => (p.joint === undefined ? { value: p.value } : { joint: p.joint, value: p.value })),
  };
}

/** Decodes and resizes every policy camera (on sharp's threads, in parallel) and builds the state vector; a bad frame holds. */
export async function preprocess(ep: Episode, t: Tick): Promise<Hold | void> {
  try {
    await Promise.all(ep.cameras.map(async (cam) => {
      const frame = ep.sensors.frame(cam);
      if (frame === undefined) throw new Error(`${cam.topic}: no ${imageType(cam)} message yet`);
      if (!frame) throw new Error(`${cam.topic}: malformed ${imageType(cam)} message`);
      t.images[cam.name] = await frameToTensor(frame, ep.imageSpecs[cam.name]!, cam.topic);
    }));
  } catch (err) {
    return { kind: "hold", reason: "stale", details: (err as Error).message };
  }
  t.state = stateVector(ep.control.profile, ep.control.layout, t.measured!);
}

/** policy.observe on every tick (memory write, classifier logit). */
export async function observe(ep: Episode, t: Tick): Promise<void> {
  t.observed = await ep.policy.observe({ stampNs: t.tickNs, images: t.images, state: t.state });
  ep.result.logits.push(t.observed.logit);
}

/**
 * When the scheduler needs a chunk: policy.act() under its deadline, the safety filter over the
 * chunk, the scheduler's acceptance, then the chunk that will run is published (with temporal
 * ensembling a blend, so it is checked again). Any failure holds and drops the chunk.
 */
export async function act(ep: Episode, t: Tick): Promise<Hold | void> {
  const { scheduler, safety, output } = ep.control;
  const policy = ep.policy;
  if (!scheduler.needsChunk()) return;
  const measured = t.measured!;
  const acted = await withDeadline("policy.act()", policy.act(), ep.clock, ep.control.actTimeoutMs ?? 1000);
  if (acted.kind === "hold") return acted;
  const verdict = safety.checkChunk(reorderChunk(acted.value, ep.layoutNames), measured);
  if (verdict.kind === "hold") return verdict;
  report(ep, verdict, t.k);
  const accepted = scheduler.accept(verdict.command);
  if (accepted.kind === "hold") return accepted;
  ep.result.firstChunk ??= { step: t.k, waitMs: 0 };
  const pending = scheduler.pending();
  const running = pending ? safety.checkChunk(pending, measured) : verdict;
  if (running.kind === "hold") return running;
  for (const out of output.buildChunk(running.command, t.tickNs, measured)) ep.send(out);
}

/** This tick's command from the scheduler, through the safety filter's step check, to the output adapter. */
export async function publish(ep: Episode, t: Tick): Promise<Hold | void> {
  const command = ep.control.scheduler.next();
  if (!command) return { kind: "hold", reason: "no_action", details: `no action covers tick ${t.k}` };
  const verdict = ep.control.safety.checkStep(command, t.measured!);
  if (verdict.kind === "hold") return verdict;
  report(ep, verdict, t.k);
  for (const out of ep.control.output.buildStep(verdict.command, t.tickNs, t.measured!)) ep.send(out);
}
