/** CLI flag helpers: step counts must be positive integers, numbers finite, and the error names the flag and value. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { flagNumber, flagPositiveInt, parseArgs } from "../../src/cli/args.js";

test("flagPositiveInt: absent → undefined, a positive integer passes, 0 / negative / non-integer are refused by name", () => {
  assert.equal(flagPositiveInt(parseArgs(["cfg.yaml"], []), "max-steps"), undefined);
  assert.equal(flagPositiveInt(parseArgs(["cfg.yaml", "--max-steps", "40"], []), "max-steps"), 40);
  assert.throws(() => flagPositiveInt(parseArgs(["--max-steps", "0"], []), "max-steps"), /--max-steps expects a positive integer, got 0/);
  assert.throws(() => flagPositiveInt(parseArgs(["--max-steps", "-3"], []), "max-steps"), /--max-steps expects a positive integer, got -3/);
  assert.throws(() => flagPositiveInt(parseArgs(["--max-steps", "4.5"], []), "max-steps"), /--max-steps expects an integer, got "4.5"/);
});

test("flagNumber: absent → fallback, a number passes, empty / non-numeric / infinite are refused by name", () => {
  assert.equal(flagNumber(parseArgs(["cfg.yaml"], []), "perturb", 0), 0);
  assert.equal(flagNumber(parseArgs(["--perturb", "0.08"], []), "perturb", 0), 0.08);
  assert.throws(() => flagNumber(parseArgs(["--perturb", "abc"], []), "perturb", 0), /--perturb expects a number, got "abc"/);
  assert.throws(() => flagNumber(parseArgs(["--perturb", "Infinity"], []), "perturb", 0), /--perturb expects a number, got "Infinity"/);
  assert.throws(() => flagNumber(parseArgs(["--perturb", " "], []), "perturb", 0), /--perturb expects a number/);
});
