"""`trace-ros bench cli`: its figures, and a short run end to end (slow: builds a ledger,
starts a query node, spawns the command a dozen times)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from trace_ros.bench import cli as bench_cli


def test_percentiles_and_defaults() -> None:
    assert bench_cli.summary([1.0, 2.0, 3.0, 4.0, 10.0]) == {"p50": 3.0, "p95": 8.8}
    args = bench_cli.parse_args([])
    assert (args.sources, args.questions) == (40_000, 20)
    assert args.db.name == "cli-40000.db" and args.db.is_absolute()
    a = {"status": "answered", "answer": "blue", "source_ids": ["s1"], "path": "local"}
    assert bench_cli.same_answer(a, {**a, "path": "ros (/memory/query)"})
    assert not bench_cli.same_answer(a, {**a, "source_ids": ["s2"]})


@pytest.mark.slow
def test_short_run_reports_both_ways(tmp_path: Path) -> None:
    pytest.importorskip("rclpy", reason="needs the ROS 2 wheels (make setup)")
    from trace_ros.nodes.bringup import child_env

    db = tmp_path / "cli.db"
    result = subprocess.run(
        [sys.executable, "-P", "-m", "trace_ros.bench.cli", "--sources", "200",
         "--questions", "3", "--db", str(db), "--json"],
        env=child_env(), capture_output=True, text=True, timeout=600, start_new_session=True)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    for way in ("local", "node"):
        assert set(report[way]) == {"p50", "p95"} and 0 < report[way]["p50"] <= report[way]["p95"]
    assert (report["sources"], report["questions"]) == (200, 3)
    assert report["answers_matched"] == 3
    assert not list(db.with_name(db.name + ".nodes").glob("*.json"))  # the node was stopped
