import { test } from "node:test";
import assert from "node:assert/strict";
import { denormalizeRows, normalize, checkStats, type NormStats } from "../../src/policy/mem0/normalization.js";
import { BIMANUAL_16D, chunkToRobotOrder } from "../../src/policy/mem0/layout.js";
import { canonicalInstruction, tokenize, type ClosedVocabulary } from "../../src/policy/mem0/tokenizer.js";

const x = [0.3, -1.2, 0.04, 2.5];
const cases: [string, NormStats][] = [
  ["min_max", { kind: "min_max", dims: [0, 1, 2], min: [-1, -2, 0], max: [1, 2, 0.08] }],
  ["mean_std", { kind: "mean_std", dims: [1, 3], mean: [-1, 2], std: [0.5, 4] }],
  ["none", { kind: "none" }],
];

for (const [name, stats] of cases) {
  test(`normalization round trip (${name}), untouched dims pass through`, () => {
    const n = normalize(x, stats);
    const back = denormalizeRows(Float64Array.from([...n, ...n]), 4, stats); // two rows
    for (let i = 0; i < 8; i++) assert.ok(Math.abs(back[i] - x[i % 4]) < 1e-6, `${name} dim ${i}`);
    if (stats.kind === "mean_std") assert.equal(n[0], Math.fround(0.3));
  });
}

test("min_max maps [min, max] to [-1, 1]; mean_std to z-scores", () => {
  const n = normalize([-1, 2, 0.04, 0], { kind: "min_max", dims: [0, 1, 2], min: [-1, -2, 0], max: [1, 2, 0.08] });
  assert.deepEqual(Array.from(n).map((v) => +v.toFixed(6)), [-1, 1, 0, 0]);
  assert.deepEqual(Array.from(normalize([1, 3], { kind: "mean_std", dims: [0, 1], mean: [0, 1], std: [2, 4] })), [0.5, 0.5]);
});

test("bad stats are reported with the dim", () => {
  assert.deepEqual(checkStats({ kind: "min_max", dims: [0, 5], min: [0, 1], max: [1, 1] }, 4), ["dims[1]=5 outside [0, 3]", "dims[1]: max 1 <= min 1"]);
  assert.deepEqual(checkStats({ kind: "mean_std", dims: [0], mean: [0, 1], std: [0] }, 4), ["mean has 2 values, expected 1 (one per entry of dims)", "dims[0]: std 0 <= 0"]);
});

test("chunk layout → robot order round trip; end-effector chunks keep their dims", () => {
  assert.equal(BIMANUAL_16D.length, 16);
  assert.equal(BIMANUAL_16D[14], "left_gripper");
  const layout = { kind: "joint" as const, names: ["a", "b", "c"] };
  const rows = Float64Array.of(1, 2, 3, 4, 5, 6);
  const there = chunkToRobotOrder(layout, rows, 2, ["c", "a", "b"]);
  assert.deepEqual(there.jointNames, ["c", "a", "b"]);
  assert.deepEqual(Array.from(there.actions), [3, 1, 2, 6, 4, 5]);
  const back = chunkToRobotOrder({ kind: "joint", names: there.jointNames }, there.actions, 2, ["a", "b", "c"]);
  assert.deepEqual(back.actions, rows);
  assert.deepEqual(chunkToRobotOrder(layout, rows, 2).jointNames, ["a", "b", "c"]);
  assert.throws(() => chunkToRobotOrder(layout, rows, 2, ["a", "z", "b"]), /not in layout: z; missing from robotOrder: c/);
  assert.throws(() => chunkToRobotOrder(layout, rows, 3), /6 values, expected H=3 x D=3/);
  const ee = { kind: "end_effector" as const, arm: "arm", frame: "base", dims: ["x", "y", "z", "roll", "pitch", "yaw", "gripper"] as ["x", "y", "z", "roll", "pitch", "yaw", "gripper"] };
  assert.equal(chunkToRobotOrder(ee, new Float64Array(7), 1).jointNames[6], "arm.gripper");
});

test("closed-vocabulary tokenizer: padding, tolerant matching, unknown instruction lists the vocabulary", () => {
  const tok: ClosedVocabulary = { kind: "closed_vocabulary", maxLength: 5, padId: 0, vocabulary: { "pick up the block": [4, 5, 6, 7], "press the button": [8, 6, 9] } };
  assert.deepEqual(Array.from(tokenize("Pick up  the block.", tok)), [4n, 5n, 6n, 7n, 0n]);
  assert.equal(canonicalInstruction("  Press THE button. "), "press the button");
  assert.throws(() => tokenize("open the drawer", tok, "policies/x/policy.yaml: tokenizer"),
    /policies\/x\/policy.yaml: tokenizer: instruction "open the drawer" is not in the closed vocabulary; known: "pick up the block", "press the button"/);
});
