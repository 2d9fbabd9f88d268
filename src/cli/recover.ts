/**
 * `engram recover <file.mcap> [--out <file>]`: rewrites a truncated recording into a valid indexed
 * one (default output `<name>.recovered.mcap`) and says how many messages and complete chunks it saved.
 * `--json` prints the result as one object instead.
 */
import { flagString, parseArgs } from "./args.js";
import { recoverMcap, type RecoverResult } from "../record/index.js";

/** Entry point: exit 0 when a valid file was written, 1 when the input cannot be recovered, 2 on usage errors. */
export async function main(args: string[]): Promise<number> {
  const p = parseArgs(args, ["json"]);
  const input = p.positional[0];
  if (!input || p.positional.length > 1) {
    process.stderr.write("usage: engram recover <file.mcap> [--out <file.mcap>] [--json]\n");
    return 2;
  }
  let result: RecoverResult;
  try {
    result = await recoverMcap(input, flagString(p, "out"));
  } catch (err) {
    process.stderr.write(`engram recover: ${(err as Error).message}\n`);
    return 1;
  }
  if (p.flags.has("json")) {
    process.stdout.write(JSON.stringify(result) + "\n");
  } else {
    const cut = result.truncated ? `input was truncated, ${result.bytesDropped} trailing bytes dropped` : "input was complete";
    process.stdout.write(`recovered ${result.messageCount} messages from ${result.chunkCount} complete chunks into ${result.outPath} (${cut})\n`);
  }
  return 0;
}
