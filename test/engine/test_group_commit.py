"""The group commit under bursts: a burst is one commit without waiting out the window,
every event is answered exactly once and only after its commit, and the sessions'
spans are summed from the batch (issue 16 point 4)."""

from __future__ import annotations

import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))

from answerkit import Answers  # noqa: E402

from trace_ros.capture import Event, GroupCommitWriter, ingest  # noqa: E402
from trace_ros.config import CaptureConfig  # noqa: E402
from trace_ros.ledger import Ledger, Scope, StoreResult  # noqa: E402

SC = Scope("alice", "r1", "s1")


def test_a_burst_is_one_commit_without_waiting_out_the_window(ledger: Ledger) -> None:
    # A 5 s window: the old writer held every group for all of it.
    writer = GroupCommitWriter(ledger, CaptureConfig(group_commit_ms=5000.0,
                                                     group_commit_idle_ms=50.0))
    answers = Answers(ledger, 40)
    started = time.monotonic()
    for i in range(40):
        writer.submit(Event("dialogue", SC, f"burst {i}", "Alice", source_id=f"b-{i}",
                            stamp=float(i + 1)), answers)
    assert answers.done.wait(4.0), "the burst waited for the whole window"
    elapsed = time.monotonic() - started
    writer.close()
    answers.close()
    assert elapsed < 4.0
    assert writer.batches <= 3  # grouped, not one commit per event
    assert answers.not_durable == []
    assert ledger.count_sources() == 40


def test_idle_equal_to_the_window_keeps_the_fixed_window(ledger: Ledger) -> None:
    writer = GroupCommitWriter(ledger, CaptureConfig(group_commit_ms=300.0,
                                                     group_commit_idle_ms=300.0))
    answers = Answers(ledger, 1)
    started = time.monotonic()
    writer.submit(Event("dialogue", SC, "alone", "Alice", stamp=1.0), answers)
    assert answers.done.wait(10.0)
    writer.close()
    answers.close()
    assert time.monotonic() - started >= 0.25


@settings(max_examples=15, deadline=None)
@given(n_threads=st.integers(1, 4), per_thread=st.integers(1, 60),
       repeats=st.integers(0, 10), idle_ms=st.sampled_from([0.0, 0.5, 2.0]),
       max_batch=st.integers(1, 64))
def test_concurrent_submitters_every_event_answered_once_after_commit(
        tmp_path_factory: object, n_threads: int, per_thread: int, repeats: int,
        idle_ms: float, max_batch: int) -> None:
    path = tmp_path_factory.mktemp("gc") / "memory.db"  # type: ignore[attr-defined]
    ledger = Ledger(path)
    config = CaptureConfig(group_commit_ms=4.0, group_commit_idle_ms=idle_ms,
                           max_batch=max_batch)
    writer = GroupCommitWriter(ledger, config)
    ids = [f"t{t}-{i}" for t in range(n_threads) for i in range(per_thread)]
    # Some IDs are sent twice (same content): stored once, the second answered duplicate.
    again = ids[:repeats]
    answers = Answers(ledger, len(ids) + len(again))

    def send(items: list[str]) -> None:
        for sid in items:
            writer.submit(Event("dialogue", SC, f"text of {sid}", "Alice", source_id=sid,
                                stamp=1.0), answers)

    chunks = [ids[t * per_thread:(t + 1) * per_thread] for t in range(n_threads)]
    chunks[0] = chunks[0] + again
    threads = [threading.Thread(target=send, args=(chunk,)) for chunk in chunks]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert answers.done.wait(60)
    writer.close()
    answers.close()
    try:
        assert answers.not_durable == []
        statuses = Counter(r.status for r in answers.results)
        assert statuses == Counter({"accepted": len(ids)} | ({"duplicate": len(again)}
                                                             if again else {}))
        assert all(answers.calls[sid] == 1 + (sid in again) for sid in ids)
        assert ledger.count_sources() == len(ids)
        assert ledger.query("SELECT count(*) FROM jobs")[0][0] == len(ids)
        assert writer.committed == len(ids)
    finally:
        ledger.close()


