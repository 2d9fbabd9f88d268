/**
 * The commands' one argument parser (node's util.parseArgs over a CommandSpec) and flag readers.
 * NOTE: over 300 lines: the parser, the help text it prints and the flag readers every command
 * shares are one contract (same errors, same exit codes); split, each command would drift.
 */
import { parseArgs as nodeParseArgs } from "node:util";

/**
 * Removes the `--ros-args ... [--]` block that `ros2 launch` appends (and any number of them).
 * Everything after a closing `--` is kept.
 */
export function stripRosArgs(argv: string[]): string[] {
  const out: string[] = [];
  let inRos = false;
  for (const a of argv) {
    if (a === "--ros-args") { inRos = true; continue; }
    if (inRos) { if (a === "--") inRos = false; continue; }
    out.push(a);
  }
  return out;
}

/**
 * What a string flag's value must be. `int`: decimal digits only (no sign, exponent, hex or
 * fraction) within [min, max]; `number`: a finite decimal number within the bounds; `choice`: one
 * of the words. parseCommand checks every given flag against it before the command does anything.
 */
export type FlagValue =
  | { kind: "int"; min: number; max: number }
  | { kind: "number"; min: number; max: number; minExclusive?: boolean }
  | { kind: "choice"; choices: readonly string[] };

/** One flag of a command: a string (`--name VALUE` or `--name=VALUE`) or a boolean switch. */
export interface FlagSpec {
  type: "string" | "boolean";
  /** One line for the command's --help. */
  help: string;
  /** The values a string flag accepts (default: any non-empty text). */
  value?: FlagValue;
  /**
   * `--flag=` with nothing after the `=` (how the launch files pass an argument left at its ""
   * default) means "not given". Any other empty value (`--flag ""`: an unset shell variable) is a
   * usage error, as is every empty value of a flag without this.
   */
  emptyIsDefault?: boolean;
  /**
   * The value of a string flag given alone (`--view` means `--view=8765`): a following word is its
   * value only when it has the shape of one (digits for an int), so `--view --json` and
   * `--view run.yaml` leave the next word alone.
   */
  optionalValue?: string;
  /** What --help calls the value (default VALUE), e.g. PORT. */
  valueName?: string;
}

/**
 * A command's arguments: what its --help prints and what its parser accepts, nothing more. Adding a
 * flag is one line in `flags`; any other flag is a usage error naming it.
 */
export interface CommandSpec {
  /** `engram <name>`. */
  name: string;
  /** Positional arguments as --help shows them, e.g. "<run-config.yaml>". */
  args: string;
  /** How many positional arguments: [min, max]. */
  positionals: [number, number];
  flags: Record<string, FlagSpec>;
  /** Extra --help lines after the flags (defaults, keys, exit codes). */
  notes?: string;
}

/**
 * Help asked for (code 0, `text` for stdout) or a usage error (code 2, `text` for stderr): the
 * CLI entry prints it and exits with `code`.
 */
export class CliExit extends Error {
  constructor(readonly code: 0 | 2, readonly text: string) {
    super(text);
    this.name = "CliExit";
  }
}

/**
 * A bad flag value found after parsing (one that depends on another flag or on the run config,
 * e.g. a seed range or a task id). The CLI entry prints it with the command's help and exits 2,
 * as for a CliExit(2).
 */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** The usage error CliExit of `spec`'s command: `engram <name>: <message>` and the help. */
export function usageExit(spec: CommandSpec, message: string): CliExit {
  return new CliExit(2, `engram ${spec.name}: ${message}\n${commandHelp(spec)}`);
}

/** The process exit codes every command uses (documented in each command's --help). */
export const EXIT = { ok: 0, failed: 1, usage: 2, signal: 130 } as const;

/** Episodes per run: each lock-step episode takes a one-hour bus-time slot; ROS time's int32 seconds hold ~124,000. */
const MAX_EPISODES = 100_000;
/** The largest seed: scene and noise generators take a 32-bit unsigned seed. */
const MAX_SEED = 2 ** 32 - 1;

/** Flags every command that runs episodes takes (DESIGN.md §5). */
export const EPISODE_FLAGS: Record<string, FlagSpec> = {
  episodes: {
    type: "string", help: "number of episodes (default: the run config's)",
    value: { kind: "int", min: 1, max: MAX_EPISODES },
  },
  seed: {
    type: "string", help: "seed of the first episode; episode k uses seed+k (default: the run config's)",
    value: { kind: "int", min: 0, max: MAX_SEED },
  },
  out: { type: "string", help: "output folder (default: runs/<timestamp>-<name>/)" },
  json: { type: "boolean", help: "print the summary as one JSON object, the last line" },
};

/** Parsed positionals and flags (string values; `true` for switches), and the spec they were checked against. */
export interface ParsedArgs {
  positional: string[];
  flags: Map<string, string | true>;
  spec: CommandSpec;
}

