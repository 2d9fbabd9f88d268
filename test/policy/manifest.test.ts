/** Manifest loading and ONNX-vs-manifest checks: every error names file, line, field and the values. */
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync, cpSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openMem0Bundle, closeMem0Bundle, mem0BundleIssues } from "../../src/policy/mem0/bundle.js";
import { readManifest } from "../../src/policy/mem0/manifest.js";
import { defaultDims, tinyModels, tinyWeights, writeTestBundle } from "../../src/policy/mem0/testBundle.js";
import { ConfigError } from "../../src/config/index.js";
import { sha256Hex } from "../../src/policy/mem0/bundleIntegrity.js";
import { embeddingRows } from "../../src/policy/mem0/onnxEmbedding.js";

let base: string;
let work: string;
before(() => {
  base = mkdtempSync(join(tmpdir(), "engram-manifest-"));
  writeTestBundle(join(base, "good"), { seed: 3 });
});
after(() => rmSync(base, { recursive: true, force: true }));

/** Copy of the good bundle with `edit` applied to policy.yaml; returns [dir, manifest path, text]. */
function variant(name: string, edit: (yaml: string) => string): { dir: string; path: string; text: string } {
  work = join(base, name);
  cpSync(join(base, "good"), work, { recursive: true });
  const path = join(work, "policy.yaml");
  const text = edit(readFileSync(path, "utf8"));
  writeFileSync(path, text);
  return { dir: work, path, text };
}

/** 1-based line of the first line matching `re` after the line matching `after`. */
function lineOf(text: string, re: RegExp, afterRe?: RegExp): number {
  const lines = text.split("\n");
  const start = afterRe ? lines.findIndex((l) => afterRe.test(l)) : 0;
  return lines.findIndex((l, i) => i >= start && re.test(l)) + 1;
}

test("the generated bundle loads and its ONNX files match the manifest", async () => {
  const b = await openMem0Bundle(join(base, "good"));
  assert.equal(b.loaded.manifest.memory.window, 4);
  assert.equal(b.sessions.memory.provider, "cpu");
  await closeMem0Bundle(b);
});

test("the committed policies/test-tiny bundle loads", async () => {
  await closeMem0Bundle(await openMem0Bundle("policies/test-tiny"));
});

test("ONNX window of K=8 against a manifest saying K=4: file, line, model, input, both shapes", async () => {
  const { dir, path, text } = variant("k8", (y) => y);
  const w8 = tinyWeights({ ...defaultDims(20), window: 8 }, 3);
  writeFileSync(join(dir, "memory.onnx"), tinyModels(w8).memory);
  const line = lineOf(text, /shape: \[ 1, 4, 32 \]/, /^      window:/);
  await assert.rejects(openMem0Bundle(dir), (e: Error) => {
    assert.match(e.message, new RegExp(`${path}:${line}:\\d+ models\\.memory\\.inputs\\.window\\.shape: `));
    assert.ok(e.message.includes(`models.memory.inputs.window.shape: memory.onnx input "window" (window): shape [1,8,32] expected [1,K=4,F=32]`), e.message);
    assert.ok(e.message.includes(`models.memory.inputs.window_mask.shape: memory.onnx input "window_mask" (window_mask): shape [1,8] expected [1,K=4]`), e.message);
    return true;
  });
});

test("wrong input name lists the model's actual inputs", async () => {
  const { dir } = variant("name", (y) => y.replace("name: anchor_mask", "name: anchor_valid"));
  await assert.rejects(openMem0Bundle(dir), (e: Error) => {
    assert.match(e.message, /memory\.onnx input "anchor_valid" \(anchor_mask\): not in the model; its inputs are \["current", "window", "window_mask", "anchor", "anchor_mask", "text"\]/);
    assert.match(e.message, /memory\.onnx has input "anchor_mask" the manifest does not declare/);
    return true;
  });
});

test("a fixed dim in the manifest against a symbolic dim in the model is a mismatch; symbolic in the manifest is allowed", async () => {
  const { dir } = variant("sym", (y) => y.replace("shape: [ batch, 3, 3, 48, 64 ]", "shape: [ 1, 3, 3, 48, 64 ]"));
  await assert.rejects(openMem0Bundle(dir), /encoder\.onnx input "images" \(images\): shape \[batch,3,3,48,64\] expected \[1,cameras=3,C=3,height=48,width=64\]/);
});

