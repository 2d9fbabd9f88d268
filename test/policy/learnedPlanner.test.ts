/**
 * The learned planner (planner.kind: learned): a tiny planner.onnx built by testPlanner.ts in a
 * test bundle, run by onnxruntime-node. Answers on fixed inputs against a plain recomputation,
 * the vocabulary mapping, "done", image-dependent answers, key memory off, and named shape errors.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { ConfigError, type PlannerSection } from "../../src/config/index.js";
import { jpegFromRgb } from "../../src/msgs/image.js";
import { frameToTensor } from "../../src/observe/preprocess.js";
import { writeTestBundle } from "../../src/policy/mem0/testBundle.js";
import { plannerContext } from "../../src/policy/planner/gating.js";
import { openLearnedPlanner, type LearnedPlanner } from "../../src/policy/planner/learned.js";
import { plannerFeeds } from "../../src/policy/planner/learnedManifest.js";
import {
  addTinyPlanner, tinyPlannerLogits, tinyPlannerModel, tinyPlannerWeights, type TinyPlannerSpec,
} from "../../src/policy/planner/testPlanner.js";
import { PlannerFailure, type FinishedSubtask } from "../../src/policy/planner/types.js";
import { policyBundleIssues } from "../../src/policy/registry.js";

const root = mkdtempSync(join(tmpdir(), "engram-learned-planner-"));
after(() => rmSync(root, { recursive: true, force: true }));

const COVER = "Cover the three blocks with the lids from left to right, then uncover them in the order red, green, blue.";
const PRESS = "Press the left button as many times as the left digit shows, then the middle button as many times as the middle digit shows, then press the confirm button.";
const VOCAB = [
  "cover the left block with a lid", "cover the middle block with a lid", "cover the right block with a lid",
  "press the left button", "press the middle button", "press the confirm button",
];
const SPEC: TinyPlannerSpec = { tasks: [COVER, PRESS], vocabulary: VOCAB, plans: [[0, 1, 2], [3, 3, 4, 5]], slots: 4, image: { width: 16, height: 12 } };
/** The fields plannerFeeds reads, as addTinyPlanner writes them for SPEC. */
const SECTION = { ...SPEC, key_memory_slots: SPEC.slots } as unknown as PlannerSection;
const W = 32, H = 24; // camera size: the planner resizes to 16x12

const solid = (v: number) => jpegFromRgb(new Uint8Array(W * H * 3).fill(v), W, H, 90, "sharp");
const gray = await solid(128), white = await solid(255), black = await solid(0);
const done = (subtask: string, image = gray): FinishedSubtask => ({ subtask, endImageJpeg: image });

async function bundle(name: string, weights = tinyPlannerWeights(SPEC), bytes?: Uint8Array): Promise<string> {
  const dir = join(root, name);
  writeTestBundle(dir);
  addTinyPlanner(dir, weights, bytes);
  return dir;
}

async function withPlanner<T>(dir: string, use: (p: LearnedPlanner) => Promise<T>): Promise<T> {
  const planner = await openLearnedPlanner(dir);
  try { return await use(planner); } finally { await planner.close(); }
}

test("follows each task's plan by the finished subtasks, then answers done (plan complete)", async () => {
  await withPlanner(await bundle("plan"), async (p) => {
    const ctx = (task: string, finished: FinishedSubtask[]) => plannerContext(task, gray, finished, true);
    assert.equal((await p.next(ctx(COVER, []))).subtask, VOCAB[0]);
    assert.equal((await p.next(ctx(COVER, [done(VOCAB[0]!)]))).subtask, VOCAB[1]);
    assert.equal((await p.next(ctx(PRESS, [done(VOCAB[3]!)]))).subtask, VOCAB[3], "press-button: the left button twice");
    assert.equal((await p.next(ctx(PRESS, [done(VOCAB[3]!), done(VOCAB[3]!)]))).subtask, VOCAB[4]);
    const finished = [done(VOCAB[0]!), done(VOCAB[1]!), done(VOCAB[2]!)];
    await assert.rejects(p.next(ctx(COVER, finished)), (e: unknown) =>
      e instanceof PlannerFailure && e.kind === "complete" && /answered done after 3 finished subtask/.test(e.message));
  });
});

test("answers the argmax of the logits a plain recomputation gives, on fixed noisy weights", async () => {
  const weights = tinyPlannerWeights(SPEC, 11, 3); // noise as large as the plan: answers need the whole graph
  const spec = { width: 16, height: 12, mean: [0.5, 0.5, 0.5] as [number, number, number], std: [0.5, 0.5, 0.5] as [number, number, number] };
  const tensor = (jpeg: Uint8Array) => frameToTensor({ kind: "compressed", msg: { header: { stamp: { sec: 0, nanosec: 0 }, frame_id: "" }, format: "jpeg", data: jpeg } }, spec, "t");
  const cases: [number, FinishedSubtask[], Uint8Array][] = [
    [0, [], gray], [0, [done(VOCAB[0]!, white)], black], [1, [done(VOCAB[3]!, black), done(VOCAB[4]!, white)], white],
    [1, [done(VOCAB[5]!, gray)], black], [0, [done(VOCAB[2]!, white), done(VOCAB[1]!, white), done(VOCAB[0]!, black)], gray],
  ];
  const answers = new Set<string>();
  await withPlanner(await bundle("noisy", weights), async (p) => {
    for (const [task, finished, initial] of cases) {
      const feeds = plannerFeeds(SECTION, task, await tensor(initial), await Promise.all(
        finished.map(async (f) => ({ subtask: VOCAB.indexOf(f.subtask), image: await tensor(f.endImageJpeg) })),
      ));
      const logits = tinyPlannerLogits(weights, { ...feeds });
      const best = logits.indexOf(Math.max(...logits));
      const got = await p.next(plannerContext(SPEC.tasks[task]!, initial, finished, true)).then((a) => a.subtask, () => "done");
      assert.equal(got, best === VOCAB.length ? "done" : VOCAB[best], `case task=${task} finished=${finished.length}`);
      answers.add(got);
    }
  });
  assert.ok(answers.size >= 2, `the cases must not all answer the same, got ${[...answers]}`);
});

