"""The three nodes on a PostgreSQL ledger over DDS: memory_node, consolidation_node and
query_node started with ``ledger.url:=postgresql://…`` (what ``ros2 launch trace_ros
memory.launch.py ledger_url:=postgresql://…`` passes them) and ``ledger.db_path`` set too
(the URL wins: that file never appears). Dialogue streamed to the memory node is
acknowledged once it is in PostgreSQL, the consolidation node projects it there, and
/memory/query answers from it, citing its source IDs."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("rclpy", reason="needs the ROS 2 wheels (make setup)")

from trace_ros.nodes.client import MemoryClient, make_dialogue  # noqa: E402
from trace_ros.storage import open_ledger  # noqa: E402

TIMEOUT_S = 60.0
T0 = 1_735_000_000.0
NODES = ("memory_node", "consolidation_node", "query_node")
SAID = [
    ("ada-1", "ada", "I keep my passport in the top drawer of the desk."),
    ("ada-2", "ada", "My favourite colour is green."),
    ("ada-3", "ada", "The dentist appointment is on Friday at ten."),
    ("ada-4", "ada", "Actually the dentist moved my appointment to Monday at nine."),
    ("bo-1", "bo", "I keep my passport in the glovebox of the car."),
]


class Stack:
    """The three nodes as child processes on one ledger URL; stopped at teardown."""

    def __init__(self, url: str, db_path: Path) -> None:
        from trace_ros.nodes import bringup

        self.bringup = bringup
        self.procs = bringup.start(NODES, bringup.default_params_file(),
                                   bringup.overrides_for(str(db_path), [], url), log_level="warn")

    def alive(self) -> bool:
        return all(p.poll() is None for p in self.procs)

    def stop(self) -> list[int | None]:
        self.bringup.stop(self.procs, timeout=15.0)
        return [p.returncode for p in self.procs]


def _wait(check: Any, what: str, timeout: float = TIMEOUT_S) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"{what} within {timeout:.0f} s"
        time.sleep(0.2)


@pytest.fixture(scope="module")
def pg_url(pg_admin_url: Any) -> Any:
    from trace_ros.storage.postgresql.admin import fresh_database

    return fresh_database(pg_admin_url, "ros_nodes")


@pytest.fixture(scope="module")
def unused_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """ledger.db_path, given beside ledger.url: the URL wins, so no file may appear here."""
    return tmp_path_factory.mktemp("sqlite") / "unused.db"


@pytest.fixture(scope="module")
def stack(pg_url: Any, unused_db: Path, ready: Any) -> Iterator[tuple[Stack, MemoryClient, dict]]:
    """The nodes, a client, and the acks of ``SAID`` streamed to the memory node."""
    nodes = Stack(str(pg_url), unused_db)
    try:
        with MemoryClient("test_pg_nodes") as client:
            ready(client, nodes, capture=True, query=True)
            for i, (sid, who, text) in enumerate(SAID):
                client.publish(make_dialogue(who, text, speaker=who, session_id=f"{who}-s1",
                                             robot_id="robot-1", source_id=sid,
                                             stamp=T0 + 3600.0 * i))
            acks = client.wait_acks([s for s, _, _ in SAID], TIMEOUT_S)
            yield nodes, client, acks
        assert nodes.alive(), "a node died during the test"
    finally:
        codes = nodes.stop()
    assert codes == [0, 0, 0], f"exit codes {codes}"


def test_captured_on_postgresql_consolidated_and_answered(stack: Any, pg_url: Any) -> None:
    nodes, client, acks = stack
    assert {s: a.status for s, a in acks.items()} == {s: "accepted" for s, _, _ in SAID}

    with open_ledger(pg_url) as ledger:
        # Acknowledged means committed: every source is in PostgreSQL already.
        stored = {r.source_id: r.subject_id for r in ledger.get_sources([s for s, _, _ in SAID])}
        assert stored == {sid: who for sid, who, _ in SAID}

        def projected() -> bool:
            jobs = ledger.job_counts()
            return not jobs["pending"] and not jobs["running"] and jobs["done"] == len(SAID)

        _wait(projected, "the consolidation node projected every source")
        graph = ledger.graph_counts()
        assert graph["facts"] > 0, graph
        assert ledger.job_counts()["failed"] == 0

        response = client.query("ada", "Where do I keep my passport?", TIMEOUT_S)
        assert response.status == "answered", response.message
        assert "drawer" in response.answer
        assert response.source_ids and response.source_ids[0] == "ada-1"
        cited = {r.source_id: r.subject_id for r in ledger.get_sources(list(response.source_ids))}
        assert cited == dict.fromkeys(response.source_ids, "ada")  # all of them, all Ada's

        later = client.query("ada", "When is my dentist appointment?", TIMEOUT_S)
        assert later.status == "answered", later.message
        assert later.source_ids[0] == "ada-4", (later.answer, list(later.source_ids))
    assert nodes.alive()


def test_the_url_wins_over_db_path_and_subjects_stay_apart(stack: Any, unused_db: Path) -> None:
    _, client, _ = stack
    response = client.query("bo", "Where do I keep my passport?", TIMEOUT_S)
    assert response.status == "answered" and response.source_ids[0] == "bo-1"
    assert "ada-1" not in response.source_ids  # another subject's record is never cited
    assert not list(unused_db.parent.iterdir()), "a node opened the SQLite file of ledger.db_path"
