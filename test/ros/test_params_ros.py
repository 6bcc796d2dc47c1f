"""Parameters over DDS (rcl_interfaces services, as `ros2 param` uses them) and lifecycle state.

memory_node declares only what it uses, each with its own descriptor; a dynamic parameter
set over the wire takes effect at once; a read-only one is refused with a reason.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("rclpy", reason="needs the ROS 2 wheels (make setup)")

from lifecycle_msgs.msg import State  # noqa: E402
from lifecycle_msgs.srv import GetState  # noqa: E402
from rcl_interfaces.msg import ParameterType  # noqa: E402
from rcl_interfaces.srv import (  # noqa: E402
    DescribeParameters,
    GetParameters,
    ListParameters,
    SetParameters,
)
from rclpy.parameter import Parameter  # noqa: E402

from trace_ros.nodes.client import MemoryClient, make_dialogue  # noqa: E402

TIMEOUT_S = 30.0
NODE = "/memory_node"


@pytest.fixture(scope="module")
def client(module_nodes: Any, ready: Any) -> Iterator[MemoryClient]:
    module_nodes.start(("memory_node",))
    with MemoryClient("test_params") as c:
        ready(c, module_nodes, capture=True)
        yield c


_clients: dict[tuple[int, str], Any] = {}


def call(client: MemoryClient, srv_type: Any, name: str, request: Any) -> Any:
    """One service client per service for the module, as a real caller keeps it: a new
    client per call has to be discovered again by the node each time (one more DDS match
    that can lag on a loaded machine, not what is tested here)."""
    key = (id(client.node), f"{NODE}/{name}")
    if key not in _clients:
        _clients[key] = client.node.create_client(srv_type, key[1])
    return client._call(_clients[key], request, TIMEOUT_S)


def set_param(client: MemoryClient, name: str, value: Any) -> Any:
    msg = Parameter(name, value=value).to_parameter_msg()
    return call(client, SetParameters, "set_parameters",
                SetParameters.Request(parameters=[msg])).results[0]


def test_declares_only_its_own_parameters_each_described(client: MemoryClient) -> None:
    names = call(client, ListParameters, "list_parameters", ListParameters.Request()).result.names
    assert "capture.max_text_bytes" in names and "qos_depth" in names
    assert not [n for n in names if n.startswith(("recall.", "reader.", "embed.",
                                                    "consolidation."))]
    described = call(client, DescribeParameters, "describe_parameters",
                     DescribeParameters.Request(names=list(names))).descriptors
    by_name = {d.name: d for d in described}
    assert set(by_name) == set(names)  # each descriptor names its own parameter
    ours = [n for n in names if n != "use_sim_time" and not n.startswith("qos_overrides")]
    assert all(by_name[n].description for n in ours)
    text = by_name["capture.max_text_bytes"]
    assert text.type == ParameterType.PARAMETER_INTEGER and not text.read_only
    assert text.integer_range[0].from_value == 1
    assert by_name["capture.group_commit_ms"].type == ParameterType.PARAMETER_DOUBLE
    assert by_name["ledger.db_path"].type == ParameterType.PARAMETER_STRING
    assert by_name["ledger.db_path"].read_only and by_name["capture.queue_depth"].read_only
    assert by_name["autostart"].type == ParameterType.PARAMETER_BOOL


def test_lifecycle_state_is_active(client: MemoryClient) -> None:
    state = call(client, GetState, "get_state", GetState.Request()).current_state
    assert (state.id, state.label) == (State.PRIMARY_STATE_ACTIVE, "active")


def test_dynamic_set_takes_effect_read_only_is_refused(client: MemoryClient) -> None:
    result = set_param(client, "capture.max_text_bytes", 20)
    assert result.successful, result.reason
    got = call(client, GetParameters, "get_parameters",
               GetParameters.Request(names=["capture.max_text_bytes"])).values[0]
    assert got.integer_value == 20
    client.publish(make_dialogue("p", "this sentence is longer than twenty bytes",
                                 source_id="long-1", stamp=1_700_000_000.0))
    client.publish(make_dialogue("p", "short", source_id="short-1", stamp=1_700_000_001.0))
    acks = client.wait_acks(["long-1", "short-1"], TIMEOUT_S)
    assert acks["long-1"].status == "rejected" and acks["long-1"].field == "text"
    assert "limit of 20" in acks["long-1"].reason
    assert acks["short-1"].status == "accepted"

    refused = set_param(client, "capture.queue_depth", 5)
    assert not refused.successful and "read-only" in refused.reason
    out_of_range = set_param(client, "capture.max_batch", 0)
    assert not out_of_range.successful and "range" in out_of_range.reason
    wrong_type = set_param(client, "capture.group_commit_ms", "soon")
    assert not wrong_type.successful
    bad_level = set_param(client, "log_level", "loud")
    assert not bad_level.successful and "log_level" in bad_level.reason
    assert set_param(client, "log_level", "debug").successful
    assert set_param(client, "capture.max_text_bytes", 16384).successful


def test_diagnostics_levels_follow_dynamic_thresholds(client: MemoryClient) -> None:
    ok = client.wait_diagnostics("memory_node", lambda v: v["@level"] == "OK", TIMEOUT_S)
    assert ok is not None and ok["dropped_events"] == "0"
    assert ok["sync_errors"] == "0"  # every acknowledged commit was made durable
    assert ok["checkpoint_errors"] == "0"  # the WAL is checkpointed off the writer's path
    assert set_param(client, "warn_queue_ratio", 0.0).successful
    warn = client.wait_diagnostics("memory_node", lambda v: v["@level"] == "WARN", TIMEOUT_S)
    assert warn is not None and "writer queue" in warn["@message"]
    assert set_param(client, "error_queue_ratio", 0.0).successful
    error = client.wait_diagnostics("memory_node", lambda v: v["@level"] == "ERROR", TIMEOUT_S)
    assert error is not None and "full" in error["@message"]
    assert set_param(client, "error_queue_ratio", 0.9).successful
    assert set_param(client, "warn_queue_ratio", 0.5).successful
    assert client.wait_diagnostics("memory_node", lambda v: v["@level"] == "OK", TIMEOUT_S)
