"""`trace-ros query` and a real query node: found through its presence record, asked on its
Unix socket (default) or over DDS (--via ros), the same answer both ways as the command's
own, and the record and socket gone when the node stops."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("rclpy", reason="needs the ROS 2 wheels (make setup)")

from trace_ros.cli import main  # noqa: E402
from trace_ros.presence import live_nodes  # noqa: E402
from trace_ros.storage.url import sqlite_url  # noqa: E402

T0 = 1_735_000_000.0
ROWS = [
    ("alice", "s1", "Alice", "I keep my passport in the top drawer of the desk."),
    ("alice", "s1", "Alice", "My favourite colour is green."),
    ("alice", "s2", "Alice", "My favourite colour is now blue."),
    ("alice", "s2", "Alice", "The dentist appointment is on Friday at ten."),
    ("bob", "b1", "Bob", "I keep my bicycle in the garage."),
]
QUESTIONS = [
    ("alice", "Where do I keep my passport?"),
    ("alice", "What is my favourite colour now?"),
    ("alice", "When is the dentist appointment?"),
    ("bob", "Where is my bicycle?"),
]


@pytest.fixture(scope="module")
def served(module_db: Path, module_nodes: Any) -> Iterator[Path]:
    """A consolidated ledger and a query node serving it, once its record is live."""
    events = module_db.with_name("events.jsonl")
    events.write_text("".join(json.dumps({"subject_id": s, "session_id": sess, "speaker": who,
                                          "stamp": T0 + i * 60, "text": text}) + "\n"
                              for i, (s, sess, who, text) in enumerate(ROWS)))
    assert main(["ingest", "--db", str(module_db), "--format", "jsonl", str(events)]) == 0
    module_nodes.start(("query_node",))
    deadline = time.monotonic() + 90.0
    while not live_nodes(sqlite_url(module_db)):
        assert module_nodes.alive(), "query_node exited during start-up"
        assert time.monotonic() < deadline, "query_node did not announce itself"
        time.sleep(0.1)
    yield module_db


def _cli(db: Path, subject: str, question: str, *extra: str) -> tuple[dict[str, Any], float]:
    from trace_ros.nodes.bringup import child_env

    started = time.monotonic()
    done = subprocess.run([sys.executable, "-P", "-m", "trace_ros.cli", "query", "--db", str(db),
                           "--subject", subject, "--json", *extra, question], env=child_env(),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1]), time.monotonic() - started


def test_record_names_the_node_and_its_service(served: Path) -> None:
    import os

    (record,) = live_nodes(sqlite_url(served))
    assert (record.node, record.namespace, record.service) == (
        "/query_node", "/", "/memory/query")
    assert record.domain_id == int(os.environ["ROS_DOMAIN_ID"])
    assert record.ledger == f"sqlite://{served.resolve()}"
    socket_file = Path(record.socket)
    assert socket_file.parent == served.with_name(served.name + ".nodes")
    assert stat.S_ISSOCK(socket_file.stat().st_mode)
    assert stat.S_IMODE(socket_file.stat().st_mode) == 0o600


@pytest.mark.parametrize(("subject", "question"), QUESTIONS)
def test_the_node_and_the_command_give_the_same_answer(served: Path, subject: str,
                                                       question: str) -> None:
    via_node, node_s = _cli(served, subject, question)  # the default: --via auto
    assert via_node["path"] == "node (/memory/query, unix socket)", via_node["path"]
    via_ros, ros_s = _cli(served, subject, question, "--via", "ros")
    assert via_ros["path"] == "ros (/memory/query)", via_ros["path"]
    local, local_s = _cli(served, subject, question, "--via", "local")
    assert local["path"] == "local (--via local)"
    for other in (via_node, via_ros):
        for key in ("status", "answer", "source_ids", "reader"):
            assert other[key] == local[key], (key, other[key], local[key])
        assert [e["source_id"] for e in other["evidence"]] == [
            e["source_id"] for e in local["evidence"]]
    assert via_node["status"] == "answered"
    print(f"{question!r}: via the node's socket {node_s:.2f} s, over ROS {ros_s:.2f} s, "
          f"local {local_s:.2f} s")


def test_an_invalid_question_is_the_same_error_on_the_socket_and_over_ros(served: Path) -> None:
    from trace_ros.nodes.bringup import child_env

    def cli(*extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-P", "-m", "trace_ros.cli", "query", "--db",
                               str(served), "--subject", " ", *extra, "Where is it?"],
                              env=child_env(), capture_output=True, text=True, timeout=120)

    socket_way, ros_way = cli(), cli("--via", "ros")
    assert socket_way.returncode == ros_way.returncode == 2
    assert socket_way.stderr == ros_way.stderr and "subject" in socket_way.stderr


def test_a_stopped_node_leaves_no_record_and_the_command_answers_here(
        served: Path, module_nodes: Any) -> None:
    module_nodes.stop()  # SIGINT: deactivate withdraws the record
    assert live_nodes(sqlite_url(served)) == []
    assert not any(served.with_name(served.name + ".nodes").glob("*.json"))
    assert not any(served.with_name(served.name + ".nodes").glob("*.sock"))
    out, _ = _cli(served, "alice", "Where do I keep my passport?")
    assert out["path"] == "local (no query node serves this ledger)"
    assert out["status"] == "answered" and "drawer" in out["answer"]


def test_an_announced_node_that_is_not_discovered_in_time_is_answered_here(
        tmp_path: Path) -> None:
    """A live record whose service never appears: the command waits --wait, says so, and
    answers in its own process."""
    import os

    from trace_ros.ledger import Ledger
    from trace_ros.presence import Announcer

    db = tmp_path / "m.db"
    Ledger(db).close()
    ghost = Announcer(sqlite_url(db), node="/nobody/query_node", namespace="/nobody",
                      service="/nobody/memory/query",
                      domain_id=int(os.environ["ROS_DOMAIN_ID"]), period_s=60.0)
    ghost.announce()  # this test process is alive: the record is live
    try:
        out, _ = _cli(db, "alice", "Where do I keep my passport?", "--wait", "0.5")
    finally:
        ghost.withdraw()
    assert out["path"] == "local (/nobody/memory/query was not discovered in 0.5 s)"
    assert out["status"] in ("missing", "abstained")