def test_close_commits_what_is_queued_and_refuses_what_comes_after(ledger: Ledger) -> None:
    writer = GroupCommitWriter(ledger, CaptureConfig(group_commit_ms=1000.0,
                                                     group_commit_idle_ms=1000.0))
    answers = Answers(ledger, 31)
    for i in range(30):
        writer.submit(Event("dialogue", SC, f"queued {i}", "Alice", stamp=float(i + 1)),
                      answers)
    writer.close()
    writer.submit(Event("dialogue", SC, "too late", "Alice", source_id="late", stamp=99.0),
                  answers)
    assert answers.done.wait(10)
    answers.close()
    late = [r for r in answers.results if r.source_id == "late"]
    assert [(r.status, r.field) for r in late] == [("rejected", "queue")]
    assert sum(r.status == "accepted" for r in answers.results) == 30
    assert ledger.count_sources() == 30


def test_session_spans_are_summed_per_batch(ledger: Ledger) -> None:
    events = [Event("dialogue", Scope(subject, "r1", session), f"{subject} {session} {i}",
                    "Alice", stamp=stamp)
              for i, (subject, session, stamp) in enumerate(
                  [("alice", "s1", 5.0), ("alice", "s1", 3.0), ("alice", "s2", 9.0),
                   ("bob", "s1", 4.0), ("alice", "", 1.0), ("alice", "s1", 7.0)])]
    ingest(ledger, events[:3], CaptureConfig())
    ingest(ledger, events[3:], CaptureConfig())
    rows = ledger.query("SELECT subject_id, robot_id, session_id, start_time, end_time, "
                        "n_sources FROM sessions ORDER BY subject_id, session_id")
    assert rows == [("alice", "r1", "s1", 3.0, 7.0, 3), ("alice", "r1", "s2", 9.0, 9.0, 1),
                    ("bob", "r1", "s1", 4.0, 4.0, 1)]


def test_submit_many_is_one_group_and_answers_each_event(ledger: Ledger) -> None:
    # No idle wait and no window: only submit_many's one queueing keeps them together.
    writer = GroupCommitWriter(ledger, CaptureConfig(group_commit_ms=0.0,
                                                     group_commit_idle_ms=0.0))
    answers = Answers(ledger, 51)
    events = [Event("dialogue", SC, f"batched {i}", "Alice", source_id=f"m-{i}",
                    stamp=float(i + 1)) for i in range(48)]
    events.insert(10, Event("dialogue", SC, "", "Alice", source_id="m-empty"))  # rejected
    events.append(Event("dialogue", SC, "twice", "Alice", stamp=0.0))  # zero stamps: two
    writer.submit_many([(e, answers) for e in events])
    writer.submit_many([(Event("dialogue", SC, "twice", "Alice", stamp=0.0), answers)])
    assert answers.done.wait(30)
    writer.close()
    answers.close()
    assert writer.batches <= 2  # the 49 valid events of the first call: one commit
    assert set(answers.calls.values()) == {1}
    statuses = Counter(r.status for r in answers.results)
    assert statuses == {"accepted": 50, "rejected": 1}
    assert answers.not_durable == []
    assert ledger.count_sources() == 50


def _eager(led: object) -> GroupCommitWriter:
    """A writer that commits what is queued at once (no linger)."""
    return GroupCommitWriter(led, CaptureConfig(group_commit_ms=0.0,  # type: ignore[arg-type]
                                                group_commit_idle_ms=0.0))


class _Wrapped:
    """A ledger the tests put between the writer and the real one: syncs and indexes pass."""

    ledger: Ledger

    def sync(self) -> None:
        self.ledger.sync()

    def index_postings(self, max_sources: int = 500) -> int:
        return self.ledger.index_postings(max_sources)


