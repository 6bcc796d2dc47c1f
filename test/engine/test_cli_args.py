"""Every `trace-ros` command rejects a bad argument with one line naming it, exit 2.

Run as a new user would: the installed command line in a subprocess (a traceback would
show on stderr), and in-process for the many commands whose parsers share ``ArgParser``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from trace_ros.cli import main
from trace_ros.ledger import Ledger


def _env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(ROS_AUTOMATIC_DISCOVERY_RANGE="LOCALHOST",
               ROS_DOMAIN_ID=str(os.getpid() % 100 + 101), **extra)
    return env


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "trace_ros.cli", *args], env=env or _env(),
                          capture_output=True, text=True, timeout=120)


def _one_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    return lines[0]


@pytest.mark.parametrize("option", ["--as-of-valid", "--as-of-known"])
@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "NaN", "yesterday", "-5"])
def test_query_time_views_must_be_finite_epoch_seconds(tmp_path: Path, option: str,
                                                       value: str) -> None:
    db = tmp_path / "m.db"
    Ledger(db).close()
    done = _cli("query", "--via", "local", "--db", str(db), "--subject", "a",
                f"{option}={value}", "hello")
    assert done.returncode == 2
    line = _one_line(done.stderr)
    assert option in line and repr(value) in line and option[2:].replace("-", "_") in line
    assert ("finite" in line or ">= 0" in line or "must be a number" in line), line


@pytest.mark.parametrize("argv, option", [
    (["query", "--subject", "a", "--budget", "-1", "q"], "--budget"),
    (["query", "--subject", "a", "--wait", "inf", "q"], "--wait"),
    (["query", "--subject", "a", "--wait", "nan", "q"], "--wait"),
    (["ingest", "--format", "locomo", "--samples", "0", "x.json"], "--samples"),
    (["ingest", "--format", "jsonl", "--samples", "two", "x.json"], "--samples"),
    (["query", "q"], "--subject"),
    (["bench", "locomo", "--data", "d", "--out", "o", "--samples", "0"], "--samples"),
    (["bench", "locomo", "--data", "d", "--out", "o", "--questions", "nan"], "--questions"),
    (["bench", "capture", "--seconds", "nan"], "--seconds"),
    (["bench", "capture", "--rate", "-inf"], "--rate"),
    (["bench", "capture", "--window", "0"], "--window"),
    (["bench", "load", "--qps", "0"], "--qps"),
    (["bench", "load", "--seconds", "inf"], "--seconds"),
    (["bench", "faults", "--rate", "nan"], "--rate"),
    (["bench", "faults", "--rounds", "0"], "--rounds"),
    (["bench", "scale", "--questions", "-3"], "--questions"),
    (["bench", "updates", "--sessions", "2"], "--sessions"),
    (["bench", "startup", "--runs", "0"], "--runs"),
    (["record", "out.mcap", "--seconds", "-inf"], "--seconds"),
    (["explore", "--db", "x.db", "--port", "70000"], "--port"),
    (["up", "--restarts", "-1"], "--restarts"),
])
def test_bad_arguments_are_one_line(argv: list[str], option: str,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    line = _one_line(capsys.readouterr().err)
    assert option in line and "error" in line


def _unwritable_home(tmp_path: Path) -> Path:
    """A HOME in which nothing can be created. A read-only directory where permissions
    apply; as root (who may write anywhere) a path under a regular file, which no one can
    make a directory of."""
    if os.geteuid() != 0:
        home = tmp_path / "home"
        home.mkdir()
        home.chmod(0o555)
        return home
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    return blocker / "home"


def test_query_with_an_unwritable_home_does_not_die_in_ros_logging(tmp_path: Path) -> None:
    """rclpy.init used to fail with 'failed to initialize logging' (rcl logs under
    ~/.ros/log): now the command logs to a temporary directory and gets as far as
    looking for a query node, and says in one line that none serves the ledger."""
    db = tmp_path / "m.db"
    Ledger(db).close()
    env = _env(HOME=str(_unwritable_home(tmp_path)))
    for name in ("ROS_LOG_DIR", "ROS_HOME"):
        env.pop(name, None)
    done = _cli("query", "--via", "ros", "--wait", "0.5", "--db", str(db), "--subject", "a",
                "hello", env=env)
    assert done.returncode == 2
    line = _one_line(done.stderr)
    assert "logging" not in line and "no query node serves" in line, line


def test_log_dir_falls_back_only_when_unusable(tmp_path: Path) -> None:
    from trace_ros.nodes.logdir import ensure_log_dir, rcl_log_dir

    env = {"HOME": str(tmp_path)}
    assert rcl_log_dir(env) == tmp_path / ".ros" / "log"
    assert ensure_log_dir(env) is None and "ROS_LOG_DIR" not in env
    assert rcl_log_dir({"HOME": "/h", "ROS_HOME": "~/r"}) == Path("/h/r/log")
    assert rcl_log_dir({"HOME": "/h", "ROS_LOG_DIR": "/l", "ROS_HOME": "/r"}) == Path("/l")
    bad = {"HOME": str(_unwritable_home(tmp_path))}
    fallback = ensure_log_dir(bad)
    assert fallback is not None and bad["ROS_LOG_DIR"] == str(fallback)
    assert os.access(fallback, os.W_OK)
    assert ensure_log_dir({}) is not None  # no HOME at all: rcl could not tell either


def test_query_with_an_unwritable_home_answers_locally(tmp_path: Path) -> None:
    """No query node: the command answers in its own process, its encoder cache moved
    out of the unwritable HOME (to a per-user temporary folder)."""
    events = tmp_path / "events.jsonl"
    events.write_text('{"subject_id": "a", "speaker": "A", "stamp": 1000, '
                      '"text": "My keys are in the blue bowl."}\n')
    db = tmp_path / "m.db"
    assert main(["ingest", "--db", str(db), "--format", "jsonl", str(events)]) == 0
    env = _env(HOME=str(_unwritable_home(tmp_path)))
    for name in ("ROS_LOG_DIR", "ROS_HOME"):
        env.pop(name, None)
    done = _cli("query", "--db", str(db), "--subject", "a", "--wait", "0.3", "--json",
                "Where are my keys?", env=env)
    assert done.returncode == 0, done.stderr
    assert '"status": "answered"' in done.stdout and "blue bowl" in done.stdout
