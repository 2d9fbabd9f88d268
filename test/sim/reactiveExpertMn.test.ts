/**
 * The reactive oracle experts of RMBench's four M(n) tasks (goalAt in src/sim/tasks/*.ts, over
 * src/sim/expert/ReactiveGoalsExpert.ts) decide from the ground truth now, so each must solve its
 * task from states its plan never visits: the arms shoved 0.1 rad per joint in transit, an object nudged 2 cm
 * before it is touched, an object dropped mid-carry, a press that landed beside the button.
 * 40 seeds per task, one disturbance each, on the real SimWorld (no cameras).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadRobotProfile } from "../../src/robot/loadRobotProfile.js";
import { SimWorld } from "../../src/sim/world/SimWorld.js";
import { getTask } from "../../src/sim/tasks/index.js";
import { distXy } from "../../src/sim/tasks/geometry.js";
import type { Button } from "../../src/sim/tasks/props.js";
import type { ObjectId, Vec3 } from "../../src/sim/world/types.js";
import type { TaskScene } from "../../src/sim/tasks/types.js";
import { CENTRE_LANE_M, TRAVEL_Z, armFor } from "../../src/sim/expert/primitives.js";
import { runExpertEpisode, type ExpertEpisodeOptions, type SteppableWorld } from "../../src/sim/expert/runExpertEpisode.js";
import { mulberry32 } from "../../src/task/rng.js";
import { POSITIONS, SWAPS } from "../../src/task/blocks-ranking-try.js";
import type { BlocksRankingTryScene } from "../../src/sim/tasks/blocks-ranking-try.js";

const profile = loadRobotProfile("robots/x-one.yaml").profile;
const world = await SimWorld.create({ profile, physicsHz: 240 });

type Disturbance = "shove" | "nudge" | "drop" | "miss";

/** What a disturbance needs of a scene: the movable objects and the buttons. */
interface Parts { objects: ObjectId[]; buttons: Button[] }

const PARTS: Record<string, (scene: TaskScene) => Parts> = {
  "press-button": (s) => {
    const p = s as TaskScene & { left: Button; middle: Button; confirm: Button };
    return { objects: [], buttons: [p.left, p.middle, p.confirm] };
  },
  "cover-blocks": (s) => ({ objects: (s as TaskScene & { lids: ObjectId[] }).lids, buttons: [] }),
  "blocks-ranking-try": (s) => {
    const p = s as TaskScene & { blocks: ObjectId[]; button: Button };
    return { objects: p.blocks, buttons: [p.button] };
  },
  "battery-try": (s) => ({ objects: [...(s as TaskScene & { batteries: ObjectId[] }).batteries], buttons: [] }),
};

/** Adds `rad` to every arm joint of `arm` in a copy of `targets`, alternating sign by joint. */
function offsetArm(w: SteppableWorld, targets: Float64Array, arm: string, rad: number): Float64Array {
  const out = Float64Array.from(targets);
  w.armJointIndices(arm).joints.forEach((j, k) => { out[j] = out[j]! + (k % 2 ? rad : -rad); });
  return out;
}

/** Runs one reactive episode of `taskId` with the disturbance; returns success and whether it happened. */
function disturbed(taskId: string, seed: number, kind: Disturbance): { success: boolean; happened: boolean } {
  world.reset();
  const rng = mulberry32(seed * 7 + 1);
  const shoveAt = 8 + Math.floor(rng.uniform(0, 60));
  let happened = false, dropAt = -1, shoveFrom = -1;
  let miss: { arm: string; button: Button; from: number; count: number; z: number } | null = null;
  const pickedAt = new Map<string, Vec3>();
  const options: ExpertEpisodeOptions = {
    profile, expert: "reactive",
    override: (step, targets, w, scene) => {
      const parts = PARTS[taskId]!(scene);
      // In transit (every hand above the objects), every arm 0.1 rad off on every joint for 0.6 s. NOTE: a shove
      // low among the objects can fling one off the table or out of reach, which no expert can undo.
      if (kind === "shove" && shoveFrom < 0 && step >= shoveAt && w.armNames.every((a) => w.graspPoint(a)[2] >= TRAVEL_Z - 0.05)) {
        shoveFrom = step;
      }
      if (kind === "shove" && shoveFrom >= 0 && step < shoveFrom + 6) {
        happened = true;
        return w.armNames.reduce((t, arm) => offsetArm(w, t, arm, 0.1), targets);
      }
      if (kind === "drop") {
        for (const arm of w.armNames) {
          const held = w.heldObject(arm);
          if (held === null || !parts.objects.includes(held)) { pickedAt.delete(arm); continue; }
          if (!pickedAt.has(arm)) pickedAt.set(arm, w.objectPose(held).position);
          // Carried 6 cm from where it was picked up: open the fingers for 0.5 s.
          if (dropAt < 0 && distXy(w.graspPoint(arm), pickedAt.get(arm)!) > 0.06) dropAt = step;
          if (dropAt >= 0 && step < dropAt + 5) {
            happened = true;
            const out = Float64Array.from(targets);
            out[w.armJointIndices(arm).gripper] = 0.08;
            return out;
          }
        }
      }
      if (kind === "miss") {
        // The first descent onto a cap is steered 5 cm aside (+x) and down to the cap's height for 1.2 s: a press
        // beside the button, which must not count; the expert then has to press again.
        const near = (a: string, b: Button) => distXy(w.graspPoint(a), b.capTop) < 0.03 && w.graspPoint(a)[2] < b.capTop[2] + 0.06;
        if (!miss) {
          for (const a of w.armNames) {
            const b = parts.buttons.find((x) => near(a, x));
            if (b) miss = { arm: a, button: b, from: step, count: b.count, z: w.graspPoint(a)[2] };
          }
        }
        if (miss && step < miss.from + 12) {
          const { arm, button } = miss, cap = button.capTop;
          const z = Math.max(cap[2], miss.z - 0.02 * (step - miss.from + 1));
          const { joints } = w.armJointIndices(arm);
          const pose = { position: [cap[0] + 0.05, cap[1], z] as Vec3, quaternion: w.graspPose(arm).quaternion };
          const ik = w.solveIk(arm, pose, joints.map((j) => w.jointPositions()[j]!));
          const out = Float64Array.from(targets);
          joints.forEach((j, k) => { out[j] = ik.positions[k]!; });
          if (w.graspPoint(arm)[2] <= cap[2] + 0.012 && button.count === miss.count) happened = true;
          return out;
        }
      }
      return targets;
    },
    onStep: (tick, w, scene) => {
      if (kind !== "nudge" || tick.step !== 5) return;
      const objects = PARTS[taskId]!(scene).objects;
      const id = objects[Math.floor(rng.uniform(0, objects.length))]!;
      const p = w.objectPose(id), angle = rng.uniform(0, 2 * Math.PI);
      w.setObjectPose(id, { position: [p.position[0] + 0.02 * Math.cos(angle), p.position[1] + 0.02 * Math.sin(angle), p.position[2]], quaternion: p.quaternion });
      happened = true;
    },
  };
  return { success: runExpertEpisode(world, getTask(taskId), seed, options).success, happened };
}

