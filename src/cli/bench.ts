/**
 * `engram bench`: runs every benchmark section (bench/, outside the source layers) and prints one
 * JSON object of figures. Each section is a module `bench/<name>.ts` exporting
 * `bench(): Promise<Record<string, unknown>>`; a section whose module is not in this build (the
 * compiled CLI, dist/, carries no benches) is reported as null.
 */
import { CliExit, commandHelp, parseCommand, type CommandSpec } from "./args.js";

type Section = { bench(): Promise<Record<string, unknown>> };

/** Section names, in the order they run; each is bench/<name>.ts. */
const SECTIONS = [
  "msgs", "mcap", "compression", "recorder", "bus", "sim", "observe", "policy", "planner", "memory", "control", "trial",
  "remote",
];

/**
 * Loads bench/<name>.ts. The specifier is built at run time so the compiled CLI's program (rootDir
 * src) does not pull the benches in; under tsx the `.js` name resolves to the `.ts` file.
 */
function loadSection(name: string): Promise<Section> {
  return import(new URL(`../../bench/${name}.js`, import.meta.url).href) as Promise<Section>;
}

/** `engram bench` arguments. */
export const spec: CommandSpec = {
  name: "bench", args: "[section...]", positionals: [0, Infinity], flags: {},
  notes: [
    `sections: ${SECTIONS.join(", ")} (default: all). Prints one JSON object of figures.`,
    "exit codes: 0 printed; 1 a section failed; 2 an unknown section or flag.",
  ].join("\n"),
};

/** Runs the sections `args` names (all when none) and prints their figures as one JSON line. */
export async function main(args: string[]): Promise<number> {
  const only = parseCommand(spec, args).positional;
  const unknown = only.filter((s) => !SECTIONS.includes(s));
  if (unknown.length > 0) throw new CliExit(2, `engram bench: unknown section ${unknown.map((s) => `"${s}"`).join(", ")}\n${commandHelp(spec)}`);
  const figures: Record<string, unknown> = {};
  for (const name of SECTIONS) {
    if (only.length > 0 && !only.includes(name)) continue;
    let mod: Section;
    try {
      mod = await loadSection(name);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ERR_MODULE_NOT_FOUND") { figures[name] = null; continue; }
      throw err;
    }
    process.stderr.write(`bench: ${name}...\n`);
    figures[name] = await mod.bench();
  }
  process.stdout.write(JSON.stringify(figures) + "\n");
  return 0;
}
