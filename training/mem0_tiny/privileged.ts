/**
 * The twin's privileged targets per task, saved beside each collected frame (aux.npy): what the
 * perception is trained to read (engram_ml/mem0_tiny/train.py `train perception`) and the phase the
 * memory read-out predicts. `kinds` names each column: "pos" (m, regressed), "bin" (0/1, NaN where
 * the camera cannot tell, e.g. a hidden cube's colour), "phase" (the oracle's subtask index; -1 in a
 * demonstration). `answer` is what only the memory can tell at execution (a class the summary's
 * read-out is trained on); null where train.py derives it itself (Put Back Block's starting mat).
 */
import type { ReactiveGoalsExpert } from "../../src/sim/expert/ReactiveGoalsExpert.js";
import type { ReactivePutBackBlockExpert } from "../../src/sim/expert/ReactivePutBackBlockExpert.js";
import type { ReactiveExpert } from "../../src/sim/expert/types.js";
import type { TaskScene } from "../../src/sim/tasks/types.js";
import type { BatteryTryScene } from "../../src/sim/tasks/battery-try.js";
import type { BlocksRankingTryScene } from "../../src/sim/tasks/blocks-ranking-try.js";
import { UNCOVER_ORDER, type CoverBlocksScene } from "../../src/sim/tasks/cover-blocks.js";
import { distXy, yawOf } from "../../src/sim/tasks/geometry.js";
import type { MoveCubeScene } from "../../src/sim/tasks/move-cube.js";
import type { PressButtonScene } from "../../src/sim/tasks/press-button.js";
import type { VideoPlaceOrderScene } from "../../src/sim/tasks/video-place-order.js";
import type { VideoUnmaskScene } from "../../src/sim/tasks/video-unmask.js";
import type { ObjectId, SimWorldApi, Vec3 } from "../../src/sim/world/types.js";
import { MOVE_MANNERS } from "../../src/task/move-cube.js";
import { UNMASK_COLOURS } from "../../src/task/video-unmask.js";

export interface PrivilegedTargets {
  kinds: string[];
  /** Names the targets' order; a new name whenever a slot's meaning changes, so training refuses to mix collections. */
  layout: string;
  /** The targets now; `expert` is null in a demonstration (its own world, no oracle). */
  at(world: SimWorldApi, scene: TaskScene, expert: ReactiveExpert | null): number[];
  answer(scene: TaskScene): number | null;
}

const PUT_BACK_PHASES = ["to-centre", "press", "put-back", "done"];

/** A cube counts as hidden while a container's centre is within this of it (over it, or passing over), m. */
const HIDDEN_NEAR_M = 0.05;

const putBackBlock: PrivilegedTargets = {
  kinds: ["pos", "pos", "pos", "bin", "phase"],
  layout: "put-back-block",
  at(world, _scene, expert) {
    const e = expert as ReactivePutBackBlockExpert;
    const view = e.view(world);
    return [...view.object, view.held ? 1 : 0, PUT_BACK_PHASES.indexOf(e.phase(view))];
  },
  answer: () => null,
};

const videoUnmask: PrivilegedTargets = {
  // Containers 0-2 (x, y, z), held, then per slot left to right a one-hot of its cube's colour while it shows.
  kinds: [...Array(9).fill("pos"), "bin", ...Array(9).fill("bin"), "phase"],
  layout: "video-unmask",
  at(world, scene, expert) {
    const s = scene as VideoUnmaskScene;
    const containers = s.containers.map((c) => world.objectPose(c).position);
    const held = s.containers.some((c) => world.armNames.some((a) => world.heldObject(a) === c));
    const colours = s.cubes.flatMap((cube) => {
      const p = world.objectPose(cube.id).position;
      const hidden = containers.some((c) => distXy(c, p) <= HIDDEN_NEAR_M);
      return UNMASK_COLOURS.map((name) => (hidden ? NaN : name === cube.colour ? 1 : 0));
    });
    const phase = expert ? (expert as ReactiveGoalsExpert).stageNow(world) : -1;
    return [...containers.flatMap((p) => [p[0], p[1], p[2]]), held ? 1 : 0, ...colours, phase];
  },
  // The slot (left to right) of the first named cube: the container the video put over it.
  answer: (scene) => {
    const s = scene as VideoUnmaskScene;
    return s.cubes.findIndex((c) => c.colour === s.c0);
  },
};

/** One cube's targets (kinds pos x3, bin, bin, phase): where it is, held, the task's `flag`, the oracle's stage. */
function oneCube(
  world: SimWorldApi, cube: ObjectId, expert: ReactiveExpert | null, flag: (p: Vec3, held: boolean) => boolean,
): number[] {
  const p = world.objectPose(cube).position;
  const held = world.armNames.some((a) => world.heldObject(a) === cube);
  const phase = expert ? (expert as ReactiveGoalsExpert).stageNow(world) : -1;
  return [p[0], p[1], p[2], held ? 1 : 0, flag(p, held) ? 1 : 0, phase];
}

/** The cube counts as up (carried, not pushed) this far above where it rested at the start, m. */
const UP_M = 0.015;

const moveCube: PrivilegedTargets = {
  // The cube (x, y, z), held, up off the table (what tells a carry from a push in the video), phase.
  kinds: ["pos", "pos", "pos", "bin", "bin", "phase"],
  layout: "move-cube",
  at(world, scene, expert) {
    const s = scene as MoveCubeScene;
    return oneCube(world, s.cube, expert, (p) => p[2] - s.start[2] > UP_M);
  },
  // The demonstrated manner.
  answer: (scene) => MOVE_MANNERS.indexOf((scene as MoveCubeScene).manner),
};