test("element type disagreement is reported against the role", () => {
  const { path, text } = variant("type", (y) => y.replace(/(tokens:\n\s+name: tokens\n\s+type:) int64/, "$1 float32"));
  const line = lineOf(text, /type: float32/, /^      tokens:/);
  assert.throws(() => readManifest(path), new RegExp(`${path}:${line}:\\d+ models\\.encoder\\.inputs\\.tokens\\.type: expected int64 for role tokens, found float32`));
});

test("schema errors carry the YAML line and field", () => {
  const { path, text } = variant("schema", (y) => y.replace("flow_steps: 4", "flow_steps: four"));
  assert.throws(() => readManifest(path), new RegExp(`${path}:${lineOf(text, /^flow_steps/)}:\\d+ flow_steps: expected number, found string "four"`));
});

test("manifest sizes that disagree with its own tensor shapes are reported", () => {
  const { path, text } = variant("consistency", (y) => y.replace("  window: 4\n", "  window: 6\n"));
  assert.throws(() => readManifest(path), (e: Error) => {
    const line = lineOf(text, /shape: \[ 1, 4, 32 \]/, /^      window:/);
    assert.match(e.message, new RegExp(`${path}:${line}:\\d+ models\\.memory\\.inputs\\.window\\.shape: `));
    assert.ok(e.message.includes(`models.memory.inputs.window.shape: expected [1|batch,K=6,F=32] from the manifest's sizes, found shape [1,4,32]`), e.message);
    return true;
  });
});

test("missing ONNX file and bad normalization stats are named", async () => {
  const { dir, path } = variant("missing", (y) => y.replace("std: [ 1,", "std: [ 0,"));
  assert.throws(() => readManifest(path), /normalization\.state: dims\[0\]: std 0 <= 0/);
  const ok = variant("missing2", (y) => y);
  unlinkSync(join(ok.dir, "classifier.onnx"));
  await assert.rejects(openMem0Bundle(ok.dir), /models\.classifier\.file: expected an existing ONNX file for classifier, found missing path "classifier\.onnx"/);
  await assert.rejects(openMem0Bundle(join(dir, "nope")), /nope\/policy\.yaml:1:1: cannot read file \(ENOENT\)/);
  const garbage = variant("garbage", (y) => y);
  writeFileSync(join(garbage.dir, "memory.onnx"), "not a model");
  assert.deepEqual((await mem0BundleIssues(garbage.dir)).map((i) => i.path), ["models.memory.sha256", "models.memory.file"]);
  assert.deepEqual(await mem0BundleIssues(join(base, "good")), []);
});

test("registry: loads a mem0 bundle by its kind; an unknown kind names the known families", async () => {
  const { loadPolicy } = await import("../../src/policy/registry.js");
  const p = await loadPolicy(join(base, "good"), { actionJointNames: Array.from({ length: 16 }, (_, i) => `j${i}`) });
  assert.equal(p.spec.horizon, 8);
  await p.close();
  const { dir } = variant("kind", (y) => y.replace("kind: mem0", "kind: diffusion"));
  await assert.rejects(loadPolicy(dir), /kind "diffusion" is not a known policy family \(known: mem0, remote\)/);
});

test("load: a flipped byte in an ONNX file is refused naming the file and the manifest's sha256 line", async () => {
  const { dir, path, text } = variant("flipped", (y) => y);
  const onnx = join(dir, "memory.onnx");
  const bytes = readFileSync(onnx);
  bytes[bytes.length >> 1] ^= 0x10;
  writeFileSync(onnx, bytes);
  const line = lineOf(text, /^\s+sha256:/, /^\s+file: memory\.onnx/);
  await assert.rejects(openMem0Bundle(dir), new RegExp(`${path}:${line}:\\d+ models\\.memory\\.sha256: memory\\.onnx has SHA-256 ${sha256Hex(bytes)}, expected [0-9a-f]{64}`));
});

