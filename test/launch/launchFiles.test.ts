/**
 * Every ros2 launch file in launch/ (*.launch.yaml), checked the way launch_ros's YAML front end
 * reads it: one action per entry (arg / node / executable) with only the attributes it parses,
 * every `$(var X)` declared by an earlier arg, only substitutions launch knows, nodes without
 * `pkg` that run `$(find-exec node) --max-semi-space-size=2 $(dirname)/../dist/cli.js <engram command>`, flags the command
 * reads, config paths that exist and pass `engram check`, remaps of topics the robot uses, and a
 * use_sim_time parameter that agrees with the run config. Then each node's command line, as launch
 * builds it (with the `--ros-args` block it appends), is parsed by the CLI's own argument code.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parse } from "yaml";
import { CliExit, parseCommand, stripRosArgs, type CommandSpec } from "../../src/cli/args.js";
import { checkPaths } from "../../src/cli/check.js";
import { loadRunConfig } from "../../src/config/loaders.js";
import { loadRobotProfile } from "../../src/robot/loadRobotProfile.js";

const LAUNCH_DIR = resolve("launch");
const FILES = readdirSync(LAUNCH_DIR).filter((f) => f.endsWith(".launch.yaml")).sort();

/** Attributes launch / launch_ros parse per action (anything else fails `assert_entity_completely_parsed`). */
const ALLOWED: Record<string, string[]> = {
  arg: ["name", "default", "description", "choices"],
  node: ["name", "exec", "args", "output", "param", "remap", "launch-prefix", "if", "unless", "namespace", "ros_args", "env", "cwd", "respawn", "respawn_delay"],
  executable: ["cmd", "output", "if", "unless", "name", "cwd", "env", "launch-prefix", "shell"],
};
const REQUIRED: Record<string, string[]> = { arg: ["name"], node: ["exec", "args"], executable: ["cmd"] };
const SUBSTITUTIONS = new Set(["var", "dirname", "find-exec"]);
/** Values a user passes for args without a default, so command lines can be built. */
const USER_VALUES: Record<string, string> = { policy: "policies/test-tiny", out: "/tmp/engram-launch-test", episode: "runs/demo/episodes/0.mcap" };

type Action = Record<string, Record<string, unknown>>;

function load(file: string): Action[] {
  const doc = parse(readFileSync(join(LAUNCH_DIR, file), "utf8")) as { launch?: unknown };
  assert.ok(Array.isArray(doc?.launch), `${file}: expected a top-level "launch" list`);
  return doc.launch as Action[];
}

/** Every `$(name rest)` in a string. */
function substitutions(text: string): Array<{ name: string; arg: string }> {
  return [...text.matchAll(/\$\(([a-z-]+)\s*([^)]*)\)/g)].map((m) => ({ name: m[1]!, arg: m[2]!.trim() }));
}

/** Launch's command-line split: text splits on whitespace, a substitution's value stays whole and joins adjacent text. */
function commandLine(text: string, resolveSub: (name: string, arg: string) => string): string[] {
  const out: string[] = [];
  let current: string | null = null;
  for (const part of text.split(/(\$\([a-z-]+[^)]*\))/)) {
    const sub = /^\$\(([a-z-]+)\s*([^)]*)\)$/.exec(part);
    if (sub) { current = (current ?? "") + resolveSub(sub[1]!, sub[2]!.trim()); continue; }
    const tokens = part.split(/(\s+)/);
    for (const t of tokens) {
      if (/^\s+$/.test(t)) { if (current !== null) out.push(current); current = null; }
      else if (t !== "") current = (current ?? "") + t;
    }
  }
  if (current !== null) out.push(current);
  return out;
}

/** Flags a command reads: `flagString(p, "x")`, `flagInt(p, "x")`, `flags.has("x")` in its source files. */
/** The spec (flags, positionals) of `engram <command>`, as its parser reads it. */
async function specOf(command: string): Promise<CommandSpec> {
  return ((await import(`../../src/cli/${command}.js`)) as { spec: CommandSpec }).spec;
}

