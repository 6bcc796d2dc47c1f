"""The README's run command (`trace-ros demo`) works end to end, so it cannot rot."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("rclpy", reason="needs the ROS 2 wheels (make setup)")

DEMO_TIMEOUT_S = 240


def test_demo_answers_every_question_with_source_ids(tmp_path: Path) -> None:
    from trace_ros.nodes.bringup import child_env

    env = child_env()  # this checkout first on PYTHONPATH; domain/discovery from conftest
    result = subprocess.run(
        [sys.executable, "-P", "-m", "trace_ros.demo", "--db", str(tmp_path / "demo.db")],
        env=env, capture_output=True, text=True, timeout=DEMO_TIMEOUT_S,
        start_new_session=True)
    out = result.stdout
    assert result.returncode == 0, out + result.stderr[-4000:]
    assert env["ROS_DOMAIN_ID"] == os.environ["ROS_DOMAIN_ID"]
    assert out.count("status: answered") == 5
    cited = re.findall(r"^\s+source (demo-[\w-]+): ", out, re.M)
    assert len(cited) >= 5
    assert "All questions answered with existing source IDs." in out
    assert "demo-sam" not in " ".join(cited)  # another person's record is never cited
