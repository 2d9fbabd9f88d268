"""The remote-policy framing (docs/remote-policy.md): msgpack with openpi's numpy-array convention
(a map with bytes keys __ndarray__, data, dtype, shape; openpi_client/msgpack_numpy.py).

Decoding refuses every msgpack ext type and only rebuilds numpy arrays of plain numeric dtypes, so
no payload can carry code (there is no pickle anywhere on this wire).
"""

from typing import Any

import msgpack
import numpy as np

NUMERIC_KINDS = ("b", "i", "u", "f")  # bool, int, uint, float


class FrameError(ValueError):
    """A frame the server refuses (not msgpack, an ext type, a bad numpy map, a request not as the protocol says)."""


def _pack_default(obj):
    if isinstance(obj, np.ndarray):
        if obj.dtype.kind not in NUMERIC_KINDS:
            raise FrameError(f"cannot send a numpy array of dtype {obj.dtype}")
        return {
            b"__ndarray__": True,
            b"data": np.ascontiguousarray(obj).tobytes(),
            b"dtype": obj.dtype.str,
            b"shape": list(obj.shape),
        }
    if isinstance(obj, np.generic):
        return {b"__npgeneric__": True, b"data": obj.item(), b"dtype": obj.dtype.str}
    raise FrameError(f"cannot send a {type(obj).__name__}")


def _object_hook(obj):
    if b"__ndarray__" in obj:
        dtype = np.dtype(_str(obj.get(b"dtype")))
        if dtype.kind not in NUMERIC_KINDS or dtype.hasobject:
            raise FrameError(f"numpy array dtype {dtype} refused (numeric dtypes only)")
        shape = tuple(int(d) for d in obj.get(b"shape", ()))
        data = obj.get(b"data")
        if not isinstance(data, bytes) or len(data) != int(np.prod(shape)) * dtype.itemsize:
            raise FrameError(f"numpy array of shape {list(shape)} {dtype.str}: data has the wrong byte count")
        return np.frombuffer(data, dtype=dtype).reshape(shape)
    if b"__npgeneric__" in obj:
        dtype = np.dtype(_str(obj.get(b"dtype")))
        if dtype.kind not in NUMERIC_KINDS:
            raise FrameError(f"numpy scalar dtype {dtype} refused")
        return dtype.type(obj[b"data"])
    return obj


def _str(v):
    return v.decode("ascii") if isinstance(v, bytes) else str(v)


def _ext_hook(code, data):
    raise FrameError(f"msgpack ext type {code} refused (only plain msgpack and numpy maps are accepted)")


def pack(obj: Any) -> bytes:
    """One frame: plain msgpack, numpy arrays and scalars as openpi's maps (FrameError for anything else)."""
    return msgpack.packb(obj, default=_pack_default, use_bin_type=True)


def unpack(data: bytes) -> Any:
    """One frame's value (numpy maps rebuilt as arrays); FrameError for anything not plain msgpack."""
    try:
        return msgpack.unpackb(data, object_hook=_object_hook, ext_hook=_ext_hook, raw=False, strict_map_key=False)
    except FrameError:
        raise
    except Exception as err:  # noqa: BLE001 - any decoder failure is a refused frame
        raise FrameError(f"not a msgpack frame ({len(data)} bytes): {err}") from err


def msgpack_type(value: Any) -> str:
    """The msgpack name of a decoded value (for errors that must not echo the value itself)."""
    if isinstance(value, np.ndarray):
        return "numpy array"
    for kind, name in (
        (bool, "bool"),
        (int, "int"),
        (float, "float"),
        (str, "str"),
        (bytes, "bin"),
        (list, "array"),
        (dict, "map"),
    ):
        if isinstance(value, kind):
            return name
    return "nil" if value is None else type(value).__name__


def unpack_request(data: bytes) -> dict:
    """One request frame: a msgpack map (mem0 ops and openpi observations both are), else FrameError."""
    req = unpack(data)
    if not isinstance(req, dict):
        raise FrameError(
            f"request is a msgpack {msgpack_type(req)}, expected a map (mem0: with an op; openpi: an observation map)"
        )
    return req
