"""One connection's side of the protocol (docs/remote-policy.md): each request map checked whole
(the op known, every field of its type, arrays finite and of the metadata's shape) before the
adapter sees it, and what a client is told when a request is refused or fails.
"""

import re
from typing import Any

import numpy as np

from engram_ml.servers.wire import FrameError, msgpack_type


def _finite_array(value, what, shape=None):
    a = np.asarray(value)
    if a.dtype.kind not in ("f", "i", "u"):
        raise ValueError(f"{what}: expected a numeric array, got {a.dtype}")
    if shape is not None and tuple(a.shape) != tuple(shape):
        raise ValueError(f"{what}: shape {list(a.shape)} expected {list(shape)}")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{what}: contains NaN or Inf")
    return a


COMPLEXITIES = ("M(1)", "M(n)")
_MSGPACK_NAMES = {int: "int", str: "str", dict: "map"}


def _field(req, op, name, kind, default=None, required=True):
    """req[name] when it is a `kind` (bool is not an int), else a FrameError naming the op and field."""
    if name not in req:
        if required:
            raise FrameError(f"{op}: field {name!r} is missing")
        return default
    value = req[name]
    if kind is int and isinstance(value, float) and value.is_integer():
        return int(value)  # msgpack clients may send integers past 2^32 as float64
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise FrameError(f"{op}: field {name!r} is a msgpack {msgpack_type(value)}, expected {_MSGPACK_NAMES[kind]}")
    return value


class Session:
    """The ops of one connection, over the shared adapter (one client at a time drives a model)."""

    OPS = ("reset", "set_instruction", "observe", "act", "demonstration")

    def __init__(self, adapter: Any) -> None:
        self.adapter = adapter
        meta = adapter.metadata()
        self.meta = meta
        self.image_shape = (3, meta["image"]["height"], meta["image"]["width"])
        self.complexity = "M(n)"
        self.end_chunk = None  # M(1): the chunk sent with a declared end, until the next observe

    def handle(self, req: dict) -> dict:
        """One request map (wire.unpack_request) to its reply; FrameError/ValueError: refused whole."""
        op = req.get("op")
        if op is None:  # openpi: every frame is an infer call
            if not hasattr(self.adapter, "infer"):
                known = ", ".join(self.OPS)
                raise FrameError(f"no op, and this server's adapter has no openpi infer (known ops: {known})")
            return self.adapter.infer(req)
        if not isinstance(op, str) or op not in self.OPS:
            shown = repr(op)[:60] if isinstance(op, str) else f"of msgpack type {msgpack_type(op)}"
            raise FrameError(f"unknown op {shown} (known: {', '.join(self.OPS)}; no op: openpi infer)")
        return getattr(self, f"_{op}")(req)

    def _reset(self, req):
        complexity = _field(req, "reset", "complexity", str, default="M(n)", required=False)
        if complexity not in COMPLEXITIES:
            raise FrameError(f"reset: complexity {complexity[:20]!r}, expected one of {', '.join(COMPLEXITIES)}")
        seed = _field(req, "reset", "seed", int)
        episode = _field(req, "reset", "episode", int, default=0, required=False)
        self.complexity, self.end_chunk = complexity, None
        self.adapter.reset(seed, episode, complexity)
        return {"ok": True}

    def _set_instruction(self, req):
        self.adapter.set_instruction(_field(req, "set_instruction", "text", str))
        return {"ok": True}

    def _frame(self, req, op):
        """The `images` and `state` of an observe or demonstration request, checked whole."""
        images = _field(req, op, "images", dict)
        for cam in self.meta["cameras"]:
            if cam not in images:
                raise ValueError(f"{op}: no image for camera {cam!r} (has {sorted(map(str, images))[:8]})")
            _finite_array(images[cam], f"{op}: images.{cam}", self.image_shape)
        return images, _finite_array(req.get("state"), f"{op}: state", (self.meta["state_dim"],))

    def _demonstration(self, req):
        # One frame of a demonstration prompt, after reset and before the first observe: memory only.
        if not hasattr(self.adapter, "observe_demonstration"):
            raise FrameError("demonstration: this server's adapter has no observe_demonstration (memory-only frames)")
        index = _field(req, "demonstration", "index", int)
        count = _field(req, "demonstration", "count", int)
        if not 0 <= index < count:
            raise FrameError(f"demonstration: index {index} outside 0..{count - 1} (count {count})")
        images, state = self._frame(req, "demonstration")
        self.adapter.observe_demonstration(images, state)
        return {"ok": True}

    def _observe(self, req):
        images, state = self._frame(req, "observe")
        self.end_chunk = None
        logit, ended = self.adapter.observe(images, state)
        reply = {"ok": True, "logit": float(logit), "subtask_ended": bool(ended)}
        if ended and self.complexity == "M(1)":
            # The runtime drops the running chunk at a declared end and needs the next one at once;
            # on an M(1) task nothing (instruction, memory) changes first, so it goes with this reply
            # and the switch costs no extra round trip. The first `act` before the next observe gets it too.
            self.end_chunk = reply["actions"] = np.asarray(self.adapter.act(), dtype=np.float32)
        return reply

    def _act(self, req):
        if self.end_chunk is not None:  # already computed for this observation (and its noise drawn)
            chunk, self.end_chunk = self.end_chunk, None
            return {"ok": True, "actions": chunk}
        return {"ok": True, "actions": np.asarray(self.adapter.act(), dtype=np.float32)}


# Two or more path separators in one token: a file path (the server's layout is none of a client's business).
_PATH = re.compile(r"\S*[/\\]\S*[/\\]\S*")


def internal_error_text(err: BaseException) -> str:
    """What a client learns of an unexpected exception: its type and first line, paths cut, bounded."""
    first = (str(err).strip().splitlines() or [""])[0]
    shown = _PATH.sub("<path>", first)[:200]
    return f"internal error: {type(err).__name__}: {shown} (the traceback is in the server's log)"


def refusal(err: BaseException) -> dict:
    """The reply to a request refused whole (the connection and the memory stay)."""
    what = "" if isinstance(err, FrameError) else f"{type(err).__name__}: "
    return {"ok": False, "error": f"{what}{_PATH.sub('<path>', str(err))[:500]}"}
