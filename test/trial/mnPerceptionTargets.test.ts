/**
 * The M(n) perception's targets (training/mem0_tiny/privileged.ts): what one frame shows, in slots a camera
 * can tell apart. Cover Blocks' blocks go by colour (red, green, blue: a covered block's sides still show it),
 * so the execution module told "uncover the red block" can find it after its memory is cleared; its lids,
 * alike, go left to right.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadRobotProfile } from "../../src/robot/loadRobotProfile.js";
import { SimWorld } from "../../src/sim/world/SimWorld.js";
import { getTask } from "../../src/sim/tasks/index.js";
import type { CoverBlocksScene } from "../../src/sim/tasks/cover-blocks.js";
import { mulberry32 } from "../../src/task/rng.js";
import { privilegedTargetsOf } from "../../training/mem0_tiny/privileged.js";

const profile = loadRobotProfile("robots/x-one.yaml").profile;
const world = await SimWorld.create({ profile, physicsHz: 240 });

test("Cover Blocks' targets: the blocks by colour, the lids left to right", () => {
  const task = getTask("cover-blocks");
  const targets = privilegedTargetsOf("cover-blocks");
  const orders = new Set<string>();
  for (let seed = 0; seed < 6; seed++) {
    world.reset();
    const scene = task.createScene(world, mulberry32(seed), "x-one") as CoverBlocksScene;
    const row = targets.at(world, scene, null);
    assert.equal(row.length, targets.kinds.length);
    const slot = (i: number) => row.slice(3 * i, 3 * i + 3);
    for (const [i, colour] of (["red", "green", "blue"] as const).entries()) {
      const block = scene.blocks.find((b) => b.colour === colour)!.id;
      assert.deepEqual(slot(i), [...world.objectPose(block).position], `seed ${seed}: slot ${i} is the ${colour} block`);
    }
    const lidsY = [3, 4, 5].map((i) => slot(i)[1]!);
    assert.ok(lidsY[0]! > lidsY[1]! && lidsY[1]! > lidsY[2]!, `seed ${seed}: lid y left (+y) to right: ${lidsY.join(", ")}`);
    orders.add(scene.blocks.map((b) => b.colour).join(","));
  }
  // Several left-to-right colour orders: the slots follow the colour, not the place.
  assert.ok(orders.size >= 3, `colour orders seen: ${[...orders].join(" | ")}`);
});
