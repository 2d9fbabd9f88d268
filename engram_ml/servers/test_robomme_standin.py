"""The RoboMME stand-in's bookkeeping and checks (the protocol it stands for: docs/remote-policy.md)."""

import numpy as np
import pytest

from engram_ml.servers.robomme_standin import RoboMMEStandIn
from engram_ml.servers.wire import pack, unpack_request


def frames(n: int, views: int = 1) -> dict:
    return {"add_buffer": True, "images": np.zeros((n, views, 4, 4, 3), np.uint8),
            "state": np.zeros((n, 8), np.float32), "exec_start_idx": 3}


def infer() -> dict:
    img = np.zeros((4, 4, 3), np.uint8)
    return {"observation/image": img, "observation/wrist_image": img,
            "observation/state": np.arange(8, dtype=np.float32), "prompt": "watch the video carefully, then ..."}


def test_frames_are_counted_and_a_chunk_holds_the_state():
    s = RoboMMEStandIn()
    assert s.handle(unpack_request(pack({"reset": True})))["reset_finished"] is True
    assert s.handle(unpack_request(pack(frames(3))))["add_buffer_finished"] is True
    assert (s.step_idx, s.exec_start_idx) == (2, 3)
    actions = s.handle(unpack_request(pack(infer())))["actions"]
    assert actions.shape == (20, 8) and actions.dtype == np.float32
    assert actions[19, :7].tolist() == list(range(7)) and actions[0, 7] == -1.0


@pytest.mark.parametrize("bad, match", [
    (None, "history feats is empty"),
    (frames(2, views=2), "expected 1 view"),
])
def test_bad_requests_are_refused(bad, match):
    s = RoboMMEStandIn()
    with pytest.raises(AssertionError, match=match):
        s.handle(bad if bad is not None else infer())
