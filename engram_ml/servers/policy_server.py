"""Engram's reference policy server (docs/remote-policy.md): one websocket endpoint speaking the
`mem0` ops (reset, set_instruction, observe, act) and openpi's `infer` (any frame without an `op`).
The model-specific part is an adapter object (the contract is in docs/remote-policy.md).

  python -m engram_ml serve --checkpoint /path/model.pt [--host 127.0.0.1] [--port 8765]
  python -m engram_ml serve --adapter my_lab.mem0:create --adapter-arg ckpt=/ckpt --device cuda

Binds 127.0.0.1 unless --host says otherwise. With --token-env NAME, a client must send
`Authorization: Api-Key <value of NAME>`. With --cert/--key (PEM), it serves wss:// (TLS). --delay-ms adds
latency to every reply (latency tests). One client at a time: another one is closed at once with code 1013
"busy". Frames over --max-frame-mb and handshakes slower than --open-timeout-s are refused. A client never
sees a traceback (the server's stderr does).
Needs torch, websockets (>= 10) and msgpack (Debian: python3-torch, python3-websockets, python3-msgpack).
"""

import argparse
import asyncio
import hmac
import http
import importlib
import os
import pickle
import ssl
import sys
import time
import traceback
from typing import Any, Optional, Sequence

import websockets
from websockets.exceptions import AbortHandshake

# The legacy server API (process_request(path, headers), create_protocol): Debian's 10.x has no other.
from websockets.legacy.server import WebSocketServerProtocol, serve as ws_serve

from engram_ml.servers.session import Session, internal_error_text, refusal
from engram_ml.servers.wire import FrameError, pack, unpack_request

PROTOCOL_VERSION = 1
BUSY_CODE = 1013  # RFC 6455 "try again later"


def build_adapter(args: argparse.Namespace) -> Any:
    """The adapter the flags name: --adapter module:factory, else mem0-tiny on --checkpoint (exits naming why not)."""
    if args.adapter:
        module, _, factory = args.adapter.partition(":")
        kwargs = dict(a.split("=", 1) for a in args.adapter_arg)
        return getattr(importlib.import_module(module), factory or "create")(**kwargs, device=args.device)
    if not args.checkpoint:
        sys.exit("policy_server: give --checkpoint (a mem0-tiny .pt) or --adapter module:factory")
    if not os.path.isfile(args.checkpoint):
        sys.exit(f"policy_server: --checkpoint {args.checkpoint}: no such file")
    from engram_ml.servers.mem0_tiny_adapter import create  # torch loads only when this adapter serves

    try:
        return create(
            args.checkpoint, noise_scale=args.noise_scale, device=args.device, memory_strategy=args.memory_strategy
        )
    except (KeyError, RuntimeError, TypeError, ValueError, pickle.UnpicklingError) as err:
        detail = " ".join(str(err).split())[:240]
        sys.exit(
            f"policy_server: --checkpoint {args.checkpoint} is not a mem0-tiny checkpoint "
            f"(`train policy` or `import-bundle` writes one): {type(err).__name__}: {detail}"
        )


async def _send_later(ws, data, due, previous):
    if previous is not None:
        await previous
    await asyncio.sleep(max(0.0, due - time.monotonic()))
    try:
        await ws.send(data)
    except websockets.ConnectionClosed:
        pass


def _timed_handshake(open_timeout_s):
    """A server protocol that drops a client whose opening handshake takes longer than open_timeout_s."""

    class TimedHandshake(WebSocketServerProtocol):
        async def handshake(self, *args, **kwargs):
            try:
                return await asyncio.wait_for(super().handshake(*args, **kwargs), open_timeout_s)
            except asyncio.TimeoutError:
                raise AbortHandshake(
                    http.HTTPStatus.REQUEST_TIMEOUT,
                    [],
                    f"websocket handshake not done within {open_timeout_s:g} s\n".encode(),
                ) from None

    return TimedHandshake


def _token_check(token):
    """process_request: HTTP 401 unless the Authorization header is `Api-Key <token>` (constant time)."""
    expected = f"Api-Key {token}".encode()

    async def check_token(path, headers):
        got = (headers.get("Authorization") or "").encode("utf-8", "surrogateescape")
        if token is not None and not hmac.compare_digest(got, expected):
            return http.HTTPStatus.UNAUTHORIZED, [], b"missing or wrong Authorization: Api-Key token\n"
        return None

    return check_token


