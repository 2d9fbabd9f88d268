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
import { distXy } from "../../src/sim/tasks/geometry.js";
import type { TaskScene } from "../../src/sim/tasks/types.js";
import type { MoveCubeScene } from "../../src/sim/tasks/move-cube.js";
import type { VideoPlaceOrderScene } from "../../src/sim/tasks/video-place-order.js";
import type { VideoUnmaskScene } from "../../src/sim/tasks/video-unmask.js";
import type { ObjectId, SimWorldApi, Vec3 } from "../../src/sim/world/types.js";
import { MOVE_MANNERS } from "../../src/task/move-cube.js";
import { UNMASK_COLOURS } from "../../src/task/video-unmask.js";

export interface PrivilegedTargets {
  kinds: string[];
  /** The targets now; `expert` is null in a demonstration (its own world, no oracle). */
  at(world: SimWorldApi, scene: TaskScene, expert: ReactiveExpert | null): number[];
  answer(scene: TaskScene): number | null;
}

const PUT_BACK_PHASES = ["to-centre", "press", "put-back", "done"];

/** A cube counts as hidden while a container's centre is within this of it (over it, or passing over), m. */
const HIDDEN_NEAR_M = 0.05;

const putBackBlock: PrivilegedTargets = {
  kinds: ["pos", "pos", "pos", "bin", "phase"],
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

/**
 * The four M(n) tasks share one target set, so one perception serves them all: the current goal's object
 * (a press's cap) and where it goes, whether an arm holds it, and the subtask stage. Each subtask is one
 * goal of the task's ReactiveGoalsExpert, decided from the ground truth now. No answer: the memory is
 * cleared at each subtask end, and what earlier subtasks showed is the planner's (its key memory).
 */
const mnGoal: PrivilegedTargets = {
  kinds: ["pos", "pos", "pos", "pos", "pos", "pos", "bin", "phase"],
  at(world, _scene, expert) {
    const e = expert as ReactiveGoalsExpert;
    const stage = e.stageNow(world);
    const goal = e.goal(world, stage);
    if (!goal) return [...Array(7).fill(NaN), stage];
    if (goal.kind === "press") {
      const cap = world.objectPose(goal.button.capId).position;
      return [cap[0], cap[1], cap[2], ...goal.button.capTop, 0, stage];
    }
    const p = world.objectPose(goal.object).position;
    const to = goal.kind === "lift" ? [p[0], p[1], goal.graspZ] : goal.restCentre;
    const held = world.armNames.some((a) => world.heldObject(a) === goal.object);
    return [p[0], p[1], p[2], to[0]!, to[1]!, to[2]!, held ? 1 : 0, stage];
  },
  answer: () => 0,
};

const TARGETS: Record<string, PrivilegedTargets> = {
  "put-back-block": putBackBlock, "video-unmask": videoUnmask, "move-cube": moveCube,
  "video-place-order": videoPlaceOrder,
  "press-button": mnGoal, "cover-blocks": mnGoal, "blocks-ranking-try": mnGoal, "battery-try": mnGoal,
};

/** The privileged targets of `task`; an error names the tasks that have them. */
export function privilegedTargetsOf(task: string): PrivilegedTargets {
  const t = TARGETS[task];
  if (!t) throw new Error(`collect: no privileged targets for task "${task}" (training/mem0_tiny/privileged.ts has: ${Object.keys(TARGETS).join(", ")})`);
  return t;
}
