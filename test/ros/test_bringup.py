"""bringup: starts the nodes, forwards Ctrl-C, restarts a node that dies (with backoff, and
says so), and gives up on one that keeps dying."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("rclpy", reason="needs the ROS 2 wheels (make setup)")

from rcl_interfaces.srv import GetParameters  # noqa: E402

from trace_ros.config import read_params_file  # noqa: E402
from trace_ros.nodes import bringup  # noqa: E402

TIMEOUT_S = 30.0


def _bringup(*args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-P", "-m", "trace_ros.nodes.bringup", *args],
                            env=bringup.child_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)


def test_sigint_is_forwarded_and_everything_stops(tmp_path: Path, make_client: Any) -> None:
    proc = _bringup("--nodes", "memory_node", "--db", str(tmp_path / "m.db"),
                    "-p", "capture.max_batch:=100", "--log-level", "warn")
    try:
        client = make_client()
        assert client.wait_ready(TIMEOUT_S, capture=True, forget=True)
        # The override beats the value in the file's memory_node section (512).
        get = client.node.create_client(GetParameters, "/memory_node/get_parameters")
        reply = client._call(get, GetParameters.Request(
            names=["capture.max_batch", "ledger.db_path"]), TIMEOUT_S)
        assert reply.values[0].integer_value == 100
        assert reply.values[1].string_value == str(tmp_path / "m.db")
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=TIMEOUT_S)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    assert "started memory_node" in err
    assert (tmp_path / "m.db").is_file()
    # The node is gone too: its forget service disappears from the graph.
    deadline = time.monotonic() + TIMEOUT_S
    while client.forget_client.service_is_ready():
        assert time.monotonic() < deadline, "memory_node still serves after bringup stopped"
        time.sleep(0.2)


def test_a_node_that_keeps_dying_makes_bringup_fail(tmp_path: Path) -> None:
    proc = _bringup("--nodes", "memory_node", "--db", str(tmp_path / "m.db"),
                    "-p", "ledger.synchronous:=SOMETIMES", "--restarts", "1")
    try:
        _out, err = proc.communicate(timeout=TIMEOUT_S)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 1
    assert "memory_node exited unexpectedly (status 1); restarting in 1 s" in err
    assert err.count("memory_node exited unexpectedly") == 2
    assert "ledger.synchronous" in err


def test_a_killed_node_is_restarted_and_serves_again(tmp_path: Path, make_client: Any) -> None:
    import os

    proc = _bringup("--nodes", "memory_node", "--db", str(tmp_path / "m.db"),
                    "--log-level", "warn")
    try:
        client = make_client()
        assert client.wait_ready(TIMEOUT_S, capture=True)
        victim = [int(p) for p in subprocess.check_output(
            ["pgrep", "-P", str(proc.pid)], text=True).split()]  # bringup's child: the node
        assert victim
        for pid in victim:
            os.kill(pid, signal.SIGKILL)
        from trace_ros.nodes.client import make_dialogue

        msg = make_dialogue("alice", "after the restart", speaker="A", source_id="again-1",
                            stamp=1_700_000_000.0)
        deadline = time.monotonic() + 3 * TIMEOUT_S
        while "again-1" not in client.ack_by_id:
            assert time.monotonic() < deadline, "memory_node did not serve again"
            client.publish(msg)
            client.wait_acks(["again-1"], 1.0)
        assert client.ack_by_id["again-1"].status in ("accepted", "duplicate")
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=TIMEOUT_S)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert "memory_node exited unexpectedly (status -9); restarting in 1 s" in err
    assert "restarted memory_node" in err


def test_bad_arguments_are_refused() -> None:
    for args in (["--nodes", "teleport_node"], ["-p", "no_assignment"]):
        with pytest.raises(SystemExit) as exc:
            bringup.parse_args(args)
        assert exc.value.code == 2
    assert bringup.main(["--params", "/nonexistent/memory.yaml"]) == 2


def test_ros_args_and_overrides_reach_every_node(tmp_path: Path) -> None:
    args = bringup.parse_args(["--db", "x.db", "-p", "capture.group_commit_ms:=2.5",
                               "--ros-args", "--log-level", "debug"])
    assert args.ros_args == ["--log-level", "debug"]
    overrides = bringup.overrides_for(args.db, args.param)
    extra = bringup.write_overrides(bringup.NODES, overrides)
    assert extra is not None
    cmd = bringup.node_command("query_node", tmp_path / "p.yaml", extra, ros_args=args.ros_args)
    assert cmd[:4] == [sys.executable, "-P", "-m", "trace_ros.nodes.query_node"]
    assert cmd[-2:] == ["--log-level", "debug"]
    # Overrides go in each node's own section (a -p would lose to the file's node section).
    assert "&id" not in extra.read_text()  # rcl refuses YAML aliases
    params = read_params_file(extra, "query_node")
    assert params["capture.group_commit_ms"] == 2.5
    assert params["ledger.db_path"].endswith("/x.db") and params["ledger.db_path"].startswith("/")
    assert bringup.write_overrides(bringup.NODES, []) is None


def test_nodes_get_the_discovery_profile_unless_one_is_chosen(tmp_path: Path) -> None:
    import xml.etree.ElementTree as ET

    env = bringup.child_env({"PATH": "/usr/bin"})
    profile = Path(env["FASTDDS_DEFAULT_PROFILES_FILE"])
    period = ET.parse(profile).getroot().find(".//{*}leaseAnnouncement")
    assert period is not None and period.findtext("{*}nanosec") == "250000000"
    # The user's own profile file, even an empty setting, is kept; another RMW gets none.
    mine = {"PATH": "/usr/bin", "FASTDDS_DEFAULT_PROFILES_FILE": ""}
    assert bringup.child_env(mine)["FASTDDS_DEFAULT_PROFILES_FILE"] == ""
    assert "FASTDDS_DEFAULT_PROFILES_FILE" not in bringup.child_env(
        {"FASTRTPS_DEFAULT_PROFILES_FILE": str(tmp_path / "x.xml")})
    assert bringup.discovery_env({"RMW_IMPLEMENTATION": "rmw_cyclonedds_cpp"}) == {}
    assert bringup.discovery_env({"RMW_IMPLEMENTATION": "rmw_fastrtps_cpp"}) == {
        "FASTDDS_DEFAULT_PROFILES_FILE": str(profile)}