test("load: a model without sha256 is refused, the message giving the file's hash to pin", async () => {
  const { dir } = variant("unpinned", (y) => y.replace(/^(\s+file: classifier\.onnx\n)\s+sha256: [0-9a-f]+\n/m, "$1"));
  const hash = sha256Hex(readFileSync(join(dir, "classifier.onnx")));
  await assert.rejects(openMem0Bundle(dir), new RegExp(`models\\.classifier\\.sha256: expected the SHA-256 of classifier\\.onnx \\(sha256: ${hash} for the file there now\\), found nothing`));
});

test("load: token ids at or past the encoder's embedding rows are refused at their vocabulary line", async () => {
  const rows = embeddingRows(readFileSync(join(base, "good", "encoder.onnx")), "tokens")!;
  assert.equal(rows, Math.max(...Object.values(readManifest(join(base, "good", "policy.yaml")).manifest.tokenizer.vocabulary).flat()) + 1);
  const { dir, path, text } = variant("beyond", (y) => y.replace("pad_id: 0", `pad_id: ${rows}`).replace("press the button: [ ", `press the button: [ ${rows}, `));
  await assert.rejects(openMem0Bundle(dir), (e: Error) => {
    assert.ok(e.message.includes(`${path}:${lineOf(text, /^  pad_id:/)}:11 tokenizer.pad_id: expected an id within encoder.onnx's token embedding of ${rows} rows (ids 0-${rows - 1}), found ${rows}`), e.message);
    assert.match(e.message, new RegExp(`${path}:${lineOf(text, /press the button:/)}:\\d+ tokenizer\\.vocabulary\\.press the button: .*found 1 beyond it \\(${rows}\\)`));
    return true;
  });
});

test("every shipped mem0 bundle pins its ONNX files and its vocabulary fits its encoder", async () => {
  for (const dir of ["policies/test-tiny", "policies/mem0-tiny", "policies/mem0-tiny/ablations/no-anchor", "policies/mem0-tiny/ablations/no-window"]) {
    assert.deepEqual((await mem0BundleIssues(dir)).map((i) => `${i.path}: ${i.message}`), [], dir);
    const { manifest: m } = readManifest(join(dir, "policy.yaml"));
    for (const key of ["encoder", "memory", "classifier", "action_head"] as const) assert.match(m.models[key].sha256 ?? "", /^[0-9a-f]{64}$/, `${dir} ${key}`);
  }
  assert.equal(embeddingRows(readFileSync("policies/mem0-tiny/encoder.onnx"), "tokens"), 69);
});

test("registry: a policy.yaml that is not valid YAML is refused at file:line:col, before its kind is known", async () => {
  const { loadPolicy } = await import("../../src/policy/registry.js");
  const { dir, path, text } = variant("syntax", (y) => y.replace("horizon: 8", "horizon: [8"));
  await assert.rejects(loadPolicy(dir), (e: Error) => {
    assert.ok(e instanceof ConfigError, String(e));
    assert.match(e.message, new RegExp(`^${path}:(\\d+):\\d+: malformed YAML`));
    assert.ok(e.issues[0]!.line >= lineOf(text, /^horizon:/), e.message);
    return true;
  });
});

test("a classifier that reads the state: a wrong shape is named; a state the ONNX file lacks is refused", async () => {
  const addState = (shape: string) => (y: string) => y.replace(
    "        shape: [ 1, 3, 32 ]\n    outputs:\n      logit:",
    `        shape: [ 1, 3, 32 ]\n      state:\n        name: state\n        type: float32\n        shape: ${shape}\n    outputs:\n      logit:`,
  );
  const wrong = variant("classifier-state-shape", addState("[ 1, 3 ]"));
  assert.ok(wrong.text.includes("      state:\n        name: state"), "the edit applied");
  assert.throws(() => readManifest(wrong.path), (e: Error) => {
    assert.ok(e.message.includes("models.classifier.inputs.state.shape: expected [1|batch,S=16] from the manifest's sizes, found shape [1,3]"), e.message);
    return true;
  });
  // Right shape, but this classifier.onnx reads the summary alone: the bundle does not open.
  const absent = variant("classifier-state-absent", addState("[ 1, 16 ]"));
  const issues = (await mem0BundleIssues(absent.dir)).map((i) => `${i.path}: ${i.message}`);
  assert.ok(issues.some((i) => i.startsWith("models.classifier.inputs.state")), issues.join("\n"));
});
