/**
 * `--view [PORT]` of run, sim, record and replay: a live Foxglove view of the command's bus
 * (src/bus/foxgloveView.ts) on ws://127.0.0.1:PORT, default 8765 (foxglove_bridge's port; pass
 * another when a bridge already runs), 0 for a free one. Layouts: launch/foxglove/<robot>.json.
 */
import type { Bus } from "../bus/types.js";
import { FoxgloveView } from "../bus/foxgloveView.js";
import { flagOptionalInt, type FlagSpec, type ParsedArgs } from "./args.js";

/** The port `--view` alone serves on. */
const DEFAULT_VIEW_PORT = 8765;

/** The `--view` flag, for a command's spec. */
export const VIEW_FLAG: Record<string, FlagSpec> = {
  view: {
    type: "string",
    help: `serve a live Foxglove view on ws://127.0.0.1:PORT (default ${DEFAULT_VIEW_PORT}; 0: a free port)`,
    value: { kind: "int", min: 0, max: 65535 }, optionalValue: String(DEFAULT_VIEW_PORT), valueName: "PORT",
  },
};

/** A started view and what the command does with it: tap its bus, close it at the end. */
export interface LiveView {
  /** Wraps the command's bus (pass as the command's `tapBus`). */
  tap(bus: Bus): Bus;
  /** Closes the server; prints what each client lost to a slow connection. */
  close(): Promise<void>;
}

/**
 * Starts the view when `--view` was given (null otherwise) and prints where to connect; rejects
 * naming the port when it cannot listen.
 */
export async function startView(p: ParsedArgs, robot: string): Promise<LiveView | null> {
  const port = flagOptionalInt(p, "view");
  if (port === undefined) return null;
  const view = await FoxgloveView.start({ port, name: `engram ${p.spec.name} (${robot})` });
  const layout = `launch/foxglove/${robot}.json`;
  process.stderr.write(`[view] Foxglove: open ${view.url} (Open connection, Foxglove WebSocket); layout ${layout}\n`);
  return {
    tap: (bus) => view.tap(bus),
    close: async () => { await view.close(); },
  };
}