const KINDS: Record<string, Disturbance[]> = {
  "press-button": ["shove", "miss"],
  "cover-blocks": ["shove", "nudge", "drop"],
  "blocks-ranking-try": ["shove", "nudge", "drop", "miss"],
  "battery-try": ["shove", "nudge", "drop"],
};

for (const [taskId, kinds] of Object.entries(KINDS)) {
  test(`${taskId} reactive expert: solves >= 95 % of 40 seeds from ${kinds.join(", ")} states`, (t) => {
    const failures: string[] = [];
    for (let i = 0; i < 40; i++) {
      const seed = 700 + i, kind = kinds[i % kinds.length]!;
      const r = disturbed(taskId, seed, kind);
      assert.ok(r.happened, `${taskId} seed ${seed}: the ${kind} disturbance never happened`);
      if (!r.success) failures.push(`${kind}@${seed}`);
    }
    t.diagnostic(`${40 - failures.length}/40 solved${failures.length ? `; failed: ${failures.join(", ")}` : ""}`);
    assert.ok(failures.length <= 2, `${40 - failures.length}/40 solved; failed: ${failures.join(", ")}`);
  });
}

test("armFor: the centre lane goes to the right arm, either side of it by the sign of y", () => {
  assert.deepEqual([0.02, 0, -0.02, 0.04, -0.04].map((y) => armFor(world, y, CENTRE_LANE_M)), ["right", "right", "right", "left", "right"]);
  assert.deepEqual([0.02, 0, -0.02].map((y) => armFor(world, y)), ["left", "left", "right"]);
});

test("cover-blocks reactive expert: the middle lid is carried by the right arm on either side of the centre line", () => {
  // Seeds 1000 and 1002 put the row 1.3 cm and 0.1 cm left of centre (+y), 1001 0.9 cm right of it.
  for (const seed of [1000, 1001, 1002]) {
    world.reset();
    const carriers = new Set<string>();
    const result = runExpertEpisode(world, getTask("cover-blocks"), seed, {
      profile, expert: "reactive",
      onStep: (_tick, w, scene) => {
        const middleLid = (scene as TaskScene & { lids: ObjectId[] }).lids[1]!;
        for (const arm of w.armNames) if (w.heldObject(arm) === middleLid) carriers.add(arm);
      },
    });
    assert.ok(result.success, `seed ${seed}: the expert failed`);
    assert.deepEqual([...carriers], ["right"], `seed ${seed}: the middle lid was carried by ${[...carriers].join(", ")}`);
  }
});

test("blocks-ranking-try reactive expert: each swap first parks the block on its first-named spot, as the text says", () => {
  // Which block moves first must be visible to a policy: the text names the spots, the ranks do not show.
  // Seeds 1000 and 1001 start from orders whose lower-ranked block stands on the second-named spot of a swap.
  let swaps = 0;
  for (const seed of [1000, 1001, 1002]) {
    world.reset();
    const firstLifts = new Map<number, Vec3>();
    let spots: Vec3[] = [];
    const result = runExpertEpisode(world, getTask("blocks-ranking-try"), seed, {
      profile, expert: "reactive",
      onStep: (_tick, w, scene) => {
        const s = scene as BlocksRankingTryScene;
        spots = s.spots;
        const swap = s.button.count;   // after check k comes swap k (1-based)
        if (swap === 0 || firstLifts.has(swap)) return;
        const block = w.armNames.map((a) => w.heldObject(a)).find((id) => id !== null && s.blocks.includes(id));
        if (block !== undefined && block !== null) firstLifts.set(swap, w.objectPose(block).position);
      },
    });
    assert.ok(result.success, `seed ${seed}: the expert failed`);
    for (const [swap, from] of firstLifts) {
      const [a, b] = SWAPS[swap - 1]!, first = spots[POSITIONS.indexOf(a)]!;
      assert.ok(distXy(from, first) <= 0.03, `seed ${seed} swap ${swap} (${a}/${b}): first lifted at ${from.map((v) => v.toFixed(3))}, not from the ${a} spot`);
      swaps++;
    }
  }
  assert.ok(swaps >= 4, `only ${swaps} swaps in three seeds`);
});
