"""The capture writer (``GroupCommitWriter``) on every engine: concurrent submitters, each
event answered exactly once and only once another connection can read it; duplicates and
conflicting IDs answered as such; what is queued at close committed. On SQLite the WAL is
checkpointed by the writer's own thread (``checkpoints_apart``); PostgreSQL has nothing of
the kind, and the writer runs without that thread."""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

from trace_ros.capture import Event, GroupCommitWriter
from trace_ros.config import CaptureConfig
from trace_ros.ledger import Scope, StoreResult


def _other(ledger: Any) -> Any:
    """A second connection to the same ledger: it sees committed rows only."""
    if hasattr(ledger, "url"):
        from trace_ros.storage.postgresql import PgLedger

        return PgLedger(ledger.url)
    from trace_ros.ledger import Ledger

    return Ledger(ledger.path)


class Answers:
    def __init__(self, ledger: Any, expected: int) -> None:
        self.other = _other(ledger)
        self.calls: Counter[str] = Counter()
        self.results: list[StoreResult] = []
        self.unseen: list[str] = []
        self.expected, self.done, self.lock = expected, threading.Event(), threading.Lock()

    def __call__(self, res: StoreResult) -> None:
        with self.lock:
            if res.status == "accepted" and not self.other.get_sources([res.source_id]):
                self.unseen.append(res.source_id)
            self.calls[res.source_id] += 1
            self.results.append(res)
            if len(self.results) == self.expected:
                self.done.set()

    def close(self) -> None:
        self.other.close()


def _event(i: int, text: str = "") -> Event:
    return Event("dialogue", Scope(f"subject-{i % 3}", "r1", f"s{i // 50}"),
                 text or f"turn number {i}", "Ann", stamp=1_700_000_000.0 + i,
                 source_id=f"g-{i}")


def test_the_writer_answers_each_event_once_after_its_commit(ledger: Any, engine: str) -> None:
    writer = GroupCommitWriter(ledger, CaptureConfig(group_commit_ms=2.0,
                                                     group_commit_idle_ms=0.5),
                               checkpoint_every=50)
    assert writer.checkpoints_apart == (engine == "sqlite")
    n, threads = 300, 3
    answers = Answers(ledger, n + 2)

    def submit(part: int) -> None:
        for i in range(part, n, threads):
            writer.submit(_event(i), answers)

    workers = [threading.Thread(target=submit, args=(p,)) for p in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    writer.submit(_event(7), answers)  # the same again: a duplicate
    writer.submit(_event(8, "something else"), answers)  # the same ID, other content
    assert answers.done.wait(60)
    writer.close()
    answers.close()
    assert answers.unseen == [] and set(answers.calls.values()) == {1, 2}
    by_status = Counter(r.status for r in answers.results)
    assert by_status == {"accepted": n, "duplicate": 1, "rejected": 1}
    assert ledger.count_sources() == n and writer.committed == n
    assert writer.checkpoint_errors == 0 and not writer.checkpoints_apart


def test_close_commits_what_is_queued(ledger: Any) -> None:
    writer = GroupCommitWriter(ledger, CaptureConfig(group_commit_ms=50.0,
                                                     group_commit_idle_ms=50.0))
    answers = Answers(ledger, 20)
    for i in range(20):
        writer.submit(_event(i), answers)
    writer.close()
    assert answers.done.wait(30)
    answers.close()
    assert [r.status for r in answers.results] == ["accepted"] * 20
    assert ledger.count_sources() == 20