/** What `value` accepts, in words: "an integer from 1 to 100000 (decimal digits)". */
export function describeValue(value: FlagValue): string {
  switch (value.kind) {
    case "int": return `an integer from ${value.min} to ${value.max} (decimal digits)`;
    case "number":
      if (value.minExclusive) return `a number above ${value.min} up to ${value.max}`;
      return `a number from ${value.min} to ${value.max}`;
    case "choice": return `one of ${value.choices.join(", ")}`;
  }
}

const DECIMAL_NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** Parses `raw` as `--name`'s value; throws a UsageError naming the flag, the value and what was expected. */
export function parseFlagValue(name: string, raw: string, value: FlagValue): number | string {
  const bad = () => new UsageError(`--${name}: expected ${describeValue(value)}, found ${JSON.stringify(raw)}`);
  switch (value.kind) {
    case "int": {
      // Digits only: Number() would also take "1e9", "0x10", " 7 " and "", and 20 digits lose precision.
      if (!/^\d{1,16}$/.test(raw)) throw bad();
      const n = Number(raw);
      if (n < value.min || n > value.max) throw bad();
      return n;
    }
    case "number": {
      if (!DECIMAL_NUMBER.test(raw)) throw bad();
      const n = Number(raw);
      const low = value.minExclusive ? n <= value.min : n < value.min;
      if (!Number.isFinite(n) || low || n > value.max) throw bad();
      return n;
    }
    case "choice":
      if (!value.choices.includes(raw)) throw bad();
      return raw;
  }
}

/** The --help text of a command: usage line, flags with their help, notes. */
export function commandHelp(spec: CommandSpec): string {
  const flags = Object.entries(spec.flags)
    .map(([name, f]) => [`--${name}${valueHelp(f)}`, flagHelp(name, f)] as const);
  const all = [...flags, ["-h, --help", "print this help"] as const];
  const width = Math.max(...all.map(([k]) => k.length));
  return [
    `usage: engram ${spec.name}${spec.args ? ` ${spec.args}` : ""}${flags.length > 0 ? " [flags]" : ""}`,
    "",
    "flags:",
    ...all.map(([k, h]) => `  ${k.padEnd(width)}  ${h}`),
    ...(spec.notes ? ["", spec.notes] : []),
  ].join("\n") + "\n";
}

function valueHelp(f: FlagSpec): string {
  if (f.type !== "string") return "";
  const name = f.valueName ?? "VALUE";
  return f.optionalValue === undefined ? ` ${name}` : ` [${name}]`;
}

function flagHelp(name: string, f: FlagSpec): string {
  const accepts = f.value && f.value.kind !== "choice" ? `; ${describeValue(f.value)}` : "";
  return `${f.help}${accepts}${f.emptyIsDefault ? `; --${name}= (empty) means the default` : ""}`;
}

/**
 * Parses `args` with node's util.parseArgs, strictly: an unknown flag, a string flag without a
 * value, a flag given twice, an empty value (unless the flag says `emptyIsDefault`), a value its
 * FlagValue refuses, or a wrong number of positionals throws CliExit(2) naming it; `-h`/`--help`
 * throws CliExit(0) with the command's help.
 */
export function parseCommand(spec: CommandSpec, args: string[]): ParsedArgs {
  const usage = (message: string) => usageExit(spec, message);
  let parsed: ReturnType<typeof nodeParseArgs>;
  try {
    parsed = nodeParseArgs({
      args: withOptionalValues(spec, args), strict: true, allowPositionals: true, tokens: true,
      options: { ...Object.fromEntries(Object.entries(spec.flags).map(([k, f]) => [k, { type: f.type }])), help: { type: "boolean", short: "h" } },
    });
  } catch (err) {
    const e = err as Error & { code?: string };
    if (e.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") throw usage(`unknown flag ${/'([^']+)'/.exec(e.message)?.[1] ?? e.message}`);
    if (e.code?.startsWith("ERR_PARSE_ARGS")) throw usage(e.message.replace(/\s*\n\s*/g, " "));
    throw err;
  }
  if (parsed.values.help === true) throw new CliExit(0, commandHelp(spec));
  const repeated = repeatedFlag(parsed.tokens ?? []);
  if (repeated) throw usage(repeated);
  const [min, max] = spec.positionals;
  const n = parsed.positionals.length;
  if (n < min) throw usage(`expected ${spec.args}`);
  if (n > max) throw usage(`unexpected argument "${parsed.positionals[max]}"`);
  // `--flag=` (inline) is what a launch file passes for an argument left empty; `--flag ""` is not.
  const inlineEmpty = new Set<string>();
  for (const t of parsed.tokens ?? []) if (t.kind === "option" && t.value === "" && t.inlineValue) inlineEmpty.add(t.name);
  const flags = new Map<string, string | true>();
  for (const [k, v] of Object.entries(parsed.values)) {
    if (v === true) { flags.set(k, v); continue; }
    if (typeof v !== "string") continue;
    const f = spec.flags[k]!;
    if (v === "" && f.emptyIsDefault && inlineEmpty.has(k)) continue;
    const expected = f.value ? describeValue(f.value) : "a value";
    if (v === "") throw usage(`--${k}: expected ${expected}, found an empty string`);
    if (f.value) {
      try { parseFlagValue(k, v, f.value); } catch (err) { throw usage((err as Error).message); }
    }
    flags.set(k, v);
  }
  return { positional: parsed.positionals, flags, spec };
}

/** `--flag` (with an optionalValue) as `--flag=VALUE`: the next word when it has a value's shape, else the default. */
function withOptionalValues(spec: CommandSpec, args: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--") { out.push(...args.slice(i)); break; }
    const f = a.startsWith("--") ? spec.flags[a.slice(2)] : undefined;
    if (f?.type !== "string" || f.optionalValue === undefined) { out.push(a); continue; }
    const next = args[i + 1];
    if (next !== undefined && looksLikeValue(next, f.value)) { out.push(`${a}=${next}`); i++; }
    else out.push(`${a}=${f.optionalValue}`);
  }
  return out;
}

