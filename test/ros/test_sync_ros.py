"""memory_node with ``sync.to_url``: what it captures over DDS reaches the target ledger in
the background; a target that cannot be reached is one log line and a ``failing`` sync
state in /diagnostics, the node keeps capturing, and the sync resumes when it is back."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("rclpy", reason="needs the ROS 2 wheels (make setup)")

from trace_ros.ledger import Ledger, Scope  # noqa: E402
from trace_ros.nodes.client import MemoryClient, make_dialogue  # noqa: E402

TIMEOUT_S = 30.0


def _fleet_ids(path: Path) -> list[str]:
    if not path.is_file():
        return []
    with Ledger(path) as fleet:
        return [r.source_id for r in fleet.sources_in_scope(Scope("ann"))]


def _wait(check: Any, timeout: float = TIMEOUT_S) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.1)
    return check()


def test_captured_events_reach_the_target_across_an_outage(nodes: Any, ready: Any,
                                                           tmp_path: Path) -> None:
    mount = tmp_path / "fleet"
    mount.write_text("")  # the target's folder is missing (a file blocks it): an outage
    target = mount / "ledger.db"
    nodes.start(("memory_node",), (f"sync.to_url:=sqlite://{target}", "sync.period_s:=0.2"))
    with MemoryClient("test_sync") as client:
        ready(client, nodes, capture=True)
        client.publish(make_dialogue("ann", "first, while the fleet is away", speaker="ann",
                                     session_id="s1", source_id="ann-1", stamp=1_700_000_000.0))
        assert client.wait_acks(["ann-1"], TIMEOUT_S)["ann-1"].status == "accepted"
        failing = client.wait_diagnostics(
            "memory_node", lambda d: d.get("sync_state") == "failing", TIMEOUT_S)
        assert failing is not None and "cannot create" in failing["sync_last_error"]
        client.publish(make_dialogue("ann", "second, still away", speaker="ann",
                                     session_id="s1", source_id="ann-2", stamp=1_700_000_001.0))
        assert client.wait_acks(["ann-2"], TIMEOUT_S)["ann-2"].status == "accepted"
        assert nodes.alive()
        mount.unlink()  # the target is back
        assert _wait(lambda: _fleet_ids(target) == ["ann-1", "ann-2"])
        assert client.wait_diagnostics(
            "memory_node", lambda d: d.get("sync_state") == "ok" and d["sync_sent"] == "2",
            TIMEOUT_S) is not None
        client.publish(make_dialogue("ann", "third, synced at once", speaker="ann",
                                     session_id="s1", source_id="ann-3", stamp=1_700_000_002.0))
        assert _wait(lambda: _fleet_ids(target) == ["ann-1", "ann-2", "ann-3"])
    assert nodes.alive()
