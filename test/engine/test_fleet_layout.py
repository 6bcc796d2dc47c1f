"""The fleet launch file's layout and arguments (trace_ros/nodes/fleet.py), without ROS:
a query node in the namespace, N workers below it, no memory node; a missing ledger URL
or a bad worker count is one error naming the argument. The launch file itself runs in
test/test_fleet_launch_file.py where the launch system is installed."""

from __future__ import annotations

from pathlib import Path

import pytest

from trace_ros.errors import ConfigError
from trace_ros.nodes.fleet import (
    QUERY,
    WORKER,
    FleetNode,
    check_ledger_url,
    check_workers,
    fleet_nodes,
)

LAUNCH = Path(__file__).resolve().parents[2] / "launch" / "fleet.launch.py"


def test_a_query_node_and_n_workers_below_it() -> None:
    assert fleet_nodes("site_a", 3) == [
        FleetNode(QUERY, "/site_a"), FleetNode(WORKER, "/site_a/worker_1"),
        FleetNode(WORKER, "/site_a/worker_2"), FleetNode(WORKER, "/site_a/worker_3")]
    assert fleet_nodes("/", 1) == [FleetNode(QUERY, ""), FleetNode(WORKER, "/worker_1")]
    assert "memory_node" not in {n.executable for n in fleet_nodes("x", 64)}


@pytest.mark.parametrize("text", ["0", "65", "two", "", "1.5"])
def test_a_bad_worker_count_names_the_argument(text: str) -> None:
    with pytest.raises(ConfigError, match=r"^workers: must be an integer 1\.\.64"):
        check_workers(text)
    assert check_workers(" 4 ") == 4


def test_the_ledger_url_is_required_and_checked() -> None:
    with pytest.raises(ConfigError, match="^ledger_url: required"):
        check_ledger_url("")
    with pytest.raises(ConfigError, match="^ledger_url: unknown engine"):
        check_ledger_url("mysql://x/y")
    url = "postgresql://trace@db:5432/fleet"
    assert check_ledger_url(url) == url  # passed through as ledger.url


def test_the_launch_file_uses_the_checked_layout() -> None:
    text = LAUNCH.read_text()
    assert "fleet_nodes(" in text and "check_ledger_url(" in text and "memory_node" not in \
        text.split('"""', 2)[2]