/** True when `word` is shaped as a value of `value` (checked strictly after): digits, a number, a choice. */
function looksLikeValue(word: string, value: FlagValue | undefined): boolean {
  switch (value?.kind) {
    case "int": return /^\d+$/.test(word);
    case "number": return DECIMAL_NUMBER.test(word);
    case "choice": return value.choices.includes(word);
    case undefined: return false;
  }
}

type Token = NonNullable<ReturnType<typeof nodeParseArgs>["tokens"]>[number];

/** "--seed given 2 times ("1", "2"): give it once", or null when no flag is repeated. */
function repeatedFlag(tokens: readonly Token[]): string | null {
  const seen = new Map<string, string[]>();
  for (const t of tokens) {
    if (t.kind !== "option") continue;
    const values = seen.get(t.name) ?? [];
    values.push(t.value === undefined ? "" : JSON.stringify(t.value));
    seen.set(t.name, values);
  }
  for (const [name, values] of seen) {
    if (values.length < 2) continue;
    const shown = values.every((v) => v === "") ? "" : ` (${values.join(", ")})`;
    return `--${name} given ${values.length} times${shown}: give it once`;
  }
  return null;
}

/** Reads a string flag, or the default. */
export function flagString(p: ParsedArgs, name: string, fallback?: string): string | undefined {
  const v = p.flags.get(name);
  if (v === undefined) return fallback;
  if (v === true) throw new UsageError(`--${name} needs a value`);
  return v;
}

/** The FlagValue of `name` in the command's spec; a reader used on an undeclared flag is a programming error. */
function declared(p: ParsedArgs, name: string, kind: FlagValue["kind"]): FlagValue {
  const value = p.spec.flags[name]?.value;
  if (value?.kind !== kind) throw new Error(`engram ${p.spec.name}: --${name} is not declared with a ${kind} value`);
  return value;
}

/** Reads an integer flag declared `{ kind: "int" }` (checked by parseCommand), or the fallback. */
export function flagInt(p: ParsedArgs, name: string, fallback: number): number {
  return flagOptionalInt(p, name) ?? fallback;
}

/** An integer flag declared `{ kind: "int" }`, or undefined when absent (e.g. `--max-steps`: the task's limit). */
export function flagOptionalInt(p: ParsedArgs, name: string): number | undefined {
  const value = declared(p, name, "int");
  const v = flagString(p, name);
  return v === undefined ? undefined : parseFlagValue(name, v, value) as number;
}

/** Reads a number flag declared `{ kind: "number" }` (checked by parseCommand), or the fallback. */
export function flagNumber(p: ParsedArgs, name: string, fallback: number): number {
  const value = declared(p, name, "number");
  const v = flagString(p, name);
  return v === undefined ? fallback : parseFlagValue(name, v, value) as number;
}

/** Reads a flag declared `{ kind: "choice" }` (checked by parseCommand), or the fallback. */
export function flagChoice<T extends string>(p: ParsedArgs, name: string, fallback: T): T {
  const value = declared(p, name, "choice");
  const v = flagString(p, name);
  return (v === undefined ? fallback : parseFlagValue(name, v, value)) as T;
}

/** How many episodes a run has and the seed of its first. */
export interface EpisodeSeeds { episodes: number; seed: number }

/**
 * `--seed` and `--episodes` over the run config's values: episode k runs seed + k, so the last
 * episode's seed must stay within 0..MAX_SEED too (a UsageError naming both flags otherwise).
 */
export function episodeSeeds(p: ParsedArgs, config: EpisodeSeeds): EpisodeSeeds {
  const episodes = flagInt(p, "episodes", config.episodes);
  const seed = flagInt(p, "seed", config.seed);
  if (seed + episodes - 1 > MAX_SEED) {
    const last = seed + episodes - 1;
    const flags = `--seed ${seed} with --episodes ${episodes}`;
    throw new UsageError(`${flags}: the last episode's seed ${last} exceeds ${MAX_SEED} (episode k runs seed + k)`);
  }
  return { episodes, seed };
}
