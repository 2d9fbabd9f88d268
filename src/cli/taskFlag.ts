/** `--task ID` of the commands that run episodes (run, start, record, sim). */
import { getTaskSpec } from "../task/index.js";
import { flagString, UsageError, type ParsedArgs } from "./args.js";

/**
 * `--task` when given (an id the task registry knows, else a UsageError naming the known ones), or
 * `fallback` (the run config's task, which its own loader has checked).
 */
export function flagTask(p: ParsedArgs, fallback: string): string {
  const id = flagString(p, "task");
  if (id === undefined) return fallback;
  try { getTaskSpec(id); } catch (err) { throw new UsageError(`--task: ${(err as Error).message}`); }
  return id;
}