class _HeldLedger(_Wrapped):
    """A ledger whose first ``store_sources`` waits for ``release`` (a commit in progress)."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger
        self.entered, self.release = threading.Event(), threading.Event()
        self.calls = 0

    def store_sources(self, items: list, now: float | None = None, *,
                      durable: bool = True) -> list[StoreResult]:
        self.calls += 1
        if self.calls == 1:
            self.entered.set()
            assert self.release.wait(30)
        return self.ledger.store_sources(items, now=now, durable=durable)


def test_events_that_came_during_a_commit_go_next_without_lingering(ledger: Ledger) -> None:
    held = _HeldLedger(ledger)
    writer = _eager(held)
    answers = Answers(ledger, 3)
    writer.submit(Event("dialogue", SC, "first", "Alice", source_id="l-0", stamp=1.0), answers)
    assert held.entered.wait(10)
    # From now on an idle writer would linger for a minute; a queue found waiting after a
    # commit is the next group at once (the old writer lingered on it too).
    writer.config = CaptureConfig(group_commit_ms=60_000.0, group_commit_idle_ms=30_000.0)
    for i in (1, 2):
        writer.submit(Event("dialogue", SC, f"during {i}", "Alice", source_id=f"l-{i}",
                            stamp=float(i + 1)), answers)
    held.release.set()
    assert answers.done.wait(20), "the queue that came during a commit lingered"
    writer.close()
    answers.close()
    assert held.calls == 2 and answers.not_durable == []


def test_a_slow_answer_does_not_hold_the_next_commit(ledger: Ledger) -> None:
    writer = GroupCommitWriter(ledger, CaptureConfig(group_commit_ms=0.0,
                                                     group_commit_idle_ms=0.0))
    answered, release = threading.Event(), threading.Event()
    writer_thread: list[str] = []

    def slow(res: StoreResult) -> None:  # an ack publisher that blocks
        writer_thread.append(threading.current_thread().name)
        answered.set()
        assert release.wait(30)

    answers = Answers(ledger, 1)
    writer.submit(Event("dialogue", SC, "first", "Alice", source_id="s-0", stamp=1.0), slow)
    assert answered.wait(10)
    writer.submit(Event("dialogue", SC, "second", "Alice", source_id="s-1", stamp=2.0),
                  answers)
    other = Ledger(ledger.path)
    try:  # committed while the first answer is still being given
        for _ in range(400):
            if other.get_sources(["s-1"]):
                break
            time.sleep(0.05)
        assert other.get_sources(["s-1"]), "the writer waited for a callback"
    finally:
        other.close()
        release.set()
    assert answers.done.wait(10)
    writer.close()  # returns once every answer was given
    answers.close()
    assert writer_thread and writer_thread[0] != writer._thread.name
    assert writer.committed == 2


class _SyncGate(_Wrapped):
    """A ledger whose ``sync`` waits for ``release`` (a slow disk) or raises ``fail``."""

    def __init__(self, ledger: Ledger, fail: OSError | None = None) -> None:
        self.ledger, self.fail = ledger, fail
        self.syncing, self.release = threading.Event(), threading.Event()
        self.synced = 0
        self.durable: list[bool] = []

    def store_sources(self, items: list, now: float | None = None, *,
                      durable: bool = True) -> list[StoreResult]:
        self.durable.append(durable)
        return self.ledger.store_sources(items, now=now, durable=durable)

    def sync(self) -> None:
        self.syncing.set()
        assert self.release.wait(30)
        if self.fail is not None:
            raise self.fail
        self.ledger.sync()
        self.synced += 1


def test_an_event_is_answered_only_once_its_commit_is_synced(ledger: Ledger) -> None:
    gate = _SyncGate(ledger)
    writer = _eager(gate)
    answers = Answers(ledger, 3)
    writer.submit(Event("dialogue", SC, "first", "Alice", source_id="y-0", stamp=1.0), answers)
    assert gate.syncing.wait(10)
    # While the disk is busy the writer commits the next events (not durable yet) ...
    for i in (1, 2):
        writer.submit(Event("dialogue", SC, f"next {i}", "Alice", source_id=f"y-{i}",
                            stamp=float(i + 1)), answers)
    other = Ledger(ledger.path)
    try:
        for _ in range(400):
            if len(other.get_sources(["y-1", "y-2"])) == 2:
                break
            time.sleep(0.05)
        assert len(other.get_sources(["y-1", "y-2"])) == 2
    finally:
        other.close()
    assert answers.results == []  # ... and answers none of them before the sync returned
    gate.release.set()
    assert answers.done.wait(20)
    writer.close()
    answers.close()
    assert [r.status for r in answers.results] == ["accepted"] * 3
    assert gate.durable and not any(gate.durable)
    assert gate.synced <= writer.batches  # a sync covers the groups committed before it


def test_a_commit_that_cannot_be_synced_is_never_answered_accepted(ledger: Ledger) -> None:
    gate = _SyncGate(ledger, fail=OSError(5, "Input/output error"))
    gate.release.set()
    writer = GroupCommitWriter(gate, CaptureConfig())  # type: ignore[arg-type]
    answers = Answers(ledger, 1)
    writer.submit(Event("dialogue", SC, "lost?", "Alice", source_id="z-0", stamp=1.0), answers)
    assert answers.done.wait(20)
    writer.close()
    answers.close()
    (result,) = answers.results
    assert (result.status, result.field) == ("rejected", "ledger")
    assert "not made durable" in result.reason and writer.sync_errors == 1


def test_an_unsynced_commit_restores_the_setting_and_sync_reaches_the_disk(
        ledger: Ledger) -> None:
    from trace_ros.capture import prepare

    item = prepare(Event("dialogue", SC, "held", "Alice", source_id="u-0", stamp=1.0),
                   CaptureConfig())
    assert ledger.query("PRAGMA synchronous")[0][0] == 2  # FULL
    (result,) = ledger.store_sources([item], durable=False)
    assert result.status == "accepted"
    assert ledger.query("PRAGMA synchronous")[0][0] == 2
    ledger.sync()  # the WAL's fsync (and its folder's, the first time)
    ledger.sync()
    assert ledger.get_sources(["u-0"])[0].text == "held"


def test_answer_group_gets_each_committed_group_whole_and_in_order(ledger: Ledger) -> None:
    """With ``answer_group`` the answering thread hands over a group at a time: every
    event's (callback, result) once, in submission order, after its commit is durable;
    rejections found on submit still go straight to their callback."""
    groups: list[list[tuple[object, StoreResult]]] = []
    synced_before: list[bool] = []
    done = threading.Event()
    total = 12

    def answer_group(answers: list[tuple[object, StoreResult]]) -> None:
        synced_before.append(all(ledger.get_sources([r.source_id]) for _, r in answers))
        groups.append(answers)
        if sum(len(g) for g in groups) >= total:
            done.set()

    rejected: list[StoreResult] = []
    writer = GroupCommitWriter(ledger, CaptureConfig(group_commit_ms=50.0,
                                                     group_commit_idle_ms=20.0, max_batch=5),
                               answer_group=answer_group)
    tokens = [object() for _ in range(total)]
    for i, token in enumerate(tokens):
        writer.submit(Event("dialogue", SC, f"grouped {i}", "Alice", source_id=f"g-{i}",
                            stamp=float(i + 1)), token)  # type: ignore[arg-type]
    writer.submit(Event("dialogue", SC, "", "Alice", source_id="empty"), rejected.append)
    assert done.wait(10.0)
    writer.close()
    assert [r.status for r in rejected] == ["rejected"]  # at once, not through a group
    assert all(1 <= len(g) <= 5 for g in groups)  # max_batch splits the stream
    pairs = [pair for group in groups for pair in group]
    assert [callback for callback, _ in pairs] == tokens
    assert [r.source_id for _, r in pairs] == [f"g-{i}" for i in range(total)]
    assert {r.status for _, r in pairs} == {"accepted"}
    assert synced_before == [True] * len(groups)


def test_a_broken_answer_group_does_not_stop_the_writer(ledger: Ledger) -> None:
    calls: list[int] = []

    def broken(answers: list[tuple[object, StoreResult]]) -> None:
        calls.append(len(answers))
        raise RuntimeError("answerer broke")

    writer = GroupCommitWriter(ledger, CaptureConfig(group_commit_ms=0.0,
                                                     group_commit_idle_ms=0.0),
                               answer_group=broken)
    for i in range(3):
        writer.submit(Event("dialogue", SC, f"after a break {i}", "Alice",
                            source_id=f"x-{i}", stamp=float(i + 1)), lambda _: None)
        deadline = time.monotonic() + 5.0
        while sum(calls) <= i and time.monotonic() < deadline:
            time.sleep(0.005)
    writer.close()
    assert sum(calls) == 3  # every group was still handed over after the first broke
    assert ledger.count_sources() == 3


@pytest.mark.skipif(not Path("/proc/thread-self/comm").exists(), reason="Linux /proc only")
def test_the_writer_threads_carry_their_role_where_the_os_shows_it(ledger: Ledger) -> None:
    """``bench capture`` splits the memory node's CPU by thread from /proc: the writer's
    threads are named there (Python 3.11 names only its Thread objects)."""
    answers = Answers(ledger, 1)
    writer = GroupCommitWriter(ledger, CaptureConfig(group_commit_ms=0.0))
    writer.submit(Event("dialogue", SC, "named", "Alice", source_id="n-1", stamp=1.0),
                  answers)
    assert answers.done.wait(10.0)
    names = {p.read_text().strip() for p in Path("/proc/self/task").glob("*/comm")}
    apart = writer.checkpoints_apart  # a SQLite ledger's WAL: checkpointed by a thread
    writer.close()
    answers.close()
    assert {"trace-writer", "trace-answers"} <= names
    assert apart and "trace-ckpt" in names
