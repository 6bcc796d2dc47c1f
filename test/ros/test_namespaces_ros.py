"""Two robots' memories side by side: one namespace and one ledger each, no crosstalk."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("rclpy", reason="needs the ROS 2 wheels (make setup)")

from trace_ros.ledger import Ledger  # noqa: E402
from trace_ros.nodes.client import MemoryClient, make_dialogue  # noqa: E402

TIMEOUT_S = 60.0


def test_two_namespaces_two_ledgers(make_nodes: Any, make_client: Any, ready: Any) -> None:
    fleet = {ns: make_nodes(ns) for ns in ("robot1", "robot2")}
    clients: dict[str, MemoryClient] = {}
    for ns, nodes in fleet.items():
        nodes.start(("memory_node",), ("capture.max_batch:=64",), namespace=ns)
        clients[ns] = make_client(namespace=ns)
    for ns, nodes in fleet.items():
        ready(clients[ns], nodes, capture=True, forget=True)
        # exactly one memory_node behind each robot's topic
        assert clients[ns].dialogue_pub.get_subscription_count() == 1
    for ns in fleet:
        msg = make_dialogue("owner", f"I am the owner of {ns}", source_id=f"{ns}-1",
                            stamp=1_700_000_000.0)
        clients[ns].publish(msg)
    for ns in fleet:
        acks = clients[ns].wait_acks([f"{ns}-1"], TIMEOUT_S)
        assert acks[f"{ns}-1"].status == "accepted"
    for ns, client in clients.items():
        assert {a.source_id for a in client.acks} == {f"{ns}-1"}
    for ns, nodes in fleet.items():
        with Ledger(nodes.db) as ledger:
            assert [r[0] for r in ledger.query("SELECT source_id FROM sources")] == [f"{ns}-1"]
    # Each robot's forget service reaches only its own ledger.
    reply = clients["robot1"].forget("owner", timeout=TIMEOUT_S)
    assert reply.removed_source_ids == ["robot1-1"]
    with Ledger(fleet["robot2"].db) as ledger:
        assert ledger.count_sources() == 1
