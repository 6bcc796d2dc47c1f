"""A read-only service call is asked once more when its reply is lost; a write never is.

A service whose first reply never leaves (as rmw drops one it cannot deliver: "failed
to send response (timeout)") stands in for the lost reply that once failed
test_lifecycle_ros on CI.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

pytest.importorskip("rclpy", reason="needs the ROS 2 wheels (make setup)")

import rclpy  # noqa: E402
from lifecycle_msgs.msg import State  # noqa: E402
from lifecycle_msgs.srv import ChangeState, GetState  # noqa: E402

TIMEOUT_S = 8.0


class _Server:
    """get_state and change_state of a node ``name`` that answer every request but
    the first of each service, on their own context and thread; with ``late_s``, the
    first is answered that late and the second is the one never answered."""

    def __init__(self, name: str, late_s: float = 0.0) -> None:
        self.late_s = late_s
        from trace_ros.nodes.common import make_executor, spin_until_shutdown

        self.context = rclpy.Context()
        rclpy.init(context=self.context)
        self.node = rclpy.create_node(name, context=self.context,
                                      start_parameter_services=False)
        self.requests: dict[str, int] = {"get_state": 0, "change_state": 0}
        for srv_type, service in ((GetState, "get_state"), (ChangeState, "change_state")):
            self._dropping_first(self.node.create_service(
                srv_type, f"{name}/{service}", self._answer(service)), service)
        self.executor = make_executor("single", self.context)
        self.executor.add_node(self.node)
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=spin_until_shutdown, args=(self.executor, self.context, self._stop.is_set),
            daemon=True)
        self._thread.start()

    def _answer(self, service: str) -> Callable[[Any, Any], Any]:
        def answer(request: Any, response: Any) -> Any:
            self.requests[service] += 1
            if service == "get_state":
                response.current_state.id = State.PRIMARY_STATE_ACTIVE
            else:
                response.success = True
            return response
        return answer

    def _dropping_first(self, srv: Any, service: str) -> None:
        send = srv.send_response

        def send_all_but_the_first(response: Any, header: Any) -> None:
            if self.late_s and self.requests[service] == 1:
                threading.Timer(self.late_s, send, (response, header)).start()
            elif self.requests[service] > (2 if self.late_s else 1):
                send(response, header)
        srv.send_response = send_all_but_the_first  # the executor sends through it

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5.0)
        self.executor.shutdown(timeout_sec=5.0)
        self.node.destroy_node()
        self.context.try_shutdown()


@pytest.fixture
def server() -> Iterator[_Server]:
    made = _Server("lossy_node")
    try:
        yield made
    finally:
        made.close()


def test_a_lost_get_state_reply_is_asked_again(server: _Server, make_client: Any) -> None:
    client = make_client()
    state = client.get_state("/lossy_node", TIMEOUT_S)
    assert state.id == State.PRIMARY_STATE_ACTIVE
    assert server.requests["get_state"] == 2


def test_a_write_is_never_sent_twice(server: _Server, make_client: Any) -> None:
    client = make_client()
    change = client.node.create_client(ChangeState, "/lossy_node/change_state")
    with pytest.raises(TimeoutError):
        client._call(change, ChangeState.Request(), 3.0)
    assert server.requests["change_state"] == 1


def test_a_late_first_reply_still_counts() -> None:
    from trace_ros.nodes.client import MemoryClient

    server = _Server("late_node", late_s=6.0)
    client = MemoryClient("late_client")
    try:
        get = client.node.create_client(GetState, "/late_node/get_state")
        assert get.wait_for_service(timeout_sec=30.0)
        # asked again at 4 s (half of 8), that one never answered: the first's reply at
        # ~6 s is taken
        reply = client._call(get, GetState.Request(), 8.0, read_only=True)
        assert reply.current_state.id == State.PRIMARY_STATE_ACTIVE
        assert server.requests["get_state"] == 2
    finally:
        client.close()
        server.close()
