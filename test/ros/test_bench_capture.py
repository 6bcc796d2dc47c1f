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
    if sys.platform.startswith("linux"):  # the node's CPU by thread, from /proc
        threads = summary["node_threads"]
        assert {"executor", "writer", "answers"} <= set(threads)
        assert all(v["cpu_us_per_event"] >= 0 and v["switches_per_event"] >= 0
                   for v in threads.values())


def test_the_bench_sends_the_bytes_of_the_events_it_describes() -> None:
    """The publisher writes each event's number, session and stamp into its shape's
    serialized template: the bytes are the same event's serialisation (cdr.encode's, zero
    padding), which rclpy reads."""
    from rclpy.serialization import deserialize_message

    from trace_ros.bench.capture import SHAPES, Streamer
    from trace_ros.nodes import cdr

    fast, slow = Streamer("run-7"), Streamer("run-7")
    for i in range(2 * SHAPES + 700):  # every shape twice, and a change of session
        source_id, raw, perception = fast.message_bytes()
        msg = slow.message()
        stamp = raw[4:12]  # both stamps are "now": the template's is taken as the message's
        msg.header.stamp.sec, msg.header.stamp.nanosec = (int.from_bytes(stamp[:4], "little"),
                                                          int.from_bytes(stamp[4:], "little"))
        assert (source_id, perception) == (msg.source_id, type(msg).__name__ ==
                                           "PerceptionEvent"), i
        assert raw == cdr.encode(type(msg), msg), i
        assert deserialize_message(raw, type(msg)).source_id == source_id
