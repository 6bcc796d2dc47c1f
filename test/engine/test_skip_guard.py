"""The skip guard (test/conftest.py): an unexpected skip fails a strict run, an expected one does not."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

CONFTEST_DIR = Path(__file__).resolve().parents[1]


def _run(tmp_path: Path, strict: bool) -> subprocess.CompletedProcess:
    (tmp_path / "test_sample.py").write_text(
        "import pytest\n\n\ndef test_runs():\n    pass\n\n\n"
        "def test_skipped():\n    pytest.skip('rclpy missing')\n")
    env = {**os.environ, "PYTHONPATH": str(CONFTEST_DIR)}
    env.pop("TRACE_ROS_STRICT_SKIPS", None)
    if strict:
        env["TRACE_ROS_STRICT_SKIPS"] = "1"
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "conftest",
                           "-p", "no:cacheprovider", "--rootdir", str(tmp_path),
                           "-c", os.devnull, str(tmp_path)],
                          capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path)


@pytest.mark.parametrize("strict", [False, True])
def test_unexpected_skip_fails_only_a_strict_run(tmp_path: Path, strict: bool) -> None:
    result = _run(tmp_path, strict)
    assert "unexpected skips" in result.stdout and "rclpy missing" in result.stdout
    assert result.returncode == (1 if strict else 0), result.stdout[-2000:]


def test_expected_skip_list_is_parsed() -> None:
    sys.path.insert(0, str(CONFTEST_DIR))
    try:
        import conftest as guard  # the run-wide conftest, not a package
    finally:
        sys.path.remove(str(CONFTEST_DIR))
    pairs = guard.load_expected()
    assert guard.is_expected("test/test_launch_file.py",
                             "needs a ROS 2 install with launch_testing and launch_ros "
                             "(not on PyPI); missing: launch_ros", pairs)
    assert not guard.is_expected("test/ros/test_query_ros.py", "needs the ROS 2 wheels", pairs)
