/**
 * The shipped learned planner (training/planner/mn: planner.onnx and its manifest section, trained
 * on the twin's oracle plans of the four M(n) tasks), put into a test bundle, answers held-out
 * episodes through the runtime's own LearnedPlanner: the twin's plan expert runs seeds the training
 * never saw, the planner camera's JPEGs at the start and at each subtask end become the
 * PlannerContext the trial loop builds, and every call's answer is compared with the ground-truth
 * next subtask ("done" after the last).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalBus } from "../../src/bus/local.js";
import { SimClock } from "../../src/bus/clock.js";
import { writeTestBundle } from "../../src/policy/mem0/testBundle.js";
import { openLearnedPlanner } from "../../src/policy/planner/learned.js";
import { addPlannerFrom } from "../../src/policy/planner/testPlanner.js";
import { PlannerFailure, type FinishedSubtask } from "../../src/policy/planner/types.js";
import { loadRobotProfile } from "../../src/robot/index.js";
import { SimNode } from "../../src/sim/node/SimNode.js";
import { getTask } from "../../src/sim/tasks/index.js";
import { plannerEpisode } from "../../training/planner/collect.js";

const TASKS = ["press-button", "cover-blocks", "blocks-ranking-try", "battery-try"];
/** Held-out seeds (the shipped planner was trained on 0-199). */
const SEEDS = [1000, 1001];
const SHIPPED = "training/planner/mn";

test("learned planner: the shipped planner.onnx answers held-out twin episodes of the four M(n) tasks", async (t) => {
  // The test bundle's tokenizer holds every sim task's texts, so the planner's answers all load.
  const bundle = mkdtempSync(join(tmpdir(), "engram-planner-mn-"));
  t.after(() => rmSync(bundle, { recursive: true, force: true }));
  writeTestBundle(bundle);
  addPlannerFrom(bundle, SHIPPED);
  const planner = await openLearnedPlanner(bundle);
  const bus = new LocalBus({ clock: new SimClock(0n) });
  const node = await SimNode.create({ bus, robot: loadRobotProfile("robots/x-one.yaml"), cameras: false, log: () => undefined });
  const wrong: string[] = [];
  let calls = 0;
  try {
    for (const id of TASKS) {
      for (const seed of SEEDS) {
        const e = await plannerEpisode(node, getTask(id), seed, "head");
        assert.ok(e.success, `${id} seed ${seed}: the plan expert failed, so its plan is no ground truth`);
        const finished: FinishedSubtask[] = [];
        for (let k = 0; k <= e.subtasks.length; k++) {
          const want = e.subtasks[k]?.text ?? "done";
          const ctx = { globalTask: e.instruction, initialImageJpeg: e.initialJpeg, finished: [...finished] };
          const got = await planner.next(ctx).then((a) => a.subtask, (err: unknown) => {
            if (err instanceof PlannerFailure && err.kind === "complete") return "done";
            throw err;
          });
          calls++;
          if (got !== want) wrong.push(`${id}@${seed} after ${k}: ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
          if (k < e.subtasks.length) finished.push({ subtask: e.subtasks[k]!.text, endImageJpeg: e.endJpegs[k]! });
        }
      }
    }
  } finally {
    node.close();
    await bus.close();
    await planner.close();
  }
  t.diagnostic(`${calls - wrong.length}/${calls} calls answered right${wrong.length ? `; wrong: ${wrong.join("; ")}` : ""}`);
  assert.ok(wrong.length === 0, `${wrong.length} of ${calls} calls wrong: ${wrong.join("; ")}`);
});
