"""The ledger contract's sources, tombstones and jobs, run on every engine.

The same behaviour is asked of SQLite (the embedded default) and PostgreSQL (a fleet's
ledger): idempotent capture, tombstones, claims in source order within a subject with
leases and fences, retries and deferral, whole runs subject by subject so that several
workers claiming at once take different subjects. What only PostgreSQL adds — a subject
another transaction is claiming is skipped, not waited for — is tested at the end.
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
    # On PostgreSQL a number settles once every transaction that began before its row is
    # over, server-wide (``settled.py``): another database's transaction on the run's
    # shared server (an autovacuum ANALYZE takes an ID) can hold it back for a moment.
    deadline = time.monotonic() + 30.0
    while ledger.last_seq() < 4 and time.monotonic() < deadline:
        time.sleep(0.05)
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


def test_a_tombstone_names_its_subject(ledger: Any) -> None:
    _say(ledger, "ann", "forget me", 2.0, source_id="f")
    _say(ledger, "bob", "bob's", 3.0, source_id="b")
    assert _say(ledger, "bob", "other", 4.0, source_id="f").status == "rejected"  # ann's ID
    assert ledger.forget(source_ids=["f"], now=50.0) == ["f"]
    [stone] = ledger.tombstones_recorded_after(0, 10)
    assert stone[:3] == ("f", 50.0, "ann")
    assert _say(ledger, "ann", "forget me", 2.0, source_id="f").status == "rejected"
    # Refused in its own subject only; a tombstone of unknown subject ('') in every one.
    assert ledger.add_tombstones([("g", 60.0, ""), ("b", 61.0, "bob"), ("h", 62.0, "cy")]) == 2
    assert _say(ledger, "dan", "g?", 5.0, source_id="g").status == "rejected"
    assert _say(ledger, "dan", "h?", 5.0, source_id="h").status == "accepted"
    assert [(t.source_id, t.subject_id)
            for t in ledger.tombstones_recorded_after(stone.seq, 10)] == [("g", ""), ("h", "cy")]
    # Lifting in a scope reaches that subject's tombstones and those of unknown subject.
    assert ledger.forget(Scope("cy"), source_ids=["g", "h"], allow_reingest=True) == []
    assert [t.source_id for t in ledger.tombstones_recorded_after(0, 10)] == ["f"]


def test_jobs_are_claimed_in_source_order_within_a_subject(ledger: Any) -> None:
    for i in range(3):
        _say(ledger, "ann", f"ann {i}", float(i))
        _say(ledger, "bob", f"bob {i}", float(i))
    # Whole runs, subject by subject (oldest head first), not the head of every subject:
    # a second worker then finds the other subject free.
    jobs = ledger.claim_jobs("w1", 3, lease_s=60.0, max_attempts=3)
    assert [j.source.text for j in jobs] == ["ann 0", "ann 1", "ann 2"]
    assert {j.attempts for j in jobs} == {1}
    other = ledger.claim_jobs("w2", 10, lease_s=60.0, max_attempts=3)
    assert [j.source.text for j in other] == ["bob 0", "bob 1", "bob 2"]
    # Every subject's head is held: a third worker gets nothing.
    assert ledger.claim_jobs("w3", 10, lease_s=60.0, max_attempts=3) == []
    with ledger.write() as tx:
        for name, batch in (("w1", jobs), ("w2", other)):
            held = ledger.held_jobs(tx, name, batch)
            assert ledger.complete_jobs(tx, name, held, ["add"] * len(held)) == 3
    assert ledger.job_counts()["done"] == 6 and ledger.job_holders() == []


def test_jobs_not_done_count_every_status_but_done(ledger: Any) -> None:
    """The nodes' once-a-second diagnostics read ``jobs_not_done``: the same counts as
    ``job_counts`` for every status but done, which it leaves out rather than scans."""
    for i in range(4):
        _say(ledger, "ann", f"ann {i}", float(i))
    jobs = ledger.claim_jobs("w", 2, lease_s=60.0, max_attempts=3)
    with ledger.write() as tx:
        assert ledger.complete_jobs(tx, "w", jobs[:1], ["add"]) == 1
    assert ledger.fail_jobs(jobs[1:], "w", "boom", max_attempts=1) == 1
    ledger.defer_jobs(ledger.claim_jobs("w", 1, lease_s=60.0, max_attempts=3), "w", "gpu", 60.0)
    counts = ledger.job_counts()
    assert counts == {"pending": 1, "running": 0, "done": 1, "failed": 1, "deferred": 1}
    assert ledger.jobs_not_done() == {k: v for k, v in counts.items() if k != "done"}


def test_a_claim_with_room_takes_the_next_subjects_run_unless_bounded(ledger: Any) -> None:
    for i in range(2):
        for s in ("ann", "bob", "cyd"):
            _say(ledger, s, f"{s} {i}", float(i))
    # Room for 5: ann's run, bob's run, and cyd's cut to what is left; in source order.
    jobs = ledger.claim_jobs("w1", 5, lease_s=60.0, max_attempts=3)
    assert [j.source.text for j in jobs] == ["ann 0", "bob 0", "cyd 0", "ann 1", "bob 1"]
    # cyd's head is held: its last job waits for it.
    assert ledger.claim_jobs("w2", 5, lease_s=60.0, max_attempts=3) == []
    ledger.expire_leases("w1")
    # At most one subject per batch: each claim takes one subject's whole run.
    for name, subject in (("w3", "ann"), ("w4", "bob"), ("w5", "cyd")):
        got = ledger.claim_jobs(name, 10, lease_s=60.0, max_attempts=3, max_subjects=1)
        assert [j.source.text for j in got] == [f"{subject} 0", f"{subject} 1"], name


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
    # (a backoff long enough that a loaded machine cannot pass it before the next claim)
    assert ledger.fail_jobs(jobs, "w", "boom", max_attempts=2, backoff_s=1.0) == 1
    assert ledger.job_counts()["pending"] == 1
    assert ledger.claim_jobs("w", 5, lease_s=60.0, max_attempts=2) == []  # backing off
    time.sleep(1.1)
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


def test_workers_take_different_subjects_at_once(ledger: Any) -> None:
    """While one worker holds ann's head job, another worker takes bob's jobs at once."""
    _say(ledger, "ann", "ann 0", 0.0)
    _say(ledger, "ann", "ann 1", 1.0)
    _say(ledger, "bob", "bob 0", 2.0)
    first = ledger.claim_jobs("w1", 1, lease_s=60.0, max_attempts=3)
    assert [j.source.text for j in first] == ["ann 0"]
    second = ledger.claim_jobs("w2", 5, lease_s=60.0, max_attempts=3)
    assert [j.source.text for j in second] == ["bob 0"]


def _second_handle(ledger: Any, engine: str) -> Any:
    """Another connection to the same ledger, as another worker process has."""
    if engine == "sqlite":
        from trace_ros.ledger import Ledger

        return Ledger(ledger.path)
    from trace_ros.storage.postgresql import PgLedger

    return PgLedger(ledger.url)


@pytest.mark.parametrize("max_subjects", [0, 1])
def test_two_workers_claiming_at_once_each_get_a_subject(ledger: Any, engine: str,
                                                         max_subjects: int) -> None:
    """Two subjects with interleaved backlogs, two workers on their own connections
    claiming at the same moment, round after round: each gets work in the first round,
    no subject's jobs are ever held by two workers, and each subject is projected in
    source order."""
    for i in range(12):
        _say(ledger, "ann", f"ann {i}", float(i))
        _say(ledger, "bob", f"bob {i}", float(i))
    other = _second_handle(ledger, engine)
    handles = {"w1": ledger, "w2": other}
    limit = 10 if max_subjects else 4  # without a bound: fewer than a subject's backlog
    errors: list[BaseException] = []
    try:
        for round_ in range(12):
            barrier = threading.Barrier(2)
            got: dict[str, list[Any]] = {}

            def claim(name: str, barrier: threading.Barrier = barrier,
                      got: dict[str, list[Any]] = got) -> None:
                try:
                    barrier.wait(10)
                    got[name] = handles[name].claim_jobs(name, limit, lease_s=60.0,
                                                         max_attempts=3,
                                                         max_subjects=max_subjects)
                except BaseException as exc:  # noqa: BLE001 - reported below
                    errors.append(exc)

            threads = [threading.Thread(target=claim, args=(n,)) for n in handles]
            for t in threads:
                t.start()
            for t in threads:
                t.join(30)
            assert not errors, errors
            subjects = {n: {j.source.subject_id for j in jobs} for n, jobs in got.items()}
            if round_ == 0:
                assert all(got[n] for n in handles), subjects
            assert not subjects["w1"] & subjects["w2"], subjects
            held = ledger.query("SELECT j.claimed_by, s.subject_id FROM jobs j JOIN sources s "
                                "ON s.seq = j.source_seq WHERE j.status = 'running'")
            holders: dict[str, set[str]] = {}
            for worker, subject in held:
                holders.setdefault(subject, set()).add(worker)
            assert all(len(w) == 1 for w in holders.values()), holders
            for name, jobs in got.items():
                for subject in subjects[name]:
                    seqs = [j.source.seq for j in jobs if j.source.subject_id == subject]
                    assert seqs == sorted(seqs)
                with handles[name].write() as tx:
                    handles[name].complete_jobs(tx, name, jobs, ["add"] * len(jobs))
            if ledger.job_counts()["done"] == 24:
                break
        assert ledger.job_counts()["done"] == 24
    finally:
        other.close()


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
