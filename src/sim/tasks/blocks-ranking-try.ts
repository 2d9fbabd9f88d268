/**
 * Blocks Ranking Try (RMBench, M(n)): three blocks of three evenly spaced hues stand in a row in a
 * random wrong order. The right order (hue h0 left, h0 + 1/3 middle, h0 + 2/3 right) cannot be
 * read from the colours alone, so it is found by trial: press the button to check the arrangement,
 * and while the check fails swap two blocks and check again, in RMBench's fixed swap sequence,
 * which visits every arrangement once. The arrangement on the table does not say how many swaps
 * were made, so where the sequence stands must be remembered.
 * NOTE: RMBench shows no check result; the twin adds a lamp by the button (green: right order,
 * red: wrong order, grey again once a block is lifted).
 */
import type { ObjectId, SimWorldApi, Vec3 } from "../world/types.js";
import { PlanExpert, type ExpertOp, type PlannedSubtask } from "../expert/PlanExpert.js";
import { ReactiveGoalsExpert, latchedStage, type ReactiveGoal } from "../expert/ReactiveGoalsExpert.js";
import { CENTRE_LANE_M, armFor, gripWidths, moveObjectOps, pressOps } from "../expert/primitives.js";
import { homeOps, homePose } from "../expert/orientedOps.js";
import { TABLE_Z, at, distXy } from "./geometry.js";
import { BLOCK_HALF, addBlock, addButton, restsAt, updateButton, type Button } from "./props.js";
import { handsClear, pressLetGo, released } from "./progress.js";
import {
  BLOCKS_RANKING_TRY, POSITIONS, SWAPS, arrangements, type Position,
} from "../../task/blocks-ranking-try.js";
import { defineTask, type TaskDefinition, type TaskScene } from "./types.js";

const REST_Z = TABLE_Z + BLOCK_HALF;
const AT_SPOT_TOL_M = 0.03;
/** Where a block waits during a swap: its spot moved this far in +x, m. */
const PARK_DX_M = 0.1;
const LAMP: Record<"off" | "right" | "wrong", Vec3> = { off: [90, 90, 90], right: [40, 220, 70], wrong: [220, 50, 40] };

/** Scene state of Blocks Ranking Try. */
export interface BlocksRankingTryScene extends TaskScene {
  /** Blocks by rank (rank 0 belongs on the left). */
  blocks: ObjectId[];
  /** Spot centres left (+y), middle, right. */
  spots: Vec3[];
  /** Rank of the block on each spot at the start. */
  start: number[];
  /** Swaps until the order is right (RMBench's sequence from `start`). */
  swapsNeeded: number;
  button: Button;
  lamp: ObjectId;
  /** Arrangement (ranks left to right, "012" is right) at each counted press; "-" when a block was off its spot. */
  checks: string[];
}

/** HSV (s = 0.9, v = 0.95, as RMBench) to 0..255 RGB. */
function vivid(hue: number): Vec3 {
  const s = 0.9, v = 0.95, h = (hue % 1) * 6, i = Math.floor(h), f = h - i;
  const p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f));
  const rgb = [[v, t, p], [q, v, p], [p, v, t], [p, q, v], [t, p, v], [v, p, q]][i % 6]!;
  return rgb.map((c) => Math.round(c * 255)) as Vec3;
}

/** The ranks on the spots left to right, or null while any spot lacks a resting, free block. */
function arrangement(world: SimWorldApi, s: BlocksRankingTryScene): string | null {
  if (!released(world, s.blocks)) return null;
  const ranks = s.spots.map((spot) => s.blocks.findIndex((b) => restsAt(world, b, spot, AT_SPOT_TOL_M, REST_Z)));
  return ranks.every((r) => r >= 0) ? ranks.join("") : null;
}

