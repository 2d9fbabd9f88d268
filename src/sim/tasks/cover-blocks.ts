/**
 * Cover Blocks (RMBench, M(n)): a red, a green and a blue block stand in a row in random order,
 * a lid in front of each. Cover the blocks left to right with the lids, then uncover them in the
 * order red, green, blue. Once covered the colours are hidden from above, so where each colour
 * went must be remembered.
 * NOTE: the world has only primitive shapes, so a lid is a flat plate laid on top of the block,
 * wider than it; it hides the block's top face, not its sides.
 */
import type { ObjectId, SimWorldApi, Vec3 } from "../world/types.js";
import { PlanExpert, type PlannedSubtask } from "../expert/PlanExpert.js";
import { ReactiveGoalsExpert, latchedStage, type ReactiveGoal } from "../expert/ReactiveGoalsExpert.js";
import { CENTRE_LANE_M, armFor, gripWidths, moveObjectOps } from "../expert/primitives.js";
import { TABLE_Z, at, distXy } from "./geometry.js";
import { BLOCK_HALF, COLORS, addBlock } from "./props.js";
import { handsClear, letGo, released } from "./progress.js";
import { COVER_BLOCKS } from "../../task/cover-blocks.js";
import { defineTask, type TaskDefinition, type TaskScene } from "./types.js";

const LID_HALF: Vec3 = [0.032, 0.032, 0.01];
/** Resting centre height of a lid on top of a block. */
const LID_ON_BLOCK_Z = TABLE_Z + 2 * BLOCK_HALF + LID_HALF[2];
const COVER_TOL_XY_M = 0.025;
const COVER_TOL_Z_M = 0.012;
/** The order the blocks are uncovered in, by colour. */
export const UNCOVER_ORDER = ["red", "green", "blue"] as const;
type Colour = (typeof UNCOVER_ORDER)[number];

/** Scene state of Cover Blocks. */
export interface CoverBlocksScene extends TaskScene {
  /** Blocks left (+y) to right, with their colours. */
  blocks: { id: ObjectId; colour: Colour }[];
  /** Lids, lid i starts in front of block i at lidSpots[i]. */
  lids: ObjectId[];
  lidSpots: Vec3[];
  /** Current cover state per block (a free lid rests on top of it). */
  covered: boolean[];
  allCoveredStep: number | null;
  /** Colours in the order they were uncovered after all three were covered. */
  uncoverOrder: Colour[];
}

function isCovered(world: SimWorldApi, s: CoverBlocksScene, block: ObjectId): boolean {
  const b = world.objectPose(block).position;
  return s.lids.some((lid) => {
    const p = world.objectPose(lid).position;
    return distXy(p, b) <= COVER_TOL_XY_M && Math.abs(p[2] - (b[2] + BLOCK_HALF + LID_HALF[2])) <= COVER_TOL_Z_M
      && world.armNames.every((a) => world.heldObject(a) !== lid);
  });
}

/** The lid resting on (or held over) `block`, if any. */
function lidOn(world: SimWorldApi, s: CoverBlocksScene, block: ObjectId): ObjectId | undefined {
  const b = world.objectPose(block).position;
  return s.lids.find((l) => {
    const p = world.objectPose(l).position;
    return distXy(p, b) <= COVER_TOL_XY_M && p[2] > b[2] + BLOCK_HALF;
  });
}

function uncoveredInOrder(s: CoverBlocksScene): boolean {
  return s.allCoveredStep !== null && s.uncoverOrder.join(",") === UNCOVER_ORDER.join(",") && s.covered.every((c) => !c);
}

