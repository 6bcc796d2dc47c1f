"""The fleet benchmark: the robots' event mix and retries (no ROS), and a small run of the
command over DDS on a PostgreSQL server of its own (slow: about two minutes)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from trace_ros.bench import fleet

REPO = Path(__file__).resolve().parents[2]
KEYS = {"robots", "workers", "events_acked", "acked_lost", "capture_events_per_s",
        "consolidation_sources_per_s", "query_ms", "kills", "graph_equals_rebuild"}


class _Client:
    def __init__(self) -> None:
        self.sent: list[object] = []

    def publish(self, msg: object) -> None:
        self.sent.append(msg)


def _ack(source_id: str, status: str, field: str = "") -> SimpleNamespace:
    return SimpleNamespace(source_id=source_id, status=status, field=field)


def test_each_robot_writes_its_subject_and_the_shared_one() -> None:
    pytest.importorskip("rclpy")
    robot = fleet.Robot(2, "t")
    events = [robot.event() for _ in range(400)]
    subjects = [subject for _, subject in events]
    assert set(subjects) == {"person-2", fleet.SHARED}
    assert subjects.count(fleet.SHARED) == 100  # one event in four
    ids = [msg.source_id for msg, _ in events]
    assert len(set(ids)) == len(ids) and all("robot_2" in i for i in ids)
    assert all(msg.scope.robot_id == "robot_2" for msg, _ in events)
    seen = [msg for msg, subject in events if subject == fleet.SHARED and hasattr(msg, "label")]
    assert seen and all(m.has_pose and m.pose.header.frame_id == "map" for m in seen)
    assert {m.label for m in seen} == set(fleet.LABELS)
    said = [msg for msg, subject in events if subject == fleet.SHARED and hasattr(msg, "text")]
    assert said  # the shared subject is told things too, not only shown


def test_a_robot_sends_again_what_was_refused_for_a_passing_reason() -> None:
    pytest.importorskip("rclpy")
    client = _Client()
    robot = fleet.Robot(0, "t", client=client)
    for _ in range(3):
        assert robot.publish_new()
    first, second, third = (m.source_id for m in client.sent)
    robot.on_ack(_ack(first, "accepted"))
    robot.on_ack(_ack(second, "rejected", "ledger"))  # the server was away: retried
    robot.on_ack(_ack(third, "rejected", "text"))  # refused for good: not retried
    robot.on_ack(_ack("someone-else", "accepted"))  # not this robot's
    assert robot.snapshot() == {first: "person-0"} and robot.waiting() == 1
    assert robot.resend_due() == 0  # not before the retry delay
    robot.pending[second].retry_at = 0.0
    assert robot.resend_due() == 1 and client.sent[-1].source_id == second
    robot.on_ack(_ack(second, "duplicate"))  # stored by the first try after all
    assert set(robot.snapshot()) == {first, second} and robot.waiting() == 0
    assert robot.refused == {"ledger": 1, "text": 1} and robot.resent == 1


def test_a_full_window_holds_new_events_back() -> None:
    pytest.importorskip("rclpy")
    robot = fleet.Robot(1, "t", client=_Client())
    for _ in range(fleet.WINDOW):
        assert robot.publish_new()
    assert not robot.publish_new() and robot.count == fleet.WINDOW


def test_rounds_alternate_and_a_foreign_server_is_never_restarted() -> None:
    assert fleet._round_kinds(4, restart=True) == ["kill", "restart", "kill", "restart"]
    assert fleet._round_kinds(3, restart=False) == ["kill"] * 3
    assert fleet._round_kinds(0, restart=True) == []


@pytest.mark.parametrize("argv, message", [
    (["--ledger-url", "sqlite:x.db"], "needs a postgresql:// ledger"),
    (["--robots", "0"], "--robots"),
    (["--rate", "nan"], "--rate"),
    (["--ledger-url", "ftp://x"], "--ledger-url"),
])
def test_bad_arguments_are_one_line(argv: list[str], message: str,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        fleet.parse_args(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


@pytest.mark.slow
def test_small_fleet_run_loses_no_acked_event(tmp_path: Path) -> None:
    pytest.importorskip("pgserver")
    pytest.importorskip("rclpy")
    env = dict(os.environ, ROS_AUTOMATIC_DISCOVERY_RANGE="LOCALHOST")
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")])
    proc = subprocess.run(
        [sys.executable, "-m", "trace_ros.cli", "bench", "fleet", "--robots", "2",
         "--workers", "2", "--seconds", "8", "--rate", "5", "--rounds", "2", "--json",
         "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=900, env=env, cwd=tmp_path)
    (tmp_path / "stderr.txt").write_text(proc.stderr)  # kept for a look after a failure
    assert proc.stdout.strip(), proc.stderr[-3000:]
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    assert KEYS <= summary.keys()
    assert summary["robots"] == 2 and summary["workers"] == 2
    assert summary["events_acked"] > 0 and summary["acked_lost"] == 0
    assert set(summary["consolidation_sources_per_s"]) == {"1", "2"}
    assert {"p50", "p95"} <= summary["query_ms"].keys()
    assert summary["kills"]["rounds"] == 2
    assert summary["kills"]["survived"] == 2, summary["rounds"]
    assert summary["graph_equals_rebuild"] is True
    assert summary["fleet_question"]["answered_across_robots"] is True
    assert json.loads((tmp_path / "fleet.json").read_text())["acked_lost"] == 0
    assert proc.returncode == 0, proc.stderr[-3000:]


def test_the_command_line_knows_bench_fleet(capsys: pytest.CaptureFixture[str]) -> None:
    from trace_ros import cli

    assert cli.main(["bench", "fleet", "--workers", "0"]) == 2
    err = capsys.readouterr().err
    assert "trace-ros bench fleet: error: argument --workers" in err
    assert len(err.strip().splitlines()) == 1
    assert cli.main(["bench", "fleet", "--help"]) == 0
    assert "--ledger-url" in capsys.readouterr().out
