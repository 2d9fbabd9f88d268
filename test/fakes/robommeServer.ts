/**
 * Stands for RoboMME's MME-VLA policy server (robomme_policy_learning
 * `mme_vla_suite/serving/websocket_policy_server.py`): a real websocket server on the real framing
 * that sends an empty metadata map, answers `{reset: true}` with `reset_finished`, a map with
 * `add_buffer: true` with `add_buffer_finished`, and any other map (an infer) with `actions`
 * [horizon, 8] float32: the request's state on every row, the gripper column -1 (RoboMME: closed).
 * Every decoded request is kept in `requests`; `fault(op, n)` scripts the reply to the n-th call of an op.
 */
import { WebSocketServer, type WebSocket } from "ws";
import type { AddressInfo } from "node:net";
import { decodeFrame, encodeFrame, f32Array, type NdArray, type WireValue } from "../../src/policy/remote/wire.js";

/**
 * What the server does instead of the nominal reply: no reply (to this or any later request: a hung
 * server), a traceback text frame and close 1011 (the real server's error path), a reply without its
 * finished flag.
 */
export type RoboMMEFault = "silent" | "text_error" | "unfinished";

/** A request as received, with the op the server's code would take it for. */
export interface RoboMMERequest { op: "reset" | "add_buffer" | "infer"; fields: { [key: string]: WireValue } }

/** What the real server sends before closing with 1011 when a request fails (the traceback's tail). */
const TRACEBACK = "Traceback (most recent call last):\n  ...\nAssertionError: history feats is empty, add buffer first";

export class FakeRoboMMEServer {
  private wss: WebSocketServer | null = null;
  port = 0;
  readonly requests: RoboMMERequest[] = [];
  /** Calls per op since start, over all connections (a fault at call n happens once, not again after a reconnect). */
  private readonly counts = new Map<string, number>();

  constructor(private readonly o: {
    horizon?: number;
    /** Added latency per reply, ms (replies stay in order). */
    delayMs?: number;
    fault?: (op: RoboMMERequest["op"], n: number) => RoboMMEFault | null;
  } = {}) {}

  get url(): string {
    return `ws://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.wss = new WebSocketServer({ host: "127.0.0.1", port: this.port });
    await new Promise<void>((r) => this.wss!.once("listening", r));
    this.port = (this.wss.address() as AddressInfo).port;
    this.wss.on("connection", (ws) => this.serve(ws));
  }

  async stop(): Promise<void> {
    const wss = this.wss;
    this.wss = null;
    if (!wss) return;
    for (const c of wss.clients) c.terminate();
    await new Promise<void>((r) => wss.close(() => r()));
  }

  /** The requests of one op, in order. */
  of(op: RoboMMERequest["op"]): { [key: string]: WireValue }[] {
    return this.requests.filter((r) => r.op === op).map((r) => r.fields);
  }

  private serve(ws: WebSocket): void {
    let hung = false;
    ws.send(encodeFrame({}));
    ws.on("message", async (data) => {
      if (hung) return;
      const fields = decodeFrame(new Uint8Array(data as Buffer)) as { [key: string]: WireValue };
      const op = fields.reset === true ? "reset" : fields.add_buffer === true ? "add_buffer" : "infer";
      const n = this.counts.get(op) ?? 0;
      this.counts.set(op, n + 1);
      this.requests.push({ op, fields });
      if (this.o.delayMs) await new Promise((r) => setTimeout(r, this.o.delayMs));
      switch (this.o.fault?.(op, n) ?? null) {
        case "silent": hung = true; return;
        case "text_error":
          ws.send(TRACEBACK);
          ws.close(1011);
          return;
        case "unfinished": ws.send(encodeFrame({ [`${op}_time_ms`]: 1 })); return;
        default: break;
      }
      if (op === "reset") { ws.send(encodeFrame({ reset_finished: true, reset_time_ms: 0.1 })); return; }
      if (op === "add_buffer") { ws.send(encodeFrame({ add_buffer_finished: true, add_buffer_time_ms: 0.2 })); return; }
      const state = (fields["observation/state"] as NdArray).data as Float32Array;
      const h = this.o.horizon ?? 20;
      const actions = new Float32Array(h * 8);
      for (let k = 0; k < h; k++) { actions.set(state, k * 8); actions[k * 8 + 7] = -1; }
      ws.send(encodeFrame({ actions: f32Array(actions, [h, 8]), infer_time_ms: 1 }));
    });
  }
}
