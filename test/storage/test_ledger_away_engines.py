"""A consolidation batch cut because the ledger went away spends no attempt, on every
engine.

Found by ``trace-ros bench fleet`` (issue 15, docs/fleet-bench.md): every fault round
(a worker killed while it holds a batch, a PostgreSQL restart) cost the jobs in flight
one of their ``max_attempts`` (3), so a job caught by three rounds in a row ended
``failed``: its source was never projected, the live graph lacked its facts and the
subject's later sources were projected without them, while a clean rebuild had them.
A server going away is not the job's fault: the batch goes back (deferred, attempt
returned), also when the ledger is still away at the first try to put it back.

PostgreSQL is cut for real (the batch's own server process is terminated mid-batch);
SQLite's passing condition is a lock held past the busy timeout, raised as SQLite does.
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "engine"))

from graphkit import HashEncoder  # noqa: E402

from trace_ros.bench.faults import statement  # noqa: E402
from trace_ros.capture import Event, ingest  # noqa: E402
from trace_ros.config import CaptureConfig, ConsolidationConfig  # noqa: E402
from trace_ros.consolidation.cpu import CpuExtractor  # noqa: E402
from trace_ros.consolidation.project import GraphProjector  # noqa: E402
from trace_ros.consolidation.worker import Consolidator  # noqa: E402
from trace_ros.ledger import Job, Scope  # noqa: E402
from trace_ros.storage import Tx  # noqa: E402

T0 = 1_790_000_000.0
SUBJECT = "person-0"
CFG = ConsolidationConfig(batch_size=8, max_attempts=3, retry_base_s=0.0, lease_s=60.0)


def _away(engine: str, conn: Tx) -> None:
    """The ledger goes away in the middle of the batch's write transaction."""
    if engine == "postgresql":
        conn.execute("SELECT pg_terminate_backend(pg_backend_pid())")
    raise sqlite3.OperationalError("database is locked")


class _CutProjector:
    """Projects the batch, then the ledger goes away before the commit, ``cuts`` times."""

    def __init__(self, ledger: Any, engine: str, cuts: int) -> None:
        self.inner = GraphProjector(ledger, CpuExtractor(), CFG)
        self.engine, self.cuts = engine, cuts

    def project(self, conn: Tx, jobs: list[Job]) -> list[str]:
        outcomes = self.inner.project(conn, jobs)
        if self.cuts > 0:
            self.cuts -= 1
            _away(self.engine, conn)
        return outcomes


def _capture(ledger: Any, n: int) -> None:
    events = [Event("dialogue", Scope(SUBJECT, "robot_0", "s1"), statement(i), SUBJECT,
                    stamp=T0 + i, source_id=f"{SUBJECT}-{i}") for i in range(n)]
    assert all(r.status == "accepted" for r in ingest(ledger, events, CaptureConfig()))


def test_batches_cut_by_the_ledger_going_away_are_retried_not_failed(
        ledger: Any, engine: str) -> None:
    """The first batch is cut four times (more than ``max_attempts``): each time it goes
    back deferred with its attempt returned; the fifth try projects it, and the graph
    equals a clean rebuild."""
    _capture(ledger, 16)
    worker = Consolidator(ledger, HashEncoder(), CFG, worker_name="w",
                          projector=_CutProjector(ledger, engine, cuts=4))
    reports = []
    for cut in range(4):
        reports.append(worker.run_once())
        assert ledger.job_counts()["failed"] == 0, f"failed for good after cut {cut + 1}"
    for report in reports:
        assert report.claimed == 8 and report.done == 0 and report.error
        assert report.failed == 0 and report.deferred == 8
    assert {e["attempts"] for e in ledger.job_errors()} == {0}
    assert "ledger unavailable" in ledger.job_errors()[0]["note"]
    assert worker.drain() == 16
    assert ledger.job_counts()["done"] == 16
    live = ledger.graph_snapshot(SUBJECT)
    assert len(live["facts"]) >= 12
    ledger.reset_derived()
    Consolidator(ledger, HashEncoder(), CFG, worker_name="rebuild",
                 projector=GraphProjector(ledger, CpuExtractor(), CFG)).drain()
    assert ledger.graph_snapshot(SUBJECT) == live


def test_a_cut_batch_is_put_back_once_the_ledger_answers_again(
        ledger: Any, engine: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The ledger is still away when the worker first tries to put the batch back: the
    run raises, the jobs stay held; the next run puts them back before it claims."""
    _capture(ledger, 8)
    worker = Consolidator(ledger, HashEncoder(), CFG, worker_name="w",
                          projector=_CutProjector(ledger, engine, cuts=1))
    real_defer = ledger.defer_jobs
    calls = []

    def defer_while_away(*args: Any, **kw: Any) -> int:
        calls.append(args)
        if len(calls) == 1:
            raise sqlite3.OperationalError("database is locked") if engine == "sqlite" \
                else _pg_gone()
        return real_defer(*args, **kw)

    monkeypatch.setattr(ledger, "defer_jobs", defer_while_away)
    with pytest.raises(Exception) as raised:
        worker.run_once()
    assert ledger.unavailable(raised.value)
    assert ledger.job_counts()["running"] == 8
    report = worker.run_once()  # puts the batch back, then claims it again
    assert len(calls) == 2 and report.claimed == 8 and report.done == 8
    assert report.fenced == 0 and ledger.job_counts()["done"] == 8
    assert {e["attempts"] for e in ledger.job_errors()} <= {1}


def _pg_gone() -> Exception:
    import psycopg

    return psycopg.OperationalError("connection failed: server closed the connection")


def test_only_a_ledger_going_away_counts_as_unavailable(ledger: Any, engine: str) -> None:
    """A fault of the batch itself (a bad value, a bug) still spends attempts and fails
    the job in the end; only the ledger's going away gives the attempt back."""
    assert not ledger.unavailable(ValueError("bad draft"))
    assert not ledger.unavailable(sqlite3.OperationalError("no such table: facts")) \
        or engine == "postgresql"
    if engine == "postgresql":
        import psycopg.errors

        assert ledger.unavailable(psycopg.errors.AdminShutdown("terminating connection"))
        assert not ledger.unavailable(psycopg.errors.QueryCanceled("statement timeout"))
        assert not ledger.unavailable(psycopg.errors.UniqueViolation("duplicate key"))
    else:
        assert ledger.unavailable(sqlite3.OperationalError("database is locked"))
