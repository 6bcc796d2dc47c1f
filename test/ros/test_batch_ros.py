"""memory_node's batch topic: many events in one EventBatch, one AckBatch after the commit."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("rclpy", reason="needs the ROS 2 wheels (make setup)")

from rclpy.serialization import serialize_message  # noqa: E402

from trace_ros.ledger import Ledger  # noqa: E402
from trace_ros.nodes.client import (  # noqa: E402
    MemoryClient,
    make_batch,
    make_dialogue,
    make_perception,
    read_ack_batch,
)

ACK_TIMEOUT_S = 30.0


@pytest.fixture(scope="module")
def client(module_nodes: Any, ready: Any) -> Iterator[MemoryClient]:
    module_nodes.start(("memory_node",))
    with MemoryClient("test_batch") as c:
        ready(c, module_nodes, capture=True, batch=True)
        yield c


def stored(db: Any, ids: list[str]) -> dict[str, tuple[str, str]]:
    with Ledger(db) as ledger:
        return {s.source_id: (s.modality, s.text) for s in ledger.get_sources(ids)}


def test_batch_is_stored_and_answered_in_order(client: MemoryClient, module_db: Any) -> None:
    events = [make_perception("ann", "mug", "a red mug", actor="cam", frame_id="map",
                              xyz=(1.0, 2.0, 0.0), source_id="b1-p0", stamp=1_700_000_001.0),
              make_dialogue("ann", "the keys are by the sink", speaker="ann",
                            source_id="b1-d0", stamp=1_700_000_000.0),
              make_dialogue("ann", "", speaker="ann", source_id="b1-d1"),  # rejected
              make_dialogue("bob", "see you at six", speaker="bob", source_id="b1-d2",
                            stamp=1_700_000_002.0)]
    client.publish_batch(events)
    ids = ["b1-d0", "b1-d1", "b1-d2", "b1-p0"]
    acks = client.wait_acks(ids, ACK_TIMEOUT_S)
    assert {k: a.status for k, a in acks.items()} == {
        "b1-d0": "accepted", "b1-d1": "rejected", "b1-d2": "accepted", "b1-p0": "accepted"}
    assert acks["b1-d1"].field == "text"
    # Acknowledged = durable: the ledger holds the accepted ones.
    assert stored(module_db, ids) == {"b1-d0": ("dialogue", "the keys are by the sink"),
                                      "b1-d2": ("dialogue", "see you at six"),
                                      "b1-p0": ("perception", "a red mug")}
    # The per-event topics keep working beside the batch one.
    client.publish(make_dialogue("ann", "alone", speaker="ann", source_id="b1-single"))
    assert client.wait_acks(["b1-single"], ACK_TIMEOUT_S)["b1-single"].status == "accepted"


def test_one_ack_batch_per_batch_with_its_header(module_nodes: Any, ready: Any) -> None:
    got: list[Any] = []
    arrived = threading.Event()

    def on_batch(raw: bytes) -> None:
        got.append(read_ack_batch(raw))
        arrived.set()

    with MemoryClient("test_batch_raw", keep_acks=False, raw_acks=True,
                      on_ack_batch=on_batch) as c:
        ready(c, module_nodes, capture=True, batch=True)
        batch = make_batch([make_dialogue("cy", f"note {i}", speaker="cy",
                                          source_id=f"b2-{i}", stamp=1_700_000_000.0 + i)
                            for i in range(20)], frame_id="batch-7")
        c.publish_batch(batch)
        assert arrived.wait(ACK_TIMEOUT_S)
    assert len(got) == 1
    assert got[0].header.frame_id == "batch-7"
    assert [a.source_id for a in got[0].acks] == [f"b2-{i}" for i in range(20)]
    assert {a.status for a in got[0].acks} == {"accepted"}
    assert all(a.sequence > 0 for a in got[0].acks)


def test_bad_bytes_in_one_element_reject_only_it(client: MemoryClient, module_db: Any) -> None:
    batch = make_batch([make_dialogue("dee", "fine words", speaker="dee", source_id="b3-0",
                                      stamp=1_700_000_000.0),
                        make_dialogue("dee", "bad XX words", speaker="dee", source_id="b3-1",
                                      stamp=1_700_000_001.0)])
    raw = bytearray(serialize_message(batch))
    at = raw.find(b"bad XX")
    raw[at + 4] = 0  # a NUL inside the second element's text
    client.batch_pub.publish(bytes(raw))
    acks = client.wait_acks(["b3-0", "b3-1"], ACK_TIMEOUT_S)
    assert acks["b3-0"].status == "accepted"
    assert (acks["b3-1"].status, acks["b3-1"].field) == ("rejected", "text")
    assert list(stored(module_db, ["b3-0", "b3-1"])) == ["b3-0"]


def test_unreadable_batch_is_answered(client: MemoryClient) -> None:
    raw = serialize_message(make_batch([make_dialogue("eve", "x", source_id="b4-0")]))
    client.batch_pub.publish(raw[:len(raw) // 2])
    assert client.wait_acks([""], ACK_TIMEOUT_S)[""].field == "message"
