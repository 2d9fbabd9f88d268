/**
 * The safety stage driven by a real ONNX model (built here with onnx-proto, run by onnxruntime-node)
 * whose outputs are deliberately out of range or NaN: every published command stays within limits
 * and the hold engages.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import onnxProto from "onnx-proto";
import * as ort from "onnxruntime-node";
import { ActionScheduler } from "../../src/control/actionScheduler.js";
import { InterventionCounter } from "../../src/control/interventionCounter.js";
import { createOutput, type Outgoing } from "../../src/control/output/index.js";
import { SafetyFilter } from "../../src/control/safetyFilter.js";
import type { JointPositions } from "../../src/control/types.js";
import type { ActionChunk } from "../../src/policy/types.js";
import { assertRowSafe } from "./assertSafe.js";
import { X_ONE_16D, xOneProfile } from "./profiles.js";

const { onnx } = onnxProto;
const H = 30, D = 16;

/** actions[H, D] = state[1, D] + bias[H, D]: a one-node Add graph whose bias we choose (NaN included). */
function addModel(bias: Float32Array): Uint8Array {
  const F = onnx.TensorProto.DataType.FLOAT;
  const info = (name: string, dims: number[]) => ({ name, type: { tensorType: { elemType: F, shape: { dim: dims.map((d) => ({ dimValue: d })) } } } });
  const model = onnx.ModelProto.create({
    irVersion: 7, producerName: "engram-control-test", opsetImport: [{ domain: "", version: 13 }],
    graph: {
      name: "bad_actions",
      node: [{ opType: "Add", input: ["state", "bias"], output: ["actions"], name: "add" }],
      initializer: [{ name: "bias", dims: [H, D], dataType: F, floatData: Array.from(bias) }],
      input: [info("state", [1, D])], output: [info("actions", [H, D])],
    },
  });
  return onnx.ModelProto.encode(model).finish();
}

async function runModel(bytes: Uint8Array, state: Float32Array): Promise<ActionChunk> {
  const session = await ort.InferenceSession.create(bytes);
  try {
    const out = await session.run({ state: new ort.Tensor("float32", state, [1, D]) });
    const data = out["actions"]!.data as Float32Array;
    return { jointNames: X_ONE_16D, actions: Float64Array.from(data), horizon: H, dim: D };
  } finally {
    await session.release();
  }
}

const profile = xOneProfile({ interface: "stream" });
const layout = profile.layouts["bimanual_16d"]!;

/** Wild bias: ±10 rad joints, grippers at 5 m / -1 m, alternating per step. */
function wildBias(): Float32Array {
  const b = new Float32Array(H * D);
  for (let k = 0; k < H; k++) for (let j = 0; j < D; j++) b[k * D + j] = (j % 8 === 7 ? (k % 2 ? 5 : -1) : (k % 2 ? 10 : -10)) * (1 + j / 16);
  return b;
}

test("ONNX model with out-of-range outputs: clamped chunk and every streamed command within limits", async () => {
  const chunk = await runModel(addModel(wildBias()), new Float32Array(D));
  assert.ok(chunk.actions.some((v) => Math.abs(v) > 9), "the model really emits out-of-range values");
  const filter = new SafetyFilter({ profile, layout });
  const counter = new InterventionCounter();
  const measured: JointPositions = Object.fromEntries(X_ONE_16D.map((n) => [n, n.endsWith("gripper") ? 0.04 : 0]));

  const checked = filter.checkChunk(chunk, measured);
  assert.equal(checked.kind, "clamped");
  assert.ok(checked.kind === "clamped");
  const events = counter.observe(checked);
  assert.ok(events.length > 0 && events.every((e) => e.event === "safety_intervention"));

  const scheduler = new ActionScheduler({ dim: D });
  assert.equal(scheduler.accept(checked.command).kind, "ok");
  const output = createOutput(profile, layout);
  const published: Outgoing[] = [];
  let prev = Float64Array.from(profile.command.joint_order, (n) => measured[n]!);
  for (let t = 0; t < H; t++) {
    const action = scheduler.next();
    assert.ok(action);
    const v = filter.checkStep(action, measured);
    assert.notEqual(v.kind, "hold");
    if (v.kind === "hold") continue;
    counter.observe(v);
    published.push(...output.buildStep(v.command, BigInt(t) * 100_000_000n, measured));
  }
  assert.equal(published.length, H);
  for (const m of published) {
    assert.equal(m.type, "sensor_msgs/msg/JointState");
    if (m.type !== "sensor_msgs/msg/JointState") continue;
    assertRowSafe(filter.limits, m.message.name, m.message.position, prev);
    prev = Float64Array.from(m.message.position);
  }
  assert.ok(counter.snapshot().clamps >= 16);
});

test("ONNX model with NaN outputs: whole chunk rejected, hold on the measured position, event names the values", async () => {
  const bias = new Float32Array(H * D).fill(0.01);
  bias[5 * D + 3] = Number.NaN;
  bias[20 * D + 12] = Number.POSITIVE_INFINITY;
  const measured: JointPositions = Object.fromEntries(X_ONE_16D.map((n, i) => [n, n.endsWith("gripper") ? 0.03 : 0.1 * i]));
  const chunk = await runModel(addModel(bias), Float32Array.from(X_ONE_16D, (n) => measured[n]!));
  assert.ok(Number.isNaN(chunk.actions[5 * D + 3]!), "the model really emits NaN");

  const filter = new SafetyFilter({ profile, layout });
  const counter = new InterventionCounter();
  const v = filter.checkChunk(chunk, measured);
  assert.ok(v.kind === "hold" && v.reason === "non_finite");
  assert.deepEqual(v.values, [{ step: 5, joint: "left_joint4", value: "NaN" }, { step: 20, joint: "right_joint5", value: "Infinity" }]);
  const events = counter.observe(v);
  assert.equal(events.length, 1);
  assert.equal(events[0]!.event, "safety_hold");
  assert.deepEqual(counter.observe(v), [], "the same hold is one event, not one per tick");
  assert.deepEqual(counter.snapshot().byKind, { "hold:non_finite": 1 });

  // The chunk never reaches the scheduler; the loop holds: the adapter commands the measured position.
  filter.noteHold();
  const hold = createOutput(profile, layout).buildHold(measured, 1n);
  assert.equal(hold.length, 1);
  const m = hold[0]!;
  assert.ok(m.type === "sensor_msgs/msg/JointState");
  assert.deepEqual([...m.message.position], profile.command.joint_order.map((n) => measured[n]));
  assertRowSafe(filter.limits, m.message.name, m.message.position);
  // With hold = stop_publishing nothing goes out.
  assert.deepEqual(createOutput(xOneProfile({ interface: "stream", hold: "stop_publishing" }), layout).buildHold(measured, 1n), []);
});
