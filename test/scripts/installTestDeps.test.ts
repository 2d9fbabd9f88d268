/**
 * The README's test command on a fresh machine: scripts/install-test-deps.sh installs what the
 * suite would otherwise skip, .ci/run runs the same command, and `npm test` also runs the Python
 * tests (scripts/test.sh, then scripts/test-python.sh). The scripts run on copies in a temporary folder, since both
 * resolve the checkout from their own path.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

interface Ran { status: number | null; out: string }
const COMMAND = "bash scripts/install-test-deps.sh && npm ci && bash scripts/install-ros2.sh && npm test";
const dir = mkdtempSync(join(tmpdir(), "engram-install-deps-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Runs a bash script; stdout and stderr together. */
function bash(script: string, args: string[], env: Record<string, string> = {}): Ran {
  const r = spawnSync("bash", [script, ...args], { encoding: "utf8", env: { ...process.env, ...env } });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

/** A checkout holding only `scripts/<name>` (and the folders given). */
function bareCheckout(name: string, folders: string[] = []): string {
  const root = mkdtempSync(join(dir, "checkout-"));
  mkdirSync(join(root, "scripts"));
  for (const f of folders) mkdirSync(join(root, f), { recursive: true });
  copyFileSync(join("scripts", name), join(root, "scripts", name));
  return join(root, "scripts", name);
}

test("the README's test command installs first; .ci/run runs that command; npm test runs the Python tests", () => {
  const readme = readFileSync("README.md", "utf8");
  assert.ok(readme.includes("```sh\n" + COMMAND + "\n```"), "README names the install script");
  const ci = readFileSync(".ci/run", "utf8");
  const ciCommand = /^bash scripts\/install-test-deps\.sh && npm ci( --no-audit --no-fund)? && bash scripts\/install-ros2\.sh && npm test$/m;
  assert.match(ci, ciCommand);
  const scripts = (JSON.parse(readFileSync("package.json", "utf8")) as { scripts: Record<string, string> }).scripts;
  assert.equal(scripts["test"], "bash scripts/test.sh");
  assert.match(readFileSync("scripts/test.sh", "utf8"), /^bash scripts\/test-python\.sh \|\| failed\+=/m);
});

test("install-test-deps --check: what the skippable tests need is all here", { timeout: 60_000 }, () => {
  const r = bash("scripts/install-test-deps.sh", ["--check"]);
  assert.equal(r.status, 0, `${r.out}\nrun: bash scripts/install-test-deps.sh`);
  assert.match(r.out, /all present/);
});

test("install-test-deps --check names what is missing, installs nothing; bad flag: usage", { timeout: 60_000 }, () => {
  const script = bareCheckout("install-test-deps.sh");
  const r = bash(script, ["--check"], { ENGRAM_NO_SLURM: "1" });
  assert.equal(r.status, 1, r.out);
  assert.match(r.out, /missing: .*\.ci\/openpi-venv,\.ci\/venv/);
  assert.equal(existsSync(join(script, "../../.ci")), false, "no venv was created");
  const bad = bash(script, ["--install-everything"]);
  assert.equal(bad.status, 2);
  assert.match(bad.out, /usage: bash scripts\/install-test-deps\.sh \[--check\] \(got '--install-everything'\)/);
});

test("test-python.sh: no test_*.py in engram_ml/ fails; a failing test fails it, a passing one passes", () => {
  const script = bareCheckout("test-python.sh", ["engram_ml"]);
  copyFileSync(join("scripts", "python.sh"), join(script, "..", "python.sh"));
  const root = join(script, "../..");
  const none = bash(script, []);
  assert.equal(none.status, 1, none.out);
  assert.match(none.out, /no test_\*\.py under engram_ml\//);
  writeFileSync(join(root, "engram_ml", "test_probe.py"), "def test_sum():\n    assert 1 + 1 == 3\n");
  const failing = bash(script, []);
  assert.equal(failing.status, 1, failing.out);
  assert.match(failing.out, /1 failed/);
  writeFileSync(join(root, "engram_ml", "test_probe.py"), "def test_sum():\n    assert 1 + 1 == 2\n");
  const passing = bash(script, []);
  assert.equal(passing.status, 0, passing.out);
  assert.match(passing.out, /1 passed/);
});
