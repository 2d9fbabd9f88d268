// Runs planner.onnx with onnxruntime-node (what the runtime runs) for the pytest parity check:
//   node engram_ml/planner/ort_node.mjs MODEL.onnx INPUTS.json  ->  {"logits": [...], "ms": p50}
// INPUTS.json: {name: {"type": "int64"|"float32", "dims": [...], "data": [...]}}. Run from the repo root.
import { readFileSync } from "node:fs";
import * as ort from "onnxruntime-node";

const [model, inputsFile] = process.argv.slice(2);
const spec = JSON.parse(readFileSync(inputsFile, "utf8"));
const feeds = {};
for (const [name, t] of Object.entries(spec)) {
  const data = t.type === "int64" ? BigInt64Array.from(t.data.map(BigInt)) : Float32Array.from(t.data);
  feeds[name] = new ort.Tensor(t.type, data, t.dims);
}
const session = await ort.InferenceSession.create(model, { intraOpNumThreads: 1, interOpNumThreads: 1 });
let out = await session.run(feeds);
const ms = [];
for (let i = 0; i < 50; i++) {
  const t0 = performance.now();
  out = await session.run(feeds);
  ms.push(performance.now() - t0);
}
ms.sort((a, b) => a - b);
process.stdout.write(JSON.stringify({ logits: Array.from(out.logits.data), dims: out.logits.dims, ms: ms[25] }) + "\n");