/** The Cover Blocks task definition. */
export const coverBlocks = defineTask<CoverBlocksScene>(COVER_BLOCKS, {
  createScene(world, rng, robot) {
    const dx = rng.uniform(-0.02, 0.02), dy = rng.uniform(-0.02, 0.02);
    const colours = rng.shuffle(UNCOVER_ORDER);
    const ys = [0.17, 0, -0.17].map((y) => y + dy);
    const blocks = colours.map((colour, i) => ({ colour, id: addBlock(world, `${colour}_block`, 0.56 + dx, ys[i]!, COLORS[colour]) }));
    const lidSpots: Vec3[] = ys.map((y) => [0.37 + dx, y, TABLE_Z + LID_HALF[2]]);
    const lids = lidSpots.map((p, i) => world.addObject({
      name: `lid_${i}`, body: "dynamic", color: COLORS.lid, massKg: 0.04, friction: 0.9,
      shape: { kind: "box", halfExtents: LID_HALF }, pose: at(p),
    }));
    return { taskId: "cover-blocks", robot, step: 0, blocks, lids, lidSpots, covered: [false, false, false], allCoveredStep: null, uncoverOrder: [] };
  },

  subtaskDone(world, s, index) {
    if (index < 3) {
      // Cover block `index` (left to right): a free lid rests on it and the hand has withdrawn.
      const block = s.blocks[index]!.id;
      const lid = s.lids.find((l) => distXy(world.objectPose(l).position, world.objectPose(block).position) <= COVER_TOL_XY_M);
      return isCovered(world, s, block) && lid !== undefined && letGo(world, lid);
    }
    // Uncover UNCOVER_ORDER[index - 3]: that block has been uncovered since all were covered, no lid is
    // held, and the hands are clear of the lids (the one just put down) and of the block.
    const colour = UNCOVER_ORDER[index - 3];
    if (colour === undefined || !s.uncoverOrder.includes(colour)) return false;
    const block = s.blocks.find((b) => b.colour === colour)!.id;
    const near = [block, ...s.lids].map((id) => world.objectPose(id).position);
    return !isCovered(world, s, block) && released(world, s.lids) && handsClear(world, near);
  },

  update(world, s) {
    const step = s.step++;
    const now = s.blocks.map((b) => isCovered(world, s, b.id));
    if (s.allCoveredStep !== null) {
      now.forEach((c, i) => {
        const colour = s.blocks[i]!.colour;
        if (s.covered[i] && !c && !s.uncoverOrder.includes(colour)) s.uncoverOrder.push(colour);
      });
    } else if (now.every((c) => c)) s.allCoveredStep = step;
    s.covered = now;
  },

  success: (_w, s) => uncoveredInOrder(s),

  predicates: {
    "all-covered": (_w, s) => s.allCoveredStep !== null,
    "red-uncovered-first": (_w, s) => s.uncoverOrder[0] === "red",
    "uncovered-in-order": (_w, s) => uncoveredInOrder(s),
  },

  expert(world, s, robot) {
    const widths = gripWidths(world, robot);
    const texts = this.subtasks(s);
    const cover = (i: number): PlannedSubtask => ({
      text: texts[i]!,
      ops: (w) => {
        const b = w.objectPose(s.blocks[i]!.id).position;
        return moveObjectOps(w, armFor(w, b[1], CENTRE_LANE_M), s.lids[i]!, [b[0], b[1], LID_ON_BLOCK_Z], widths);
      },
    });
    const uncover = (colour: Colour, k: number): PlannedSubtask => ({
      text: texts[3 + k]!,
      ops: (w) => {
        const i = s.blocks.findIndex((b) => b.colour === colour);
        const b = w.objectPose(s.blocks[i]!.id).position;
        // The lid now on this block (privileged state), put back on its own starting spot.
        const lidIndex = s.lids.findIndex((lid) => distXy(w.objectPose(lid).position, b) <= COVER_TOL_XY_M);
        const li = lidIndex >= 0 ? lidIndex : i;
        return moveObjectOps(w, armFor(w, b[1], CENTRE_LANE_M), s.lids[li]!, s.lidSpots[li]!, widths);
      },
    });
    return new PlanExpert(world, [cover(0), cover(1), cover(2), ...UNCOVER_ORDER.map(uncover)], { controlHz: robot.control_hz });
  },

  reactiveExpert(world, s, robot) {
    const texts = this.subtasks(s);
    const pos = (id: ObjectId) => world.objectPose(id).position;
    const held = () => s.lids.find((l) => world.armNames.some((a) => world.heldObject(a) === l));
    // Cover block i: with the lid in hand, else its own lid, else any lid on no block.
    const cover = (w: SimWorldApi, i: number): ReactiveGoal | undefined => {
      const b = pos(s.blocks[i]!.id);
      const onBlocks = s.blocks.map((x) => lidOn(w, s, x.id));
      const free = s.lids.filter((l) => !onBlocks.includes(l));
      const lid = held() ?? (free.includes(s.lids[i]!) ? s.lids[i]! : free[0]);
      if (lid === undefined) return undefined;
      return { kind: "place", object: lid, restCentre: [b[0], b[1], LID_ON_BLOCK_Z], arm: armFor(w, b[1], CENTRE_LANE_M) };
    };
    const goalAt = (w: SimWorldApi, k: number): ReactiveGoal | undefined => {
      if (k < 3) return isCovered(w, s, s.blocks[k]!.id) ? undefined : cover(w, k);   // covered: the hands only rise clear
      // Uncovering counts only once all three were covered at once: a lid knocked off first goes back on.
      if (s.allCoveredStep === null) {
        const bare = s.blocks.findIndex((b) => !isCovered(w, s, b.id));
        return bare < 0 ? undefined : cover(w, bare);
      }
      // Uncover UNCOVER_ORDER[k - 3]: its lid back onto its own starting spot (or the nearest free one).
      const block = s.blocks.find((b) => b.colour === UNCOVER_ORDER[k - 3])!.id;
      const lid = held() ?? lidOn(w, s, block);
      if (lid === undefined) return undefined;   // uncovered: the hands only rise clear
      const spotFree = (p: Vec3) => s.lids.every((l) => l === lid || distXy(pos(l), p) > COVER_TOL_XY_M);
      const own = s.lidSpots[s.lids.indexOf(lid)]!;
      const spot = spotFree(own) ? own : s.lidSpots.find(spotFree) ?? own;
      return { kind: "place", object: lid, restCentre: spot, arm: armFor(w, pos(block)[1], CENTRE_LANE_M) };
    };
    const stage = latchedStage(texts.length, (w, i) => this.subtaskDone(w, s, i));
    return new ReactiveGoalsExpert(world, robot, { arm: armFor(world, 0), texts, controlHz: robot.control_hz, goalAt, stage });
  },
});
