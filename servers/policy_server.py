"""Engram's reference policy server (docs/remote-policy.md): one websocket endpoint speaking the
`mem0` ops (reset, set_instruction, observe, act) and openpi's `infer` (any frame without an `op`).
The model-specific part is an adapter object (the contract is in docs/remote-policy.md).

  /usr/bin/python3 servers/policy_server.py --checkpoint /path/model.pt [--host 127.0.0.1] [--port 8765]
  /usr/bin/python3 servers/policy_server.py --adapter my_lab.mem0:create --adapter-arg ckpt=/ckpt --device cuda

Binds 127.0.0.1 unless --host says otherwise. With --token-env NAME, a client must send
`Authorization: Api-Key <value of NAME>`. With --cert/--key (PEM), it serves wss:// (TLS). --delay-ms adds latency to every reply (latency tests).
Needs Debian's python3-torch, python3-websockets (>= 10) and python3-msgpack.
"""
import argparse
import asyncio
import http
import importlib
import os
import pickle
import ssl
import sys
import time
import traceback

import numpy as np
import websockets

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wire import FrameError, pack, unpack  # noqa: E402

PROTOCOL_VERSION = 1


def _finite_array(value, what, shape=None):
    a = np.asarray(value)
    if a.dtype.kind not in ("f", "i", "u"):
        raise ValueError(f"{what}: expected a numeric array, got {a.dtype}")
    if shape is not None and tuple(a.shape) != tuple(shape):
        raise ValueError(f"{what}: shape {list(a.shape)} expected {list(shape)}")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{what}: contains NaN or Inf")
    return a


class Session:
    """The ops of one connection, over the shared adapter (one client at a time drives a model)."""

    def __init__(self, adapter):
        self.adapter = adapter
        meta = adapter.metadata()
        self.meta = meta
        self.image_shape = (3, meta["image"]["height"], meta["image"]["width"])
        self.complexity = "M(n)"
        self.end_chunk = None  # M(1): the chunk sent with a declared end, until the next observe

    def handle(self, req):
        op = req.get("op") if isinstance(req, dict) else None
        if op is None:  # openpi: every frame is an infer call
            return self.adapter.infer(req)
        if op == "reset":
            self.complexity, self.end_chunk = str(req.get("complexity", "M(n)")), None
            self.adapter.reset(int(req["seed"]), int(req.get("episode", 0)), self.complexity)
            return {"ok": True}
        if op == "set_instruction":
            self.adapter.set_instruction(str(req["text"]))
            return {"ok": True}
        if op == "observe":
            images = req["images"]
            for cam in self.meta["cameras"]:
                if cam not in images:
                    raise ValueError(f"observe: no image for camera {cam!r} (has {sorted(images)})")
                _finite_array(images[cam], f"observe: images.{cam}", self.image_shape)
            state = _finite_array(req["state"], "observe: state", (self.meta["state_dim"],))
            self.end_chunk = None
            logit, ended = self.adapter.observe(images, state)
            reply = {"ok": True, "logit": float(logit), "subtask_ended": bool(ended)}
            if ended and self.complexity == "M(1)":
                # The runtime drops the running chunk at a declared end and needs the next one at once;
                # on an M(1) task nothing (instruction, memory) changes first, so it goes with this reply
                # and the switch costs no extra round trip. The first `act` before the next observe gets it too.
                self.end_chunk = reply["actions"] = np.asarray(self.adapter.act(), dtype=np.float32)
            return reply
        if op == "act":
            if self.end_chunk is not None:  # already computed for this observation (and its noise drawn)
                chunk, self.end_chunk = self.end_chunk, None
                return {"ok": True, "actions": chunk}
            return {"ok": True, "actions": np.asarray(self.adapter.act(), dtype=np.float32)}
        raise ValueError(f"unknown op {op!r} (known: reset, set_instruction, observe, act; no op: openpi infer)")


def build_adapter(args):
    if args.adapter:
        module, _, factory = args.adapter.partition(":")
        kwargs = dict(a.split("=", 1) for a in args.adapter_arg)
        return getattr(importlib.import_module(module), factory or "create")(**kwargs, device=args.device)
    if not args.checkpoint:
        sys.exit("policy_server: give --checkpoint (a mem0-tiny .pt) or --adapter module:factory")
    if not os.path.isfile(args.checkpoint):
        sys.exit(f"policy_server: --checkpoint {args.checkpoint}: no such file")
    from mem0_tiny_adapter import create
    try:
        return create(args.checkpoint, noise_scale=args.noise_scale, device=args.device)
    except (KeyError, RuntimeError, TypeError, pickle.UnpicklingError) as err:
        sys.exit(f"policy_server: --checkpoint {args.checkpoint} is not a mem0-tiny checkpoint "
                 f"(training/mem0_tiny/train_staged.py or import_bundle.py writes one): {type(err).__name__}: {' '.join(str(err).split())[:240]}")


