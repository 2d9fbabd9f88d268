/** Small argument helpers shared by the commands. */

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

export interface ParsedArgs {
  positional: string[];
  flags: Map<string, string | true>;
}

/** Parses `--flag value`, `--flag=value` and boolean `--flag` (when `booleans` names it). */
export function parseArgs(args: string[], booleans: string[] = []): ParsedArgs {
  const positional: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (!a.startsWith("--")) { positional.push(a); continue; }
    const eq = a.indexOf("=");
    if (eq > 0) { flags.set(a.slice(2, eq), a.slice(eq + 1)); continue; }
    const name = a.slice(2);
    const next = args[i + 1];
    if (booleans.includes(name) || next === undefined || next.startsWith("--")) flags.set(name, true);
    else { flags.set(name, next); i++; }
  }
  return { positional, flags };
}

/** Reads a string flag, or the default. A bare `--flag` with no value is an error naming the flag. */
export function flagString(p: ParsedArgs, name: string, fallback?: string): string | undefined {
  const v = p.flags.get(name);
  if (v === undefined) return fallback;
  if (v === true) throw new Error(`--${name} needs a value`);
  return v;
}

/** An optional step-count flag (`--max-steps`): undefined when absent, else a positive integer. */
export function flagPositiveInt(p: ParsedArgs, name: string): number | undefined {
  if (!p.flags.has(name)) return undefined;
  const n = flagInt(p, name, 0);
  if (n < 1) throw new Error(`--${name} expects a positive integer, got ${n}`);
  return n;
}

/** Reads an integer flag, naming the flag and the value on error. */
export function flagInt(p: ParsedArgs, name: string, fallback: number): number {
  const v = flagString(p, name);
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n)) throw new Error(`--${name} expects an integer, got "${v}"`);
  return n;
}

/** Reads a finite number flag, naming the flag and the value on error. */
export function flagNumber(p: ParsedArgs, name: string, fallback: number): number {
  const v = flagString(p, name);
  if (v === undefined) return fallback;
  const n = Number(v);
  if (v.trim() === "" || !Number.isFinite(n)) throw new Error(`--${name} expects a number, got "${v}"`);
  return n;
}
