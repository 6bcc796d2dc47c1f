"""The ledger contract's sources, tombstones and jobs, run on every engine.

The same behaviour is asked of SQLite (the embedded default) and PostgreSQL (a fleet's
ledger): idempotent capture, tombstones, claims in source order within a subject with
leases and fences, retries and deferral. What only PostgreSQL adds — several workers
claiming different subjects at once — is tested at the end.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from trace_ros.capture import Event, ingest, prepare
from trace_ros.config import CaptureConfig
from trace_ros.ledger import Scope

CFG = CaptureConfig()


def _say(ledger: Any, subject: str, text: str, stamp: float, session: str = "s1",
         source_id: str = "") -> Any:
    event = Event("dialogue", Scope(subject, "r1", session), text, "Ann", stamp=stamp,
                  source_id=source_id)
    return ingest(ledger, [event], CFG)[0]


def test_capture_is_idempotent(ledger: Any) -> None:
    first = _say(ledger, "ann", "I live in Boston.", 10.0, source_id="a-1")
    assert first.status == "accepted" and first.sequence > 0
    again = _say(ledger, "ann", "I live in Boston.", 10.0, source_id="a-1")
    assert (again.status, again.sequence) == ("duplicate", first.sequence)
    other = _say(ledger, "ann", "I live in Paris.", 10.0, source_id="a-1")
    assert (other.status, other.field) == ("rejected", "source_id")
    assert ledger.count_sources() == 1 and ledger.job_counts()["pending"] == 1
    assert ledger.get_sources(["a-1"])[0].text == "I live in Boston."


def test_a_batch_with_repeats_stores_each_id_once(ledger: Any) -> None:
    items = [prepare(Event("dialogue", Scope("ann", "r1", "s1"), text, "Ann", stamp=t,
                           source_id=sid), CFG)
             for sid, text, t in (("x", "one", 1.0), ("y", "two", 2.0), ("x", "one", 1.0),
                                  ("y", "changed", 2.0))]
    results = ledger.store_sources(items, now=100.0)
    assert [r.status for r in results] == ["accepted", "accepted", "duplicate", "rejected"]
    assert results[2].sequence == results[0].sequence < results[1].sequence
    got = ledger.get_sources(["y", "x", "missing"])
    assert [s.source_id for s in got] == ["y", "x"] and got[0].known_time == 100.0
    assert ledger.seqs_of(["x", "y"]) == {"x": results[0].sequence, "y": results[1].sequence}


def test_sources_read_back_in_scope_and_time_view(ledger: Any) -> None:
    for i, (session, t) in enumerate((("s1", 10.0), ("s1", 20.0), ("s2", 30.0))):
        _say(ledger, "ann", f"turn {i}", t, session)
    _say(ledger, "bob", "not ann's", 15.0)
    texts = [s.text for s in ledger.sources_in_scope(Scope("ann"))]
    assert texts == ["turn 0", "turn 1", "turn 2"]
    assert [s.text for s in ledger.sources_in_scope(Scope("ann", "", "s2"))] == ["turn 2"]
    assert [s.text for s in ledger.sources_in_scope(Scope("ann"), as_of_valid=20.0,
                                                     newest_first=True)] == ["turn 1", "turn 0"]
    assert ledger.count_sources("ann") == 3 and ledger.count_sources() == 4
    assert ledger.marks()[1] == ledger.last_seq() >= 4


def test_forget_leaves_a_tombstone_that_refuses_a_replay(ledger: Any) -> None:
    kept = _say(ledger, "ann", "keep me", 1.0, source_id="k")
    _say(ledger, "ann", "forget me", 2.0, source_id="f")
    generation = ledger.generation()
    assert ledger.forget(source_ids=["f"]) == ["f"]
    assert ledger.generation() == generation + 1
    assert [s.source_id for s in ledger.sources_in_scope(Scope("ann"))] == ["k"]
    assert ledger.job_counts()["pending"] == 1  # the forgotten source's job went with it
    replay = _say(ledger, "ann", "forget me", 2.0, source_id="f")
    assert replay.status == "rejected" and "forgotten" in replay.reason
    assert ledger.forget(source_ids=["f"], allow_reingest=True) == []
    assert _say(ledger, "ann", "forget me", 2.0, source_id="f").status == "accepted"
    assert sorted(ledger.forget(Scope("ann"))) == ["f", "k"] and kept.sequence > 0
    assert ledger.count_sources("ann") == 0


def test_jobs_are_claimed_in_source_order_within_a_subject(ledger: Any) -> None:
    for i in range(3):
        _say(ledger, "ann", f"ann {i}", float(i))
        _say(ledger, "bob", f"bob {i}", float(i))
    jobs = ledger.claim_jobs("w1", 10, lease_s=60.0, max_attempts=3)
    seqs = [j.source.seq for j in jobs]
    assert seqs == sorted(seqs) and len(jobs) == 6
    assert {j.attempts for j in jobs} == {1}
    # Everything is held: a second worker gets nothing.
    assert ledger.claim_jobs("w2", 10, lease_s=60.0, max_attempts=3) == []
    with ledger.write() as tx:
        held = ledger.held_jobs(tx, "w1", jobs)
        assert ledger.complete_jobs(tx, "w1", held, ["add"] * len(held)) == 6
    assert ledger.job_counts()["done"] == 6 and ledger.job_holders() == []


def test_a_held_head_blocks_the_rest_of_its_subject(ledger: Any) -> None:
    for i in range(3):
        _say(ledger, "ann", f"ann {i}", float(i))
    head = ledger.claim_jobs("w1", 1, lease_s=60.0, max_attempts=3)
    assert [j.source.text for j in head] == ["ann 0"]
    # Its later jobs must not be projected before it, by anyone.
    assert ledger.claim_jobs("w2", 10, lease_s=60.0, max_attempts=3) == []
    with ledger.write() as tx:
        ledger.complete_jobs(tx, "w1", head, ["add"])
    rest = ledger.claim_jobs("w2", 10, lease_s=60.0, max_attempts=3)
    assert [j.source.text for j in rest] == ["ann 1", "ann 2"]


def test_an_expired_lease_is_reclaimed_and_fences_the_old_holder(ledger: Any) -> None:
    _say(ledger, "ann", "hello", 1.0)
    old = ledger.claim_jobs("dead", 5, lease_s=0.05, max_attempts=3)
    time.sleep(0.1)
    new = ledger.claim_jobs("alive", 5, lease_s=60.0, max_attempts=3)
    assert [j.job_id for j in new] == [j.job_id for j in old]
    assert new[0].fence == old[0].fence + 1 and new[0].attempts == 2
    with ledger.write() as tx:
        assert ledger.held_jobs(tx, "dead", old) == []
        assert ledger.complete_jobs(tx, "dead", old, ["add"]) == 0
        assert ledger.complete_jobs(tx, "alive", new, ["noop"]) == 1
    assert ledger.job_counts()["done"] == 1


def test_expire_leases_frees_a_dead_workers_jobs_at_once(ledger: Any) -> None:
    _say(ledger, "ann", "hello", 1.0)
    ledger.claim_jobs("dead", 5, lease_s=600.0, max_attempts=3)
    assert ledger.job_holders() == ["dead"]
    assert ledger.expire_leases("dead") == 1
    assert len(ledger.claim_jobs("alive", 5, lease_s=60.0, max_attempts=3)) == 1


def test_failures_back_off_then_fail_and_deferral_costs_no_attempt(ledger: Any) -> None:
    _say(ledger, "ann", "hello", 1.0)
    jobs = ledger.claim_jobs("w", 5, lease_s=60.0, max_attempts=2)
    assert ledger.fail_jobs(jobs, "w", "boom", max_attempts=2, backoff_s=0.05) == 1
    assert ledger.job_counts()["pending"] == 1
    assert ledger.claim_jobs("w", 5, lease_s=60.0, max_attempts=2) == []  # backing off
    time.sleep(0.1)
    jobs = ledger.claim_jobs("w", 5, lease_s=60.0, max_attempts=2)
    assert jobs[0].attempts == 2
    assert ledger.defer_jobs(jobs, "w", "GPU busy", delay_s=0.0) == 1
    counts = ledger.job_counts()
    assert counts["deferred"] == 1 and counts["failed"] == 0
    jobs = ledger.claim_jobs("w", 5, lease_s=60.0, max_attempts=2)
    assert jobs[0].attempts == 2  # the deferral gave the attempt back
    ledger.fail_jobs(jobs, "w", "boom again", max_attempts=2)
    assert ledger.job_counts()["failed"] == 1
    errors = ledger.job_errors()
    assert errors[0]["last_error"] == "boom again" and errors[0]["note"] == "GPU busy"


def test_concurrent_workers_keep_each_subjects_order(ledger: Any) -> None:
    """Four workers claim and complete at once: no job is taken twice, and each subject's
    jobs are claimed strictly in source order."""
    subjects = ("ann", "bob", "cyd")
    for i in range(12):
        for s in subjects:
            _say(ledger, s, f"{s} {i}", float(i))
    claimed: list[tuple[str, int]] = []
    lock = threading.Lock()
    errors: list[BaseException] = []

    def work(name: str) -> None:
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                jobs = ledger.claim_jobs(name, 2, lease_s=60.0, max_attempts=3)
                if not jobs:
                    if ledger.job_counts()["done"] == 36:
                        return
                    time.sleep(0.005)
                    continue
                with lock:
                    claimed.extend((j.source.subject_id, j.source.seq) for j in jobs)
                with ledger.write() as tx:
                    ledger.complete_jobs(tx, name, jobs, ["add"] * len(jobs))
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(f"w{i}",)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(90)
    assert not errors and ledger.job_counts()["done"] == 36
    assert len(claimed) == len(set(claimed)) == 36
    for s in subjects:
        seqs = [q for subject, q in claimed if subject == s]
        assert seqs == sorted(seqs), s


def test_postgresql_workers_take_different_subjects_at_once(
        open_engine: Callable[[str], Any]) -> None:
    """While one worker holds ann's head job, another worker takes bob's jobs at once
    (SQLite claims in global source order, so there it would wait)."""
    ledger = open_engine("postgresql")
    _say(ledger, "ann", "ann 0", 0.0)
    _say(ledger, "ann", "ann 1", 1.0)
    _say(ledger, "bob", "bob 0", 2.0)
    first = ledger.claim_jobs("w1", 1, lease_s=60.0, max_attempts=3)
    assert [j.source.text for j in first] == ["ann 0"]
    second = ledger.claim_jobs("w2", 5, lease_s=60.0, max_attempts=3)
    assert [j.source.text for j in second] == ["bob 0"]


def test_postgresql_claims_skip_a_subject_being_claimed(
        open_engine: Callable[[str], Any]) -> None:
    """A subject whose queue row another transaction holds is skipped, not waited for."""
    ledger = open_engine("postgresql")
    _say(ledger, "ann", "ann 0", 0.0)
    _say(ledger, "bob", "bob 0", 1.0)
    with ledger.write() as tx:  # another worker in the middle of claiming ann
        tx.execute("SELECT subject_id FROM subject_queues WHERE subject_id = 'ann' FOR UPDATE")
        started = time.monotonic()
        got = ledger.claim_jobs("w2", 5, lease_s=60.0, max_attempts=3)
        assert time.monotonic() - started < 5.0
        assert [j.source.text for j in got] == ["bob 0"]


@pytest.mark.parametrize("engine", ["postgresql"])
def test_schema_version_is_recorded(ledger: Any) -> None:
    rows = ledger.query("SELECT version, name FROM schema_version ORDER BY version")
    from trace_ros.storage.postgresql.migrations import MIGRATIONS

    assert rows == [(m.version, m.name) for m in MIGRATIONS]


def test_reads_inside_read_see_one_generation(ledger: Any, engine: str) -> None:
    """Another process (here: a second handle on the same ledger) commits a forget while
    this one reads inside ``read()``: every read in the block still sees the state it
    started with, and the next read after it sees the change."""
    _say(ledger, "ann", "one", 1.0, source_id="o")
    _say(ledger, "ann", "two", 2.0, source_id="t")
    if engine == "sqlite":
        from trace_ros.config import LedgerConfig
        from trace_ros.ledger import Ledger

        # forget's WAL checkpoint waits for this reader up to the busy timeout: keep it short.
        other: Any = Ledger(ledger.path, LedgerConfig(busy_timeout_ms=200))
    else:
        from trace_ros.storage.postgresql import PgLedger

        other = PgLedger(ledger.url)
    try:
        with ledger.read() as snapshot:
            before = (ledger.generation(), ledger.count_sources())
            assert other.forget(source_ids=["o"]) == ["o"]
            assert (ledger.generation(), ledger.count_sources()) == before
            assert ledger.generation_of(snapshot) == before[0]
            assert [s.source_id for s in ledger.sources_in_scope(Scope("ann"))] == ["o", "t"]
        assert (ledger.generation(), ledger.count_sources()) == (before[0] + 1, 1)
    finally:
        other.close()
