"""A warm node keeps what it loaded out of the collector's sight while active (issue 16),
and nodes composed into one process do not hand each other's objects back."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("rclpy", reason="needs the ROS 2 wheels (make setup)")

import rclpy  # noqa: E402
from rclpy.lifecycle import TransitionCallbackReturn  # noqa: E402

from trace_ros import gcfreeze  # noqa: E402

OK = TransitionCallbackReturn.SUCCESS


@pytest.fixture
def composed(tmp_path: Path) -> Iterator[tuple[Any, Any]]:
    """A memory node and a query node on one context (``up --single-process``), configured."""
    from trace_ros.nodes.memory_node import MemoryNode
    from trace_ros.nodes.query_node import QueryNode

    gc.unfreeze()
    context = rclpy.Context()
    rclpy.init(args=["test_gc_freeze", "--ros-args", "-p",
                     f"ledger.db_path:={tmp_path / 'memory.db'}", "-p", "autostart:=false"],
               context=context)
    nodes = (MemoryNode(context=context), QueryNode(context=context))
    try:
        for node in nodes:
            assert node.trigger_configure() == OK, node.failure
        yield nodes
    finally:
        for node in reversed(nodes):
            node.release()
            node.destroy_node()
        context.try_shutdown()
        gc.unfreeze()


def test_query_node_freezes_on_activate_and_unfreezes_on_deactivate(
        composed: tuple[Any, Any]) -> None:
    _, query = composed
    assert gc.get_freeze_count() == 0
    assert query.trigger_activate() == OK, query.failure
    assert gc.get_freeze_count() > 0
    assert gcfreeze.holders() == {query.gc_holder}
    assert query.trigger_deactivate() == OK
    assert gc.get_freeze_count() == 0


@pytest.mark.parametrize("first_down", [0, 1], ids=["memory first", "query first"])
def test_composed_nodes_stay_frozen_until_the_last_deactivates(
        composed: tuple[Any, Any], first_down: int) -> None:
    for node in composed:
        assert node.trigger_activate() == OK, node.failure
    frozen = gc.get_freeze_count()
    assert frozen > 0
    assert composed[first_down].trigger_deactivate() == OK
    # The other node's objects stay aside (less what the one gone freed by refcount).
    assert gc.get_freeze_count() > frozen // 2
    assert composed[1 - first_down].trigger_deactivate() == OK
    assert gc.get_freeze_count() == 0
    assert not gcfreeze.holders()
