"""A worker whose lease expired while it still worked must not project a subject's jobs
out of source order, on every engine.

Found by ``trace-ros bench fleet`` (issue 15, docs/fleet-bench.md): after a PostgreSQL
restart a worker's batch can outlive its lease (the pool reconnects, the batch goes on),
and another worker reclaims the jobs from the subject's head. Two holes let the old
holder's work land out of order, and the live graph then differed from a clean rebuild:

- the new claim stops at its limit inside the old holder's run, and the old holder still
  held (and wrote) the rest of that run, before the new holder wrote the earlier jobs;
- on PostgreSQL a claim that read the old holder's expired jobs, then waited on their
  rows while the old holder completed them, took them anyway (READ COMMITTED re-checks
  only the UPDATE's own condition) and projected them a second time, after their
  successors.

The tests drive both interleavings step by step (no timing): the fenced holder writes
nothing of the subject, the waiting claim skips the subject, and the graph equals a
clean rebuild.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parents[1] / "engine"))

from graphkit import HashEncoder  # noqa: E402

from trace_ros.bench.faults import statement  # noqa: E402
from trace_ros.capture import Event, ingest  # noqa: E402
from trace_ros.config import CaptureConfig, ConsolidationConfig  # noqa: E402
from trace_ros.consolidation.cpu import CpuExtractor  # noqa: E402
from trace_ros.consolidation.project import GraphProjector  # noqa: E402
from trace_ros.consolidation.worker import Consolidator  # noqa: E402
from trace_ros.ledger import Job, Scope  # noqa: E402

T0 = 1_790_000_000.0
SUBJECT = "person-0"
WAIT_S = 60.0  # a bound on waiting for the other thread, never an assertion


def _say(ledger: Any, subject: str, n: int, session: str = "s1") -> None:
    event = Event("dialogue", Scope(subject, "robot_0", session), statement(n), subject,
                  stamp=T0 + n, source_id=f"{subject}-{n}")
    assert ingest(ledger, [event], CaptureConfig())[0].status == "accepted"


def _second_handle(ledger: Any, engine: str) -> Any:
    """Another connection to the same ledger, as another worker process has."""
    if engine == "sqlite":
        from trace_ros.ledger import Ledger

        return Ledger(ledger.path)
    from trace_ros.storage.postgresql import PgLedger

    return PgLedger(ledger.url)


def test_a_partial_reclaim_leaves_the_old_holder_nothing_of_that_subject(ledger: Any) -> None:
    """A claims ann's six jobs and bob's two; its lease runs out; B's claim takes ann's
    first three. A may still write bob's jobs, but none of ann's: its ann 3-5 would
    land before B's ann 0-2. They are claimed again, in order, once B is done."""
    for i in range(6):
        _say(ledger, "ann", i)
    for i in range(2):
        _say(ledger, "bob", i)
    old = ledger.claim_jobs("A", 10, lease_s=60.0, max_attempts=3)
    assert [j.source.source_id for j in old] == [*(f"ann-{i}" for i in range(6)),
                                                 "bob-0", "bob-1"]
    assert ledger.expire_leases("A") == 8  # A's lease has run out; A still works
    new = ledger.claim_jobs("B", 3, lease_s=60.0, max_attempts=3)
    assert [j.source.source_id for j in new] == ["ann-0", "ann-1", "ann-2"]
    with ledger.write() as tx:
        held = ledger.held_jobs(tx, "A", old)
        assert [j.source.source_id for j in held] == ["bob-0", "bob-1"]
        assert ledger.complete_jobs(tx, "A", held, ["add"] * len(held)) == 2
    # Until B completes, ann's head is B's: nobody takes ann 3-5.
    assert ledger.claim_jobs("C", 10, lease_s=60.0, max_attempts=3) == []
    with ledger.write() as tx:
        assert ledger.complete_jobs(tx, "B", ledger.held_jobs(tx, "B", new),
                                    ["add"] * 3) == 3
    rest = ledger.claim_jobs("C", 10, lease_s=60.0, max_attempts=3)
    assert [j.source.source_id for j in rest] == ["ann-3", "ann-4", "ann-5"]
    assert all(j.fence == o.fence + 1 for j, o in zip(rest, old[3:6], strict=True))


def test_a_job_on_its_last_attempt_still_holds_its_subject(ledger: Any) -> None:
    """A job claimed for the third time (its first two holders died) is outstanding like
    any other: while it runs, its subject's later jobs wait for it. A claim that left it
    out of the subject's queue took them, out of source order (``bench fleet --rounds
    8``: four worker kills bring jobs to their last attempt)."""
    for i in range(3):
        _say(ledger, "ann", i)
    for holder in ("A1", "A2", "A3"):
        head = ledger.claim_jobs(holder, 1, lease_s=60.0, max_attempts=3)
        assert [j.source.source_id for j in head] == ["ann-0"]
        if holder != "A3":
            ledger.expire_leases(holder)  # it died
    assert head[0].attempts == 3
    assert ledger.claim_jobs("B", 10, lease_s=60.0, max_attempts=3) == []
    with ledger.write() as tx:
        assert ledger.complete_jobs(tx, "A3", ledger.held_jobs(tx, "A3", head), ["add"]) == 1
    rest = ledger.claim_jobs("B", 10, lease_s=60.0, max_attempts=3)
    assert [j.source.source_id for j in rest] == ["ann-1", "ann-2"]