/** The Blocks Ranking Try task definition. */
export const blocksRankingTry = defineTask<BlocksRankingTryScene>(BLOCKS_RANKING_TRY, {
  createScene(world, rng, robot) {
    const { dx, dy, h0, start, swapsNeeded } = BLOCKS_RANKING_TRY.draw(rng);
    const spots: Vec3[] = [0.12, 0, -0.12].map((y) => [0.5 + dx, y + dy, REST_Z]);
    // blocks[rank] stands on the spot where start[spot] === rank.
    const blocks = [0, 1, 2].map((rank) => {
      const spot = spots[start.indexOf(rank)]!;
      return addBlock(world, `block_rank${rank}`, spot[0], spot[1], vivid(h0 + rank / 3));
    });
    const button = addButton(world, "button", 0.34 + dx, 0.2 + dy, [230, 200, 40]);
    const lamp = world.addObject({
      name: "lamp", body: "visual", color: LAMP.off, shape: { kind: "cylinder", radius: 0.02, halfHeight: 0.01 }, pose: at([0.34 + dx, 0.29 + dy, TABLE_Z + 0.01]),
    });
    return {
      taskId: "blocks-ranking-try", robot, step: 0, blocks, spots, start, swapsNeeded,
      button, lamp, checks: [],
    };
  },

  subtaskDone(world, s, index) {
    // Even: check number index/2 counted and the hand off the button. Odd: the blocks rest in the
    // arrangement after swap (index+1)/2 and the hand is clear of the spots and the parking places.
    if (index % 2 === 0) return s.button.count > index / 2 && pressLetGo(world, s.button);
    const want = arrangements(s.start)[(index + 1) / 2];
    const near = s.spots.flatMap((p) => [p, [p[0] + PARK_DX_M, p[1], p[2]] as Vec3]);
    return want !== undefined && arrangement(world, s) === want.join("") && handsClear(world, near);
  },

  update(world, s) {
    const step = s.step++;
    if (updateButton(world, s.button, step)) {
      const now = arrangement(world, s);
      s.checks.push(now ?? "-");
      world.setObjectColor(s.lamp, now === "012" ? LAMP.right : LAMP.wrong);
    } else if (!released(world, s.blocks)) world.setObjectColor(s.lamp, LAMP.off);
  },

  // The last check found the right order, and the blocks still stand in it.
  success: (world, s) => s.checks[s.checks.length - 1] === "012" && arrangement(world, s) === "012",

  predicates: {
    "first-check-failed": (_w, s) => s.checks.length >= 1 && s.checks[0] !== "012",
    "new-arrangement-checked": (_w, s) => s.checks.length >= 2 && s.checks[1] !== s.checks[0],
    "right-order-no-repeat": (w, s): boolean => blocksRankingTry.success(w, s) && new Set(s.checks).size === s.checks.length,
  },

  expert(world, s, robot) {
    const widths = gripWidths(world, robot);
    const spotOf = (p: Position) => s.spots[POSITIONS.indexOf(p)]!;
    const home = homePose(world);
    const homeBoth: ExpertOp[] = world.armNames.flatMap((a) => homeOps(world, home, a));
    // Both hands home first, so every check and swap starts from the same pose.
    const press = (text: string): PlannedSubtask => ({ text, ops: (w) => [...homeBoth, ...pressOps(armFor(w, s.button.capTop[1], CENTRE_LANE_M), s.button, widths)] });
    const swap = (text: string, [a, b]: [Position, Position]): PlannedSubtask => ({
      text,
      ops: (w) => {
        const pa = spotOf(a), pb = spotOf(b), park: Vec3 = [pa[0] + PARK_DX_M, pa[1], pa[2]];
        const arm = armFor(w, (pa[1] + pb[1]) / 2, CENTRE_LANE_M);
        // Which blocks stand there now (privileged state).
        const blockAt = (p: Vec3) => s.blocks.find((id) => restsAt(w, id, p, AT_SPOT_TOL_M, REST_Z))!;
        const ba = blockAt(pa), bb = blockAt(pb);
        // A subtask's ops are fixed when it starts, so the parked block is picked at its planned park pose.
        const parked = { objectPose: (id: ObjectId) => ({ position: park, quaternion: w.objectPose(id).quaternion }) };
        return [
          ...homeBoth, ...moveObjectOps(w, arm, ba, park, widths),
          ...moveObjectOps(w, arm, bb, pa, widths), ...moveObjectOps(parked, arm, ba, pb, widths),
        ];
      },
    });
    const t = this.subtasks(s);
    const plan = t.map((text, k) => (k % 2 === 0 ? press(text) : swap(text, SWAPS[(k - 1) / 2]!)));
    return new PlanExpert(world, plan, { controlHz: robot.control_hz });
  },

  reactiveExpert(world, s, robot) {
    const texts = this.subtasks(s);
    const pos = (id: ObjectId) => world.objectPose(id).position;
    const parks: Vec3[] = s.spots.map((p) => [p[0] + PARK_DX_M, p[1], p[2]]);
    const goalAt = (w: SimWorldApi, k: number): ReactiveGoal | undefined => {
      const buttonArm = armFor(w, s.button.capTop[1], CENTRE_LANE_M);
      if (k % 2 === 0) return { kind: "press", button: s.button, counted: s.button.count > k / 2, arm: buttonArm };
      // Swap (k + 1) / 2: every block to its spot in that arrangement; a block whose spot is taken waits parked.
      const want = arrangements(s.start)[(k + 1) / 2]!;
      const target = (rank: number) => s.spots[want.indexOf(rank)]!;
      const occupied = (p: Vec3, except: ObjectId) => s.blocks.some((b) => b !== except && distXy(pos(b), p) <= AT_SPOT_TOL_M);
      const move = (block: ObjectId, to: Vec3): ReactiveGoal => ({
        kind: "place", object: block, restCentre: to, arm: armFor(w, (pos(block)[1] + to[1]) / 2, CENTRE_LANE_M),
      });
      const parkFor = (block: ObjectId) => {
        const free = parks.filter((p) => !occupied(p, block));
        return free.reduce((a, b) => (distXy(pos(block), b) < distXy(pos(block), a) ? b : a), free[0] ?? parks[0]!);
      };
      const carried = s.blocks.find((b) => !released(w, [b]));
      if (carried !== undefined) {
        const to = target(s.blocks.indexOf(carried));
        return move(carried, occupied(to, carried) ? parkFor(carried) : to);
      }
      const misplaced = s.blocks.filter((b, rank) => !restsAt(w, b, target(rank), AT_SPOT_TOL_M, REST_Z));
      if (misplaced.length === 0) return undefined;   // in the arrangement: the hands only rise clear
      const ready = misplaced.find((b) => !occupied(target(s.blocks.indexOf(b)), b));
      if (ready !== undefined) return move(ready, target(s.blocks.indexOf(ready)));
      // Both spots taken: park the block on the swap's first-named spot, as the plan does. The text says which;
      // the blocks' ranks (misplaced's order) cannot be seen, so a policy could not learn a choice made by them.
      const first = s.spots[POSITIONS.indexOf(SWAPS[(k - 1) / 2]![0])]!;
      const parked = misplaced.find((b) => restsAt(w, b, first, AT_SPOT_TOL_M, REST_Z)) ?? misplaced[0]!;
      return move(parked, parkFor(parked));
    };
    const stage = latchedStage(texts.length, (w, i) => this.subtaskDone(w, s, i));
    return new ReactiveGoalsExpert(world, robot, { arm: armFor(world, 0), texts, controlHz: robot.control_hz, goalAt, stage });
  },
});
