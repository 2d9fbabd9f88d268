"""pytest tests of the reference server's request checks (session.py, wire.py) and token check, with a
recording adapter instead of a model (no torch). The socket-level behaviour (busy, frame size limit,
handshake timeout) is driven from TypeScript: test/policy/remoteServerGuards.test.ts.

  python -m pytest engram_ml/servers/test_policy_server.py
"""

import asyncio

import numpy as np
import pytest

from engram_ml.servers.policy_server import _token_check
from engram_ml.servers.session import Session, internal_error_text, refusal
from engram_ml.servers.wire import FrameError, pack, unpack_request


class RecordingAdapter:
    """Stands for a model adapter: records every call, holds still."""

    def __init__(self):
        self.calls = []

    def metadata(self):
        return {"name": "fake", "cameras": ["head"], "image": {"width": 4, "height": 2}, "state_dim": 3}

    def reset(self, seed, episode, complexity):
        self.calls.append(("reset", seed, episode, complexity))

    def set_instruction(self, text):
        self.calls.append(("set_instruction", text))

    def observe(self, images, state):
        self.calls.append(("observe",))
        return -5.0, False

    def observe_demonstration(self, images, state):
        self.calls.append(("demonstration", float(state[0])))

    def act(self):
        return np.zeros((2, 3), dtype=np.float32)


def session():
    return Session(RecordingAdapter())


@pytest.mark.parametrize(
    "value, name",
    [
        (5, "int"),
        ([1, 2], "array"),
        ("observe", "str"),
        (None, "nil"),
        (b"\x01", "bin"),
        (1.5, "float"),
        (True, "bool"),
    ],
)
def test_a_request_that_is_not_a_map_is_refused_naming_its_type(value, name):
    with pytest.raises(FrameError, match=f"^request is a msgpack {name}, expected a map"):
        unpack_request(pack(value))


def test_bytes_text_is_refused_not_read_as_a_str():
    s = session()
    with pytest.raises(FrameError, match="^set_instruction: field 'text' is a msgpack bin, expected str$"):
        s.handle({"op": "set_instruction", "text": b"press the button"})
    assert s.adapter.calls == []
    assert s.handle({"op": "set_instruction", "text": "press the button"}) == {"ok": True}
    assert s.adapter.calls == [("set_instruction", "press the button")]


@pytest.mark.parametrize(
    "req, message",
    [
        ({"op": "explode"}, "^unknown op 'explode'"),
        ({"op": 7}, "^unknown op of msgpack type int"),
        ({"op": "reset"}, "^reset: field 'seed' is missing$"),
        ({"op": "reset", "seed": "5"}, "^reset: field 'seed' is a msgpack str, expected int$"),
        ({"op": "reset", "seed": True}, "^reset: field 'seed' is a msgpack bool, expected int$"),
        (
            {"op": "reset", "seed": 1, "complexity": b"M(1)"},
            "^reset: field 'complexity' is a msgpack bin, expected str$",
        ),
        ({"op": "reset", "seed": 1, "complexity": "M(2)"}, r"^reset: complexity 'M\(2\)', expected one of"),
        ({"op": "observe", "images": []}, "^observe: field 'images' is a msgpack array, expected map$"),
    ],
)
def test_a_mistyped_request_is_refused_before_the_adapter_sees_it(req, message):
    s = session()
    with pytest.raises(FrameError, match=message):
        s.handle(req)
    assert s.adapter.calls == []


def test_an_integer_seed_sent_as_float64_is_accepted():
    s = session()
    assert s.handle({"op": "reset", "seed": float(2**40), "episode": 3}) == {"ok": True}
    assert s.adapter.calls == [("reset", 2**40, 3, "M(n)")]


def test_a_map_without_op_needs_an_adapter_with_infer():
    with pytest.raises(FrameError, match="no op, and this server's adapter has no openpi infer"):
        session().handle({"prompt": "press the button"})


def test_what_a_client_learns_of_an_exception_has_no_paths_and_is_bounded():
    err = FileNotFoundError(2, "No such file or directory", "/srv/models/secret/model.pt")
    text = internal_error_text(err)
    assert text.startswith("internal error: FileNotFoundError: ")
    assert "/srv" not in text and "<path>" in text
    assert "secret" not in refusal(ValueError("bad file /home/lab/ckpt/x.pt"))["error"]
    assert len(refusal(ValueError("x" * 10_000))["error"]) <= 520
    assert refusal(FrameError("request is a msgpack int, expected a map")) == {
        "ok": False,
        "error": "request is a msgpack int, expected a map",
    }


@pytest.mark.parametrize(
    "header, refused",
    [
        ("Api-Key s3cret", False),
        ("Api-Key s3creT", True),
        ("Api-Key s3cret ", True),
        (None, True),
        ("Api-Key é", True),
    ],
)
def test_the_token_check_accepts_only_the_exact_header(header, refused):
    check = _token_check("s3cret")
    headers = {} if header is None else {"Authorization": header}
    result = asyncio.run(check("/", headers))
    assert (result is not None) == refused
    if refused:
        assert result[0] == 401


def _demo(index, count, state0=0.0):
    image = np.zeros((3, 2, 4), dtype=np.float32)
    return {"op": "demonstration", "index": index, "count": count, "images": {"head": image},
            "state": np.array([state0, 0, 0], dtype=np.float32)}


def test_demonstration_frames_reach_the_adapters_memory_in_order():
    s = session()
    for i in range(3):
        assert s.handle(_demo(i, 3, state0=float(i))) == {"ok": True}
    assert s.adapter.calls == [("demonstration", 0.0), ("demonstration", 1.0), ("demonstration", 2.0)]


def test_a_bad_demonstration_frame_is_refused_whole():
    s = session()
    with pytest.raises(FrameError, match=r"^demonstration: index 3 outside 0\.\.2 \(count 3\)$"):
        s.handle(_demo(3, 3))
    bad = _demo(0, 1)
    bad["images"] = {}
    with pytest.raises(ValueError, match="^demonstration: no image for camera 'head'"):
        s.handle(bad)
    assert s.adapter.calls == []


def test_an_adapter_without_demonstrations_refuses_them_by_name():
    methods = {k: getattr(RecordingAdapter, k) for k in ("metadata", "reset", "observe", "act")}
    s = Session(type("NoDemo", (), methods)())
    with pytest.raises(FrameError, match="^demonstration: this server's adapter has no observe_demonstration"):
        s.handle(_demo(0, 1))