def test_postgresql_a_claim_does_not_take_jobs_being_completed(
        open_engine: Callable[[str], Any]) -> None:
    """A's lease ran out while it writes its batch (its job rows locked). B's claim
    reads A's jobs as due; had it waited for A's commit, it would claim the jobs A just
    completed. It skips the subject instead, without waiting."""
    ledger = open_engine("postgresql")
    other = _second_handle(ledger, "postgresql")
    try:
        for i in range(3):
            _say(ledger, "ann", i)
        old = ledger.claim_jobs("A", 10, lease_s=60.0, max_attempts=3)
        ledger.expire_leases("A")
        got: dict[str, list[Job]] = {}
        with ledger.write() as tx:
            held = ledger.held_jobs(tx, "A", old)
            assert len(held) == 3
            claim = threading.Thread(
                target=lambda: got.setdefault("B", other.claim_jobs("B", 10, 60.0, 3)))
            claim.start()
            deadline = time.monotonic() + WAIT_S
            while claim.is_alive() and time.monotonic() < deadline and not ledger.query(
                    "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() "
                    "AND wait_event_type = 'Lock'"):
                time.sleep(0.01)
            assert ledger.complete_jobs(tx, "A", held, ["add"] * 3) == 3
        claim.join(WAIT_S)
        assert got["B"] == []
        assert ledger.job_counts()["done"] == 3 and ledger.job_holders() == []
    finally:
        other.close()


class _Handoff:
    """A's gate: between A's claim and A's write, A's lease runs out and worker B
    claims (a smaller batch) on its own thread; B's gate holds B's write until A's
    batch is over. So A writes first whatever it still holds."""

    reason = "test"

    def __init__(self, ledger: Any, b: Consolidator) -> None:
        self.ledger, self.b = ledger, b
        self.b_claimed, self.a_done = threading.Event(), threading.Event()
        self.b_jobs: list[str] = []
        self.thread: threading.Thread | None = None

    def before_batch(self, jobs: list[Job]) -> float | None:
        if self.thread is None:
            self.ledger.expire_leases("A")
            self.thread = threading.Thread(target=self.b.run_once)
            self.thread.start()
            assert self.b_claimed.wait(WAIT_S)
        return None

    def notes(self) -> dict[int, str]:
        return {}


class _Hold:
    """B's gate: record what B claimed, then wait until A's batch is over."""

    reason = "test"

    def __init__(self, handoff: _Handoff) -> None:
        self.handoff = handoff

    def before_batch(self, jobs: list[Job]) -> float | None:
        self.handoff.b_jobs = [j.source.source_id for j in jobs]
        self.handoff.b_claimed.set()
        assert self.handoff.a_done.wait(WAIT_S)
        return None

    def notes(self) -> dict[int, str]:
        return {}


def test_a_worker_whose_lease_ran_out_leaves_the_graph_of_a_clean_rebuild(
        ledger: Any, engine: str) -> None:
    """One robot's statements about its person (the mug moves, the home changes, the
    appointment moves); A claims them all, B reclaims the first four. The live graph
    after both workers and a drain equals a clean rebuild in one batch."""
    for n in range(24):
        _say(ledger, SUBJECT, n)
    cfg = ConsolidationConfig(batch_size=24, lease_s=60.0)

    def worker(handle: Any, name: str, batch: int, gate: Any = None) -> Consolidator:
        return Consolidator(handle, HashEncoder(), ConsolidationConfig(
            batch_size=batch, lease_s=60.0), worker_name=name,
            projector=GraphProjector(handle, CpuExtractor(), cfg), gate=gate)

    other = _second_handle(ledger, engine)
    try:
        b = worker(other, "B", 4)
        handoff = _Handoff(ledger, b)
        b.gate = _Hold(handoff)
        a = worker(ledger, "A", 24, handoff)
        report = a.run_once()
        handoff.a_done.set()
        assert handoff.thread is not None
        handoff.thread.join(WAIT_S)
        assert handoff.b_jobs == [f"{SUBJECT}-{n}" for n in range(4)]
        assert report.claimed == 24 and report.fenced == 24 and report.done == 0
        worker(ledger, "C", 24).drain()
    finally:
        other.close()
    assert ledger.job_counts()["done"] == 24
    live = ledger.graph_snapshot(SUBJECT)
    assert live["facts"] and any(e[1] == "updates" for e in live["edges"])
    ledger.reset_derived()
    worker(ledger, "D", 1000).drain()
    assert ledger.graph_snapshot(SUBJECT) == live