async def serve(args: argparse.Namespace, adapter: Any) -> None:
    """Serves `adapter` on the flags' address until cancelled."""
    token = os.environ.get(args.token_env) if args.token_env else None
    if args.token_env and not token:
        sys.exit(f"policy_server: --token-env {args.token_env}: the environment variable is not set")
    # NOTE: one client at a time, the others refused at once: the adapter holds one memory bank, and
    # two clients' observes interleaved into it would corrupt both episodes.
    # A client whose connection is closing no longer counts: its close handshake may wait for close_timeout.
    serving = {"ws": None}

    async def handler(ws, path=None):
        if serving["ws"] is not None and serving["ws"].open:
            await ws.close(BUSY_CODE, "busy: serving another client (one client at a time drives the model)")
            return
        serving["ws"] = ws
        try:
            await _serve_client(ws, Session(adapter), args.delay_ms)
        except websockets.ConnectionClosed:
            pass  # the client went (or was dropped for an oversized frame): nothing to answer
        finally:
            if serving["ws"] is ws:
                serving["ws"] = None

    tls = None
    if args.cert:
        tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        tls.load_cert_chain(args.cert, args.key)
    options = {
        "compression": None,
        "max_size": int(args.max_frame_mb * 2**20),
        "process_request": _token_check(token),
        "create_protocol": _timed_handshake(args.open_timeout_s),
        # A peer still pushing an oversized frame cannot send its close frame back: drop it after 1 s, not 10.
        "close_timeout": 1.0,
        **({"ssl": tls, "ssl_handshake_timeout": args.open_timeout_s} if tls else {}),
    }
    async with ws_serve(handler, args.host, args.port, **options) as server:
        port = server.sockets[0].getsockname()[1]
        print(
            f"policy_server: serving {adapter.metadata()['name']} on {'wss' if tls else 'ws'}://{args.host}:{port}",
            flush=True,
        )
        await asyncio.Future()


async def _serve_client(ws, session, delay_ms):
    """The metadata frame, then one reply per request until the client goes."""
    sending = None
    await ws.send(pack({"protocol": "mem0", "version": PROTOCOL_VERSION, **session.meta}))
    async for message in ws:
        try:
            if not isinstance(message, bytes):
                raise FrameError("expected a binary msgpack frame, got text")
            reply = session.handle(unpack_request(message))
        except (FrameError, KeyError, ValueError, TypeError) as err:
            reply = refusal(err)
        except Exception as err:  # noqa: BLE001 - as openpi: an error text frame, then close (no traceback)
            traceback.print_exc(file=sys.stderr)
            await ws.send(internal_error_text(err))
            await ws.close(1011, "internal error")
            return
        if delay_ms > 0:
            # Added latency, not lower throughput: the reply leaves delay_ms after it was computed
            # while the next request is already being served (replies stay in order).
            sending = asyncio.create_task(_send_later(ws, pack(reply), time.monotonic() + delay_ms / 1000, sending))
        else:
            await ws.send(pack(reply))


def _positive(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a positive number") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text}: expected a positive number")
    return value


def main(argv: Optional[Sequence[str]] = None, prog: Optional[str] = None) -> None:
    """`python -m engram_ml serve ...`."""
    ap = argparse.ArgumentParser(prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--checkpoint", help="mem0-tiny checkpoint (.pt) for the built-in adapter")
    ap.add_argument(
        "--noise-scale",
        type=float,
        default=None,
        help="flow_noise_scale, as `export --noise-scale` (default: the checkpoint's, as import-bundle records it "
        "from the bundle; else 1.0)",
    )
    ap.add_argument(
        "--memory-strategy",
        choices=("mem0", "framesamp", "none"),
        default="mem0",
        help="the built-in adapter's memory (src/memory/README.md): mem0 anchor + window, framesamp, none",
    )
    ap.add_argument("--adapter", help="module:factory returning an adapter (docs/remote-policy.md)")
    ap.add_argument("--adapter-arg", action="append", default=[], help="key=value passed to the factory (repeatable)")
    ap.add_argument("--device", default="cpu", help="torch device (cuda on a GPU host)")
    ap.add_argument(
        "--host", default="127.0.0.1", help="bind address (default 127.0.0.1; 0.0.0.0 to serve the network)"
    )
    ap.add_argument("--port", type=int, default=8765, help="port (0: any free port, printed on start)")
    ap.add_argument("--token-env", help="environment variable holding the token clients must send")
    ap.add_argument("--cert", help="TLS certificate chain (PEM): serve wss:// (with --key)")
    ap.add_argument("--key", help="TLS private key (PEM) of --cert")
    ap.add_argument("--delay-ms", type=float, default=0.0, help="added latency per reply (tests)")
    ap.add_argument(
        "--max-frame-mb",
        type=_positive,
        default=64.0,
        help="largest request frame, MiB (default 64: four 640x480 float32 cameras are 15 MiB); "
        "a bigger one closes the connection (code 1009) before it is read",
    )
    ap.add_argument(
        "--open-timeout-s",
        type=_positive,
        default=10.0,
        help="a client whose TLS and websocket handshake take longer is dropped (default 10)",
    )
    ap.add_argument(
        "--threads",
        type=int,
        default=0,
        help="torch CPU threads (0: torch's default); 1 keeps a small CPU host responsive",
    )
    args = ap.parse_args(argv)
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
