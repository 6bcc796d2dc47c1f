"""`trace-ros bench faults` and `bench load` run end to end (slow: node restarts, encoders)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytest.importorskip("rclpy", reason="needs the ROS 2 wheels (make setup)")


def _run(module: str, *args: str, timeout: float) -> tuple[subprocess.CompletedProcess, dict]:
    from trace_ros.nodes.bringup import child_env

    result = subprocess.run([sys.executable, "-P", "-m", module, *args, "--json"],
                            env=child_env(), capture_output=True, text=True, timeout=timeout,
                            start_new_session=True)
    return result, json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_faults_every_round_survives_and_no_acknowledged_event_is_lost() -> None:
    result, summary = _run("trace_ros.bench.faults", "--rounds", "6", "--rate", "50",
                           timeout=1500)
    assert result.returncode == 0, result.stderr[-3000:]
    assert summary["rounds"] == summary["survived"] == 6
    assert summary["acked_lost"] == 0 and summary["duplicated"] == 0
    assert summary["integrity"] == "ok" and summary["orphan_vectors"] == 0
    # No job lost or applied twice: after every round the graph equals a rebuild.
    assert summary["facts_vs_rebuild"] == "equal", summary["graph_differences"]
    assert summary["graph_checks"] == {"equal": 7} and summary["graph_rows"]["facts"] > 0
    assert set(summary["faults"]) == {"memory_node", "consolidation_node", "query_node",
                                      "consolidation_batch", "forget", "rebuild"}


@pytest.mark.slow
def test_load_drops_nothing_and_reports_latency() -> None:
    result, summary = _run("trace_ros.bench.load", "--seconds", "10", "--rate", "200",
                           "--qps", "5", timeout=900)
    assert result.returncode == 0, result.stderr[-3000:]
    assert summary["dropped"] == 0 and summary["events_acked"] == summary["events_published"]
    assert set(summary["query_ms"]) == {"p50", "p95", "p99"} and summary["queries"] > 0
    assert summary["integrity"] == "ok"
