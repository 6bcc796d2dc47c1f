"""`trace-ros bench capture` runs briefly and ends with its JSON summary (so it cannot rot)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytest.importorskip("rclpy", reason="needs the ROS 2 wheels (make setup)")


def test_short_capture_benchmark_reports_and_verifies_the_ledger() -> None:
    from trace_ros.nodes.bringup import child_env

    result = subprocess.run(
        [sys.executable, "-P", "-m", "trace_ros.bench.capture", "--seconds", "2",
         "--window", "16", "--json"],
        env=child_env(), capture_output=True, text=True, timeout=120, start_new_session=True)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    assert summary["ok"] is True and summary["integrity"] == "ok"
    assert summary["events_per_s"] > 0 and summary["window"] == 16
    assert set(summary["ack_latency_ms"]) >= {"p50", "p95", "p99"}
    assert summary["missing"] == 0 and summary["stored"] == summary["expected"]
    assert "durable events/s" in result.stdout