test("the answer depends on what the last end image shows (a lamp): bright ends the plan, dark goes on", async () => {
  const weights = tinyPlannerWeights(SPEC, 3, 0);
  weights.byEndImage[VOCAB.length] = 10; // "done" per unit of an end image's mean pixel (normalized to [-1, 1])
  await withPlanner(await bundle("lamp", weights), async (p) => {
    const after = (image: Uint8Array) => p.next(plannerContext(COVER, gray, [done(VOCAB[0]!, image)], true));
    assert.equal((await after(black)).subtask, VOCAB[1]);
    await assert.rejects(after(white), (e: unknown) => e instanceof PlannerFailure && e.kind === "complete");
  });
});

test("vocabulary mapping: case and final period do not matter; an unknown task or finished subtask is named", async () => {
  await withPlanner(await bundle("vocab"), async (p) => {
    const shouted = plannerContext(COVER.toUpperCase(), gray, [done("Cover the left block with a lid.")], true);
    assert.equal((await p.next(shouted)).subtask, VOCAB[1]);
    await assert.rejects(p.next(plannerContext("stack the cups", gray, [], true)),
      /learned planner .*global task "stack the cups" is not one of its 2 planner\.tasks/);
    await assert.rejects(p.next(plannerContext(COVER, gray, [done("juggle")], true)),
      /finished subtask 0 "juggle" is not in planner\.vocabulary/);
  });
});

test("key memory off: the planner sees only the task and the initial image (the first answer again)", async () => {
  await withPlanner(await bundle("nokey"), async (p) => {
    const finished = [done(VOCAB[0]!), done(VOCAB[1]!)];
    assert.equal((await p.next(plannerContext(COVER, gray, finished, true))).subtask, VOCAB[2]);
    assert.equal((await p.next(plannerContext(COVER, gray, finished, false))).subtask, VOCAB[0]);
  });
  const image = new Float32Array(3 * 12 * 16);
  const feeds = plannerFeeds(SECTION, 0, image, []);
  assert.deepEqual([...feeds.keyMask], [0, 0, 0, 0]);
  const many = Array.from({ length: 6 }, (_, i) => ({ subtask: i % 3, image }));
  assert.deepEqual([...plannerFeeds(SECTION, 0, image, many).keySubtasks], [2n, 0n, 1n, 2n], "the last M=4 stay");
  assert.throws(() => plannerFeeds(SECTION, 0, new Float32Array(5), []), /initial image: 5 values, expected 3x12x16 = 576/);
});

test("a planner.onnx whose shapes differ from the manifest is refused, naming the field and both shapes", async () => {
  const three = tinyPlannerModel(tinyPlannerWeights({ ...SPEC, slots: 3 }));
  const dir = await bundle("shapes", tinyPlannerWeights(SPEC), three);
  await assert.rejects(openLearnedPlanner(dir), (e: unknown) => {
    assert.ok(e instanceof ConfigError);
    assert.match(e.message, /planner\.model\.inputs\.key_images\.shape: planner\.onnx input "key_images" \(key_images\): shape \[1,3,3,12,16\] expected \[1,M=4,C=3,height=12,width=16\]/);
    assert.match(e.message, /planner\.model\.inputs\.key_mask\.shape: .*shape \[1,3\] expected \[1,M=4\]/);
    return true;
  });
  const issues = await policyBundleIssues(dir);
  assert.ok(issues.some((i) => i.path === "planner.model.inputs.key_images.shape"), "engram check names them too");
});

test("an answer the policy cannot follow is refused at load; a bundle without a planner names the way out", async () => {
  const weights = tinyPlannerWeights({ ...SPEC, vocabulary: [...VOCAB.slice(0, 5), "dance a jig"] });
  await assert.rejects(openLearnedPlanner(await bundle("unfollowable", weights)),
    /planner\.vocabulary\[5\]: expected an answer the policy can follow, found "dance a jig", not in tokenizer\.vocabulary/);
  const bare = join(root, "bare");
  writeTestBundle(bare);
  await assert.rejects(openLearnedPlanner(bare), /no planner section .*set policy\.planner\.kind to openai, or to oracle-list \(privileged/);
  assert.deepEqual(await policyBundleIssues(bare), [], "a bundle without a planner still checks");
});