const COMMANDS = new Set([...readFileSync("src/cli.ts", "utf8").matchAll(/^\s{2}([a-z]+): \{ summary:/gm)].map((m) => m[1]!));

test("launch/ holds the five launch files the issue asks for", () => {
  assert.deepEqual(FILES, ["franka-droid.launch.yaml", "record.launch.yaml", "replay.launch.yaml", "sim.launch.yaml", "x-one.launch.yaml"]);
  assert.ok(COMMANDS.has("run") && COMMANDS.has("sim") && COMMANDS.has("record") && COMMANDS.has("replay"), [...COMMANDS].join(", "));
});

for (const file of FILES) {
  test(`${file}: structure, substitutions, commands, flags, configs, remaps, params`, async () => {
    const actions = load(file);
    const declared = new Map<string, string | undefined>();
    let nodes = 0;
    for (const [i, action] of actions.entries()) {
      const where = `${file} launch[${i}]`;
      const keys = Object.keys(action);
      assert.equal(keys.length, 1, `${where}: expected one action, found ${keys.join(", ")}`);
      const kind = keys[0]!;
      assert.ok(kind in ALLOWED, `${where}: action "${kind}" is not arg, node or executable`);
      const body = action[kind]!;
      for (const k of Object.keys(body)) assert.ok(ALLOWED[kind]!.includes(k), `${where}: ${kind} has attribute "${k}" that launch does not parse`);
      for (const k of REQUIRED[kind]!) assert.ok(body[k] !== undefined, `${where}: ${kind} needs "${k}"`);
      // Every substitution in the action's strings is known and refers to args declared before it.
      const strings = JSON.stringify(body).match(/"(?:[^"\\]|\\.)*"/g) ?? [];
      for (const s of strings) {
        for (const sub of substitutions(s)) {
          assert.ok(SUBSTITUTIONS.has(sub.name), `${where}: unknown substitution $(${sub.name})`);
          if (sub.name === "var") assert.ok(declared.has(sub.arg), `${where}: $(var ${sub.arg}) is not a declared arg (declared: ${[...declared.keys()].join(", ")})`);
        }
      }
      if (kind === "arg") {
        assert.ok(!declared.has(body.name as string), `${where}: arg "${body.name}" declared twice`);
        assert.equal(typeof body.description, "string", `${where}: arg "${body.name}" needs a description`);
        declared.set(body.name as string, body.default === undefined ? undefined : String(body.default));
        continue;
      }
      if (kind !== "node") continue;
      nodes++;
      assert.equal(body.pkg, undefined);
      assert.equal(body.exec, "$(find-exec node)", `${where}: exec`);
      const values = (name: string, arg: string): string => {
        switch (name) {
          case "dirname": return LAUNCH_DIR;
          case "find-exec": return process.execPath;
          case "var": {
            const v = declared.get(arg) ?? USER_VALUES[arg];
            assert.ok(v !== undefined, `${where}: arg "${arg}" has no default and the test has no value for it`);
            return commandLine(v, values).join(" ");
          }
          default: throw new Error(`${where}: $(${name})`);
        }
      };
      const [nodeFlag, ...argv] = commandLine(String(body.args), values);
      // The V8 flag every entry point passes (see src/cli.ts), then the CLI.
      assert.equal(nodeFlag, "--max-semi-space-size=2", `${where}: args must start with node's --max-semi-space-size=2`);
      assert.equal(resolve(argv[0]!), join(LAUNCH_DIR, "..", "dist", "cli.js"), `${where}: args must go on with $(dirname)/../dist/cli.js`);
      assert.ok(existsSync("src/cli.ts"), "dist/cli.js is built from src/cli.ts (tsconfig.build.json: rootDir src, outDir dist)");
      // What launch runs: the args, then its own --ros-args block, which the CLI strips.
      const remaps = (body.remap as Array<{ from: string; to: string }> | undefined) ?? [];
      const params = (body.param as Array<{ name: string; value: unknown }> | undefined) ?? [];
      const withRos = [...argv.slice(1), "--ros-args", "-r", `__node:=${String(body.name)}`, "--params-file", "/tmp/launch_params_x", ...remaps.flatMap((r) => ["-r", `${r.from}:=${values("var", r.to.replace(/^\$\(var (.*)\)$/, "$1"))}`])];
      const [command, ...rest] = stripRosArgs(withRos);
      assert.ok(COMMANDS.has(command!), `${where}: "${command}" is not an engram command (${[...COMMANDS].join(", ")})`);
      assert.ok(existsSync(`src/cli/${command}.ts`), `${where}: src/cli/${command}.ts`);
      // The command's own strict parser: an unknown flag or a flag without its value fails here.
      const spec = await specOf(command!);
      let p;
      try { p = parseCommand(spec, rest); } catch (err) { assert.fail(`${where}: engram ${rest.join(" ")}: ${err instanceof CliExit ? err.text.split("\n")[0] : String(err)}`); }
      const target = p.positional[0];
      if (command === "replay") { assert.equal(target, USER_VALUES.episode); continue; }
      // The run config: exists, passes engram check, and agrees with the node's use_sim_time.
      assert.ok(target && existsSync(target), `${where}: config "${target}" does not exist`);
      const check = await checkPaths([target]);
      assert.deepEqual(check.issues, [], `${where}: engram check ${target}`);
      const run = loadRunConfig(target);
      const simTime = params.find((q) => q.name === "use_sim_time")?.value;
      assert.equal(typeof simTime, "boolean", `${where}: use_sim_time param`);
      if (command === "run") assert.equal(simTime, run.config.bus.kind === "ros2" && run.config.bus.use_sim_time, `${where}: use_sim_time param vs ${target} bus.use_sim_time`);
      if (command === "sim") assert.equal(simTime, false, `${where}: the sim owns time (publishes /clock)`);
      if (p.flags.has("policy")) assert.ok(existsSync(join(String(p.flags.get("policy")), "policy.yaml")));
      // Remaps rename topics this robot actually uses.
      const profile = loadRobotProfile(run.robotPath).profile;
      const topics = new Set([profile.joint_state.topic, profile.command.joint_topic, profile.teleop.leader_topic, ...profile.cameras.map((c) => c.topic)]);
      for (const r of remaps) assert.ok(topics.has(r.from), `${where}: remap from "${r.from}" is not a topic of robot ${profile.name}`);
    }
    assert.ok(nodes >= 1, `${file}: no node`);
  });
}

test("engram check passes on every file in launch/ (run configs and launch files)", async () => {
  const r = await checkPaths([LAUNCH_DIR]);
  assert.deepEqual(r.issues, []);
  const names = r.ok.map((o) => o.file.slice(dirname(o.file).length + 1));
  for (const f of ["x-one.yaml", "franka-droid.yaml", "sim-ros2-x-one.yaml", "sim-ros2-franka.yaml", ...FILES]) assert.ok(names.includes(f), f);
});

test("the launch command-line split keeps a substitution's value whole and splits text on spaces", () => {
  const v = (_n: string, a: string) => ({ x: "a b", y: "" })[a] ?? "";
  assert.deepEqual(commandLine("run $(var x) --out=$(var y) --i=$(var x) c", v), ["run", "a b", "--out=", "--i=a b", "c"]);
});
