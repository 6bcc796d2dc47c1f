"""Capture's per-event shortcuts keep what they replace: IDs and content hashes byte for
byte, and a writer that is woken only when it waits (issue 16 point 4)."""

from __future__ import annotations

import hashlib
import json
import threading
import time
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from trace_ros.capture import Event, GroupCommitWriter, _digest, prepare
from trace_ros.config import CaptureConfig
from trace_ros.ledger import Ledger, Scope, StoreResult

SC = Scope("person-1", "robot-é", "s000001")
POSE = {"frame_id": "map", "x": 1.0, "y": -0.0, "z": 2, "qx": 0.0, "qy": 0.0, "qz": 0.5,
        "qw": 1e-7}


def test_ids_and_hashes_are_those_stored_before() -> None:
    """Values made by the encoder of every call (main d17ad7f): a replayed event must
    still be a duplicate of what an older node stored, never a conflict."""
    cfg = CaptureConfig()
    cases = [
        (Event("dialogue", SC, "Ich heiße „Zoë“ — \"quoted\"\n and a tab\t", "person-1",
               stamp=1764876000.123456),
         "src-8ad07262e3e4db7521b07fb2",
         "3afabc86bf415d64afc023a52ef76a907c0dacfb216dd94a0cfa506862035a93"),
        (Event("perception", SC, "seen on pass 7", "bench/detector", "red mug", 0.9, POSE,
               '{"b": [1, 2.5], "a": "ü"}', 1764876001.5),
         "src-29c99a645b6cabfe455bc747",
         "1cb36e2145cd48d8a80295c98237fb360129377a4f91b95b71abbd2503cd4f90"),
        (Event("dialogue", SC, "no stamp", "", payload={"k": None, "z": True}),
         "src-946c1aeb065032eb7a1c3d4f",
         "6f64c0fc3027e610faa035dfc29125ead49b8a384388b439f1f314a3712acffa"),
    ]
    for event, source_id, content_hash in cases:
        item = prepare(event, cfg, 1700000000.25)
        assert (item.source_id, item.content_hash) == (source_id, content_hash)


_scalars = (st.none() | st.booleans() | st.integers() | st.floats()
            | st.text(alphabet=st.characters(blacklist_categories=("Cs",))))
_values = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=4)
                       | st.dictionaries(st.text(max_size=5), inner, max_size=4), max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(st.lists(_values, max_size=12))
def test_digest_is_sha256_of_the_canonical_json(parts: list[Any]) -> None:
    expected = hashlib.sha256(json.dumps(parts, sort_keys=True, ensure_ascii=False)
                              .encode("utf-8")).hexdigest()
    assert _digest(*parts) == expected


class _Notifies:
    """The writer's not-empty condition, counting the notifies of one submitter."""

    def __init__(self, cond: threading.Condition) -> None:
        self.cond, self.notified = cond, 0

    def __enter__(self) -> Any:
        return self.cond.__enter__()

    def __exit__(self, *exc: object) -> None:
        self.cond.__exit__(*exc)

    def wait_for(self, predicate: Any, timeout: float | None = None) -> bool:
        return self.cond.wait_for(predicate, timeout)

    def notify(self) -> None:
        self.notified += 1
        self.cond.notify()

    def notify_all(self) -> None:
        self.cond.notify_all()


def _submit_and_wait(writer: GroupCommitWriter, texts: list[str], stamp: float) -> None:
    done = threading.Event()
    left = [len(texts)]

    def answered(result: StoreResult) -> None:
        assert result.status == "accepted"
        left[0] -= 1
        if not left[0]:
            done.set()

    for i, text in enumerate(texts):
        writer.submit(Event("dialogue", SC, text, "A", stamp=stamp + i), answered)
    assert done.wait(10.0)


def test_a_waiting_writer_is_woken_a_busy_one_is_not(ledger: Ledger) -> None:
    """The writer waits for the first event of a group: that one wakes it. Those that
    come while it lingers or commits find it busy: it reads the queue before it waits
    again, so they are queued without a notify, and each is still answered."""
    cfg = CaptureConfig(group_commit_ms=200.0, group_commit_idle_ms=50.0)
    writer = GroupCommitWriter(ledger, cfg, index_idle_s=0.01)
    notifies = _Notifies(writer._not_empty)
    writer._not_empty = notifies  # type: ignore[assignment]
    try:
        time.sleep(0.2)  # the writer is idle: it waits on the condition
        _submit_and_wait(writer, [f"event {i}" for i in range(5)], 1.0)
        # The first woke it; the other four came while it lingered.
        assert notifies.notified == 1
        time.sleep(0.2)
        _submit_and_wait(writer, ["one more"], 10.0)
        assert notifies.notified == 2
    finally:
        writer.close()
    assert ledger.count_sources() == 6
