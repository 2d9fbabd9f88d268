/** CLI flag helpers: step counts must be positive integers, and the error names the flag and value. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { flagPositiveInt, parseArgs } from "../../src/cli/args.js";

test("flagPositiveInt: absent → undefined, a positive integer passes, 0 / negative / non-integer are refused by name", () => {
  assert.equal(flagPositiveInt(parseArgs(["cfg.yaml"], []), "max-steps"), undefined);
  assert.equal(flagPositiveInt(parseArgs(["cfg.yaml", "--max-steps", "40"], []), "max-steps"), 40);
  assert.throws(() => flagPositiveInt(parseArgs(["--max-steps", "0"], []), "max-steps"), /--max-steps expects a positive integer, got 0/);
  assert.throws(() => flagPositiveInt(parseArgs(["--max-steps", "-3"], []), "max-steps"), /--max-steps expects a positive integer, got -3/);
  assert.throws(() => flagPositiveInt(parseArgs(["--max-steps", "4.5"], []), "max-steps"), /--max-steps expects an integer, got "4.5"/);
});
