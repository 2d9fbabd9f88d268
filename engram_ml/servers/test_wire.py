"""pytest tests of the remote-policy framing (wire.py; the TypeScript side is src/policy/remote/wire.ts):
numpy arrays round-trip with openpi's map convention (bin keys, dtype.str, shape, raw bytes), plain msgpack
values pass through, and every frame that could carry something else is refused.
"""

import json
from pathlib import Path
from typing import Any, Dict

import msgpack
import numpy as np
import pytest

from engram_ml.servers.wire import FrameError, msgpack_type, pack, unpack, unpack_request


@pytest.mark.parametrize("dtype", ["<f4", "<f8", "<i8", "<i4", "|u1", "|b1", "<u2"])
def test_numeric_arrays_round_trip_with_dtype_shape_and_bytes(dtype: str) -> None:
    a = (np.arange(24).reshape(2, 3, 4) % 5).astype(dtype)
    b = unpack(pack({"x": a}))["x"]
    assert b.dtype == a.dtype and b.shape == a.shape and b.tobytes() == a.tobytes()


def test_a_non_contiguous_array_is_sent_in_c_order() -> None:
    a = np.arange(12, dtype=np.float32).reshape(3, 4).T
    assert np.array_equal(unpack(pack(a)), a)


def test_arrays_travel_as_openpi_numpy_maps_with_bin_keys() -> None:
    raw = msgpack.unpackb(pack(np.zeros((2, 2), dtype=np.float32)), raw=True)
    assert raw[b"__ndarray__"] is True and raw[b"dtype"] == b"<f4" and raw[b"shape"] == [2, 2]
    assert raw[b"data"] == bytes(16)


def test_numpy_scalars_and_plain_values_round_trip() -> None:
    value = {
        "op": "reset",
        "seed": 2**40,
        "ok": True,
        "text": "press the button",
        "list": [1, 2.5, None],
        "blob": b"\x00\x01",
        "scalar": np.float32(1.5),
    }
    out = unpack(pack(value))
    assert out["scalar"] == np.float32(1.5) and out["scalar"].dtype == np.float32
    assert {k: v for k, v in out.items() if k != "scalar"} == {k: v for k, v in value.items() if k != "scalar"}


@pytest.mark.parametrize("obj", [np.array(["a", "b"]), np.array([object()], dtype=object), {1, 2}])
def test_values_outside_the_protocol_are_not_sent(obj: object) -> None:
    with pytest.raises(FrameError, match="cannot send"):
        pack(obj)


def _numpy_map(dtype: bytes, shape: list, data: bytes) -> bytes:
    return msgpack.packb({b"__ndarray__": True, b"dtype": dtype, b"shape": shape, b"data": data}, use_bin_type=True)


@pytest.mark.parametrize(
    "frame, message",
    [
        (msgpack.packb(msgpack.ExtType(1, b"x")), "msgpack ext type 1 refused"),
        (_numpy_map(b"|O", [1], bytes(8)), "numeric dtypes only"),
        (_numpy_map(b"<U1", [1], bytes(4)), "numeric dtypes only"),
        (_numpy_map(b"<f4", [3], bytes(8)), "wrong byte count"),
        (b"\xc1", "not a msgpack frame"),
        (b"", "not a msgpack frame"),
    ],
)
def test_frames_that_could_carry_anything_else_are_refused(frame: bytes, message: str) -> None:
    with pytest.raises(FrameError, match=message):
        unpack(frame)


def test_a_request_must_be_a_map() -> None:
    assert unpack_request(pack({"op": "act"})) == {"op": "act"}
    with pytest.raises(FrameError, match="request is a msgpack array"):
        unpack_request(pack([1]))


@pytest.mark.parametrize(
    "value, name",
    [
        (np.zeros(1), "numpy array"),
        (True, "bool"),
        (3, "int"),
        (None, "nil"),
        ({}, "map"),
        (b"", "bin"),
        ("", "str"),
        (1.0, "float"),
        ([], "array"),
    ],
)
def test_msgpack_type_names_decoded_values_without_echoing_them(value: object, name: str) -> None:
    assert msgpack_type(value) == name


VECTORS = json.loads((Path(__file__).resolve().parents[2] / "test" / "vectors" / "wire.json").read_text())


def _plain(value: Any) -> Any:
    """A decoded value in the vectors' JSON form (arrays as {"ndarray": ...})."""
    if isinstance(value, np.ndarray):
        return {"ndarray": {"dtype": value.dtype.str, "shape": list(value.shape), "data": value.ravel().tolist()}}
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


@pytest.mark.parametrize("vector", VECTORS["frames"], ids=lambda v: v["name"])
def test_the_shared_wire_vectors_decode_to_their_values(vector: Dict[str, Any]) -> None:
    assert _plain(unpack(bytes.fromhex(vector["hex"]))) == vector["value"]


@pytest.mark.parametrize(
    "vector", [v for v in VECTORS["frames"] if v["encoded_by"] == "python"], ids=lambda v: v["name"]
)
def test_python_still_encodes_its_wire_vectors_byte_for_byte(vector: Dict[str, Any]) -> None:
    assert _plain(unpack(pack(unpack(bytes.fromhex(vector["hex"]))))) == vector["value"]
    assert pack(unpack(bytes.fromhex(vector["hex"]))).hex() == vector["hex"]


@pytest.mark.parametrize("vector", VECTORS["refused"], ids=lambda v: v["name"])
def test_the_shared_refused_frames_are_refused(vector: Dict[str, Any]) -> None:
    with pytest.raises(FrameError):
        unpack(bytes.fromhex(vector["hex"]))
