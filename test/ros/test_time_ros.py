"""Time from the node's clock: under use_sim_time a zero stamp is stored at the /clock time.

A person saying "yes" twice (zero stamps, as `ros2 topic pub` sends) is stored twice; a
replayed message with a real stamp is acknowledged as a duplicate.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

pytest.importorskip("rclpy", reason="needs the ROS 2 wheels (make setup)")

from builtin_interfaces.msg import Time  # noqa: E402
from rosgraph_msgs.msg import Clock  # noqa: E402

from trace_ros.ledger import Ledger  # noqa: E402
from trace_ros.nodes.client import make_dialogue  # noqa: E402

TIMEOUT_S = 30.0
SIM_T0 = 1_000


def test_sim_time_and_repeated_zero_stamps(nodes: Any, db: Any, make_client: Any,
                                           ready: Any) -> None:
    nodes.start(("memory_node",), ("use_sim_time:=true",))
    client = make_client()
    ready(client, nodes, capture=True)
    clock = client.node.create_publisher(Clock, "/clock", 10)
    assert client.wait_for(lambda: clock.get_subscription_count() > 0, TIMEOUT_S)

    def tick(sec: int) -> None:
        """Publish /clock until the node has surely seen it (latest value wins)."""
        for _ in range(5):
            clock.publish(Clock(clock=Time(sec=sec)))
            time.sleep(0.05)

    acks = []
    for n, sec in enumerate((SIM_T0, SIM_T0 + 5)):
        tick(sec)
        before = len(client.acks)
        client.publish(make_dialogue("alice", "yes", speaker="alice"))
        assert client.wait_for(lambda b=before: len(client.acks) > b, TIMEOUT_S), f"ack {n}"
        acks.append(client.acks[-1])
    assert [a.status for a in acks] == ["accepted", "accepted"]
    assert acks[0].source_id != acks[1].source_id

    replay = make_dialogue("alice", "the keys are in the bowl", speaker="alice",
                           stamp=SIM_T0 - 100.0)
    for _ in range(2):
        before = len(client.acks)
        client.publish(replay)
        assert client.wait_for(lambda b=before: len(client.acks) > b, TIMEOUT_S)
    assert [a.status for a in client.acks[-2:]] == ["accepted", "duplicate"]

    with Ledger(db) as ledger:
        rows = ledger.query("SELECT text, source_time, time_from_receipt, known_time "
                            "FROM sources ORDER BY seq")
    assert [(r[0], r[1], r[2]) for r in rows] == [
        ("yes", SIM_T0, 1), ("yes", SIM_T0 + 5, 1),
        ("the keys are in the bowl", SIM_T0 - 100.0, 0)]
    # Known time is the node's (simulated) clock too, not the wall clock.
    assert all(SIM_T0 <= r[3] < SIM_T0 + 60 for r in rows)