async def _send_later(ws, data, due, previous):
    if previous is not None:
        await previous
    await asyncio.sleep(max(0.0, due - time.monotonic()))
    try:
        await ws.send(data)
    except websockets.ConnectionClosed:
        pass


async def serve(args, adapter):
    token = os.environ.get(args.token_env) if args.token_env else None
    if args.token_env and not token:
        sys.exit(f"policy_server: --token-env {args.token_env}: the environment variable is not set")
    lock = asyncio.Lock()

    async def check_token(path, headers):
        if token is not None and headers.get("Authorization") != f"Api-Key {token}":
            return http.HTTPStatus.UNAUTHORIZED, [], b"missing or wrong Authorization: Api-Key token\n"
        return None

    async def handler(ws, path=None):
        async with lock:
            session = Session(adapter)
            sending = None
            await ws.send(pack({"protocol": "mem0", "version": PROTOCOL_VERSION, **session.meta}))
            async for message in ws:
                try:
                    if not isinstance(message, bytes):
                        raise FrameError("expected a binary msgpack frame, got text")
                    reply = session.handle(unpack(message))
                except (FrameError, KeyError, ValueError, TypeError) as err:
                    # A request refused whole; the connection (and the memory) stays.
                    reply = {"ok": False, "error": f"{type(err).__name__}: {err}"}
                except Exception:  # noqa: BLE001 - openpi behaviour: the traceback as text, then close
                    await ws.send(traceback.format_exc())
                    await ws.close(1011, "internal error")
                    return
                if args.delay_ms > 0:
                    # Added latency, not lower throughput: the reply leaves delay_ms after it was computed
                    # while the next request is already being served (replies stay in order).
                    previous = sending
                    sending = asyncio.create_task(_send_later(ws, pack(reply), time.monotonic() + args.delay_ms / 1000, previous))
                else:
                    await ws.send(pack(reply))

    tls = None
    if args.cert:
        tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        tls.load_cert_chain(args.cert, args.key)
    async with websockets.serve(handler, args.host, args.port, compression=None, max_size=None, process_request=check_token, ssl=tls) as server:
        port = server.sockets[0].getsockname()[1]
        print(f"policy_server: serving {adapter.metadata()['name']} on {'wss' if tls else 'ws'}://{args.host}:{port}", flush=True)
        await asyncio.Future()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--checkpoint", help="mem0-tiny checkpoint (.pt) for the built-in adapter")
    ap.add_argument("--noise-scale", type=float, default=None,
                    help="flow_noise_scale, as export.py --noise-scale (default: the checkpoint's, as import_bundle.py records it from the bundle; else 1.0)")
    ap.add_argument("--adapter", help="module:factory returning an adapter (docs/remote-policy.md)")
    ap.add_argument("--adapter-arg", action="append", default=[], help="key=value passed to the factory (repeatable)")
    ap.add_argument("--device", default="cpu", help="torch device (cuda on a GPU host)")
    ap.add_argument("--host", default="127.0.0.1", help="bind address (default 127.0.0.1; 0.0.0.0 to serve the network)")
    ap.add_argument("--port", type=int, default=8765, help="port (0: any free port, printed on start)")
    ap.add_argument("--token-env", help="environment variable holding the token clients must send")
    ap.add_argument("--cert", help="TLS certificate chain (PEM): serve wss:// (with --key)")
    ap.add_argument("--key", help="TLS private key (PEM) of --cert")
    ap.add_argument("--delay-ms", type=float, default=0.0, help="added latency per reply (tests)")
    ap.add_argument("--threads", type=int, default=0, help="torch CPU threads (0: torch's default); 1 keeps a small CPU host responsive")
    args = ap.parse_args()
    if bool(args.cert) != bool(args.key):
        ap.error("--cert and --key go together (PEM certificate chain and its private key)")
    for flag, path in (("--cert", args.cert), ("--key", args.key)):
        if path and not os.path.isfile(path):
            ap.error(f"{flag} {path}: no such file")
    if args.threads > 0:
        import torch
        torch.set_num_threads(args.threads)
    adapter = build_adapter(args)
    t0 = time.perf_counter()
    try:
        asyncio.run(serve(args, adapter))
    except KeyboardInterrupt:
        print(f"policy_server: stopped after {time.perf_counter() - t0:.0f} s", flush=True)


if __name__ == "__main__":
    main()
