"""A stand-in for RoboMME's MME-VLA policy server (docs/remote-policy.md, `protocol: robomme`), written
from the protocol for Engram's tests: no op field (`reset: true`, `add_buffer: true`, else `infer`),
MME-VLA's frame bookkeeping (`step_idx`, `exec_start_idx`) and its input checks, and a chunk that holds
the requested state with the gripper closed (-1). It is not RoboMME's code and runs no model.

    python -m engram_ml.servers.robomme_standin --port 0 --log requests.jsonl
"""

import argparse
import asyncio
import json
import sys
from typing import Any, Optional, Sequence

import numpy as np
import websockets

from engram_ml.servers.wire import pack, unpack_request

IMAGE_KEYS = ("observation/image", "observation/wrist_image")


def describe(value: Any) -> Any:
    """A request field as the log keeps it: an array's dtype and shape, else the value."""
    if isinstance(value, np.ndarray):
        return {"dtype": value.dtype.str, "shape": list(value.shape)}
    return value


class RoboMMEStandIn:
    """MME-VLA's reset / add_buffer / infer bookkeeping; a bad request raises AssertionError naming it."""

    def __init__(self, num_views: int = 1, state_dim: int = 8, horizon: int = 20) -> None:
        self.num_views, self.state_dim, self.horizon = num_views, state_dim, horizon
        self.reset()

    def reset(self) -> None:
        self.step_idx, self.exec_start_idx = -1, 0

    def handle(self, req: dict) -> dict:
        """The reply to one request (the server's dispatch: reset, add_buffer, else infer)."""
        if req.get("reset", False):
            self.reset()
            return {"reset_finished": True, "reset_time_ms": 0.0}
        if req.get("add_buffer", False):
            images, states = req["images"], req["state"]
            assert isinstance(images, np.ndarray), "images: expected an array"
            ok = images.dtype == np.uint8 and images.ndim == 5
            assert ok, f"images {images.dtype} {images.shape}: expected uint8 [t, v, h, w, 3]"
            t, v, _, _, c = images.shape
            assert v == self.num_views and c == 3, f"images {images.shape}: expected {self.num_views} view(s) of RGB"
            ok = states.dtype == np.float32 and states.shape == (t, self.state_dim)
            assert ok, f"state {states.dtype} {states.shape}: expected float32 [{t}, {self.state_dim}]"
            if req.get("exec_start_idx", 0) > 0:
                self.exec_start_idx = int(req["exec_start_idx"])
            self.step_idx += t
            return {"add_buffer_finished": True, "add_buffer_time_ms": 0.0}
        assert self.step_idx >= 0, "history feats is empty, add buffer first"
        for key in IMAGE_KEYS:
            img = req[key]
            assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[-1] == 3, f"{key}: {img.dtype} {img.shape}"
        state = np.asarray(req["observation/state"], dtype=np.float32)
        assert state.shape == (self.state_dim,) and isinstance(req["prompt"], str), "observation/state [8], prompt str"
        actions = np.tile(state, (self.horizon, 1))
        actions[:, -1] = -1.0
        return {"actions": actions, "infer_time_ms": 0.0}


async def serve(args: argparse.Namespace) -> None:
    """Serves one stand-in per connection until cancelled; logs each request as a JSON line."""

    async def handler(ws, path=None):
        policy = RoboMMEStandIn(horizon=args.horizon)
        await ws.send(pack({}))
        async for message in ws:
            req = unpack_request(message)
            try:
                reply = policy.handle(req)
            except (AssertionError, KeyError) as err:
                await ws.send(f"Traceback (most recent call last):\n{type(err).__name__}: {err}")
                await ws.close(1011, "Internal server error. Traceback included in previous frame.")
                return
            if args.log:
                line = {"fields": {k: describe(v) for k, v in req.items()}, "step_idx": policy.step_idx,
                        "exec_start_idx": policy.exec_start_idx}
                with open(args.log, "a", encoding="utf-8") as f:
                    f.write(json.dumps(line) + "\n")
            await ws.send(pack(reply))

    async with websockets.serve(handler, args.host, args.port, compression=None, max_size=None) as server:
        port = server.sockets[0].getsockname()[1]
        print(f"robomme_standin: serving on ws://{args.host}:{port}", flush=True)
        await asyncio.Future()


def main(argv: Optional[Sequence[str]] = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m engram_ml.servers.robomme_standin", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8011, help="port (0: any free one; the URL is printed)")
    parser.add_argument("--horizon", type=int, default=20, help="rows per chunk (MME-VLA: 20)")
    parser.add_argument(
        "--log", default=None, help="append each request's fields (dtype and shape of arrays) as JSON lines"
    )
    args = parser.parse_args(argv)
    try:
        asyncio.run(serve(args))
    except KeyboardInterrupt:
        sys.exit(0)


if __name__ == "__main__":
    main()
