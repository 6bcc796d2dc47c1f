"""The stage breakdown of memory_node's CPU per event (``tools/capture_stages.py``, issue
16): every stage from the decode to the Ack's bytes is timed, and the total is their sum."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("rclpy", reason="needs the ROS 2 wheels (make setup)")

import capture_stages  # noqa: E402  (tools/ is on the path: pytest.ini)

STAGES = ["decode", "event", "prepare", "enqueue", "commit", "sync", "ack_bytes"]


def test_every_stage_is_timed_and_summed(tmp_path: Path) -> None:
    cpu = capture_stages.stages(events=60, group=8, folder=tmp_path)
    assert list(cpu) == [*STAGES, "total"]
    assert all(cpu[name] > 0 for name in STAGES)
    assert cpu["total"] == pytest.approx(sum(cpu[name] for name in STAGES), abs=0.05)


def test_the_printed_table_names_every_stage(capsys: pytest.CaptureFixture[str]) -> None:
    assert capture_stages.main(["--events", "30", "--group", "4"]) == 0
    printed = capsys.readouterr().out
    assert all(f"{name} " in printed for name in [*STAGES, "total"])
