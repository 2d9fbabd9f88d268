/**
 * Stands for a mem0 policy server (`python -m engram_ml serve`) whose faults a test scripts: a real
 * websocket server (ws) speaking the real framing (src/policy/remote/wire.ts). Its nominal policy
 * holds still: observe answers logit -5, act answers H rows of the last observed state (the
 * bundle's action layout equals its state layout). `fault(op, n)` picks the reply to the n-th call
 * of an op in the connection (n from 0); `stop()` / `start()` take it down and back on its port.
 * `silentOnConnect` stands for a server that accepts the websocket but never sends its metadata
 * (the reference server busy with another client, or something that is not a policy server).
 */
import { WebSocketServer, type WebSocket } from "ws";
import type { AddressInfo } from "node:net";
import { decodeFrame, encodeFrame, f32Array, type NdArray, type WireValue } from "../../src/policy/remote/wire.js";

/** What the server does instead of the nominal reply. */
export type Fault = "nan" | "wrong_shape" | "close" | "silent" | "garbage" | "text_error";

export interface FakeServerOptions {
  metadata: { [key: string]: WireValue };
  horizon: number;
  dim: number;
  fault?: (op: string, n: number) => Fault | null;
  /** Added latency per reply, ms. */
  delayMs?: number;
  /** Accept connections, never send the metadata frame nor any reply. */
  silentOnConnect?: boolean;
}

export class FakePolicyServer {
  private wss: WebSocketServer | null = null;
  port = 0;
  readonly calls: string[] = [];
  /** Connections accepted so far (a client's connect attempts). */
  connections = 0;

  constructor(private readonly o: FakeServerOptions) {}

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

  private serve(ws: WebSocket): void {
    this.connections++;
    if (this.o.silentOnConnect) return;
    const counts = new Map<string, number>();
    let state = new Float32Array(this.o.dim);
    ws.send(encodeFrame({ protocol: "mem0", version: 1, ...this.o.metadata }));
    ws.on("message", async (data) => {
      const req = decodeFrame(new Uint8Array(data as Buffer)) as { [key: string]: WireValue };
      const op = String(req.op);
      const n = counts.get(op) ?? 0;
      counts.set(op, n + 1);
      this.calls.push(op);
      if (op === "observe") state = Float32Array.from((req.state as NdArray).data as Float32Array);
      const fault = this.o.fault?.(op, n) ?? null;
      if (this.o.delayMs) await new Promise((r) => setTimeout(r, this.o.delayMs));
      switch (fault) {
        case "silent": return;
        case "close": ws.terminate(); return;
        case "garbage": ws.send(Buffer.from([0xc1, 0xc1, 0xc1])); return;
        case "text_error": ws.send("Traceback (most recent call last):\n  ...\nRuntimeError: CUDA out of memory"); ws.close(1011); return;
        default: break;
      }
      const H = this.o.horizon, D = this.o.dim;
      const chunk = new Float32Array((fault === "wrong_shape" ? H + 1 : H) * D);
      for (let r = 0; r * D < chunk.length; r++) chunk.set(state, r * D);
      if (fault === "nan") chunk[3 * D + 5] = Number.NaN;
      const reply: { [key: string]: WireValue } = op === "observe" ? { ok: true, logit: -5, subtask_ended: false }
        : op === "act" ? { ok: true, actions: f32Array(chunk, [chunk.length / D, D]) }
        : { ok: true };
      ws.send(encodeFrame(reply));
    });
  }
}
