/**
 * The project's npm config skips onnxruntime-node's CUDA download without npm warning about an
 * unknown config key on every `npm run` / `npx` (issue 17 item 12), and the CPU build is there.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { test } from "node:test";

test("npm reads .npmrc without an unknown-config warning; install scripts are off; onnxruntime's CPU binding ships", () => {
  const r = spawnSync("npm", ["config", "get", "ignore-scripts"], { encoding: "utf8", timeout: 30_000 });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), "true");
  assert.doesNotMatch(r.stderr, /Unknown (project|user|env) config/);
  assert.ok(existsSync(`node_modules/onnxruntime-node/bin/napi-v6/${process.platform}/${process.arch}/onnxruntime_binding.node`));
});

test("the CLI's entry points run Node with 2 MB young-generation semi-spaces, as a flag (a user's NODE_OPTIONS survive)", () => {
  const FLAG = "--max-semi-space-size=2";
  const scripts = (JSON.parse(readFileSync("package.json", "utf8")) as { scripts: Record<string, string> }).scripts;
  for (const name of ["start", "engram", "bench"]) assert.ok(scripts[name]!.startsWith(`tsx ${FLAG} src/cli.ts`), `npm script "${name}": ${scripts[name]}`);
  assert.equal(readFileSync("src/cli.ts", "utf8").split("\n")[0], `#!/usr/bin/env -S node ${FLAG}`);
  for (const f of ["launch/slurm/eval-shard.sbatch", "launch/slurm/eval-merge.sbatch"]) {
    assert.match(readFileSync(f, "utf8"), new RegExp(`ENGRAM="node ${FLAG} dist/cli.js" \\|\\| ENGRAM="node ${FLAG} --import tsx src/cli.ts"`), f);
  }
  // npm's node-options would replace the caller's NODE_OPTIONS in every script.
  assert.doesNotMatch(readFileSync(".npmrc", "utf8"), /^\s*node-options\s*=/m);
  const r = spawnSync("npm", ["exec", "-c", "echo $NODE_OPTIONS"], { encoding: "utf8", timeout: 30_000, env: { ...process.env, NODE_OPTIONS: "--max-old-space-size=3000" } });
  assert.equal(r.stdout.trim(), "--max-old-space-size=3000", r.stderr);
});
