"""Managed start-up by hand (autostart:=false), as `ros2 lifecycle set` drives it."""

from __future__ import annotations

import time
from typing import Any

import pytest

pytest.importorskip("rclpy", reason="needs the ROS 2 wheels (make setup)")

from lifecycle_msgs.msg import State, Transition  # noqa: E402
from lifecycle_msgs.srv import ChangeState  # noqa: E402

TIMEOUT_S = 30.0


def test_transitions_open_and_close_the_interface(nodes: Any, make_client: Any,
                                                   db: Any) -> None:
    nodes.start(("memory_node",), ("autostart:=false",))
    client = make_client()
    change = client.node.create_client(ChangeState, "/memory_node/change_state")

    def state() -> int:
        # read-only: asked once more if its reply is lost (a CI run lost one)
        return client.get_state("/memory_node", TIMEOUT_S).id

    def go(transition: int) -> bool:
        request = ChangeState.Request()
        request.transition.id = transition
        return client._call(change, request, TIMEOUT_S).success

    assert state() == State.PRIMARY_STATE_UNCONFIGURED
    assert not client.forget_client.wait_for_service(timeout_sec=1.0)
    assert not db.exists()  # configure opens the ledger
    assert go(Transition.TRANSITION_CONFIGURE) and state() == State.PRIMARY_STATE_INACTIVE
    assert db.exists()
    assert go(Transition.TRANSITION_ACTIVATE) and state() == State.PRIMARY_STATE_ACTIVE
    assert client.wait_ready(TIMEOUT_S, capture=True, forget=True)
    assert go(Transition.TRANSITION_DEACTIVATE) and state() == State.PRIMARY_STATE_INACTIVE
    deadline = time.monotonic() + TIMEOUT_S
    while client.forget_client.service_is_ready():
        assert time.monotonic() < deadline, "memory/forget still offered while inactive"
        time.sleep(0.1)
    assert go(Transition.TRANSITION_CLEANUP) and state() == State.PRIMARY_STATE_UNCONFIGURED
    assert go(Transition.TRANSITION_CONFIGURE) and go(Transition.TRANSITION_ACTIVATE)
    assert state() == State.PRIMARY_STATE_ACTIVE