/** The cube rests on a target when its centre is this close to the target's, m (the task's success tolerance). */
const ON_TARGET_M = 0.03;

const videoPlaceOrder: PrivilegedTargets = {
  // The cube (x, y, z), held, resting on one of the four targets, phase.
  kinds: ["pos", "pos", "pos", "bin", "bin", "phase"],
  layout: "video-place-order",
  at(world, scene, expert) {
    const s = scene as VideoPlaceOrderScene;
    return oneCube(world, s.cube, expert, (p, held) => !held && s.targets.some((t) => distXy(t, p) <= ON_TARGET_M));
  },
  // The target the asked visit of the video went to.
  answer: (scene) => {
    const s = scene as VideoPlaceOrderScene;
    return s.visits[s.ordinal]!;
  },
};

/** Object slots of the M(n) targets: the most objects a task shows (Cover Blocks' three blocks and three lids). */
const MN_SLOTS = 6;

/** Positions, the left of the table (+y) first: how a camera tells identical objects apart. */
function leftToRight(world: SimWorldApi, ids: readonly ObjectId[]): Vec3[] {
  return ids.map((id) => world.objectPose(id).position).sort((a, b) => b[1] - a[1]);
}

/** A battery this close (xy) to a holder slot has its polarity mark under the clamps, m. */
const IN_HOLDER_M = 0.03;

/**
 * What each frame shows of an M(n) task's scene, with no plan in it, so one perception serves all four:
 * every task object's position in a fixed slot order (NaN past the task's objects), whether each arm holds
 * something, each battery's polarity while its mark shows, and the oracle's stage. The current subtask
 * is not a target: which button or block it means is the text's and the memory's, not one image's.
 */
function mnObjects(world: SimWorldApi, scene: TaskScene): { slots: Vec3[]; polarity: number[] } {
  switch (scene.taskId) {
    case "press-button": {
      const s = scene as PressButtonScene;
      return { slots: [s.left, s.middle, s.confirm].map((b) => world.objectPose(b.capId).position), polarity: [] };
    }
    case "cover-blocks": {
      // Blocks in the order red, green, blue (a covered block's colour still shows on its sides under the lid),
      // so "uncover the red block" finds its block in the frame after the memory is cleared; lids look alike.
      const s = scene as CoverBlocksScene;
      const byColour = UNCOVER_ORDER.map((c) => s.blocks.find((b) => b.colour === c)!.id);
      return { slots: [...byColour.map((id) => world.objectPose(id).position), ...leftToRight(world, s.lids)], polarity: [] };
    }
    case "blocks-ranking-try": {
      const s = scene as BlocksRankingTryScene;
      return { slots: [...leftToRight(world, s.blocks), world.objectPose(s.button.capId).position], polarity: [] };
    }
    case "battery-try": {
      const s = scene as BatteryTryScene;
      const y = (id: ObjectId) => world.objectPose(id).position[1];
      const batteries = [...s.batteries].sort((a, b) => y(b) - y(a));
      const polarity = batteries.map((id) => {
        const p = world.objectPose(id).position;
        if (s.slots.some((slot) => distXy(slot, p) <= IN_HOLDER_M)) return NaN;
        return Math.cos(yawOf(world.objectPose(id).quaternion)) >= 0 ? 0 : 1;
      });
      return { slots: [...batteries.map((id) => world.objectPose(id).position), ...s.slots], polarity };
    }
    default:
      throw new Error(`collect: no M(n) targets for task "${scene.taskId}"`);
  }
}

const mnScene: PrivilegedTargets = {
  kinds: [...Array(3 * MN_SLOTS).fill("pos"), "bin", "bin", "bin", "bin", "phase"],
  // 2: Cover Blocks' blocks by colour. Folders collected before this field read "unrecorded", whatever their order.
  layout: "mn-scene-2",
  at(world, scene, expert) {
    const { slots, polarity } = mnObjects(world, scene);
    const positions = Array.from({ length: MN_SLOTS }, (_, i) => slots[i] ?? [NaN, NaN, NaN]).flatMap((p) => [...p]);
    const held = world.armNames.slice(0, 2).map((a) => (world.heldObject(a) === null ? 0 : 1));
    const stage = expert ? (expert as ReactiveGoalsExpert).stageNow(world) : -1;
    return [...positions, ...held, polarity[0] ?? NaN, polarity[1] ?? NaN, stage];
  },
  answer: () => 0,
};

const TARGETS: Record<string, PrivilegedTargets> = {
  "put-back-block": putBackBlock, "video-unmask": videoUnmask, "move-cube": moveCube,
  "video-place-order": videoPlaceOrder,
  "press-button": mnScene, "cover-blocks": mnScene, "blocks-ranking-try": mnScene, "battery-try": mnScene,
};

/** The privileged targets of `task`; an error names the tasks that have them. */
export function privilegedTargetsOf(task: string): PrivilegedTargets {
  const t = TARGETS[task];
  if (!t) throw new Error(`collect: no privileged targets for task "${task}" (training/mem0_tiny/privileged.ts has: ${Object.keys(TARGETS).join(", ")})`);
  return t;
}
