"""The capture writer (``GroupCommitWriter``) on every engine: concurrent submitters, each
event answered exactly once and only once another connection can read it; duplicates and
conflicting IDs answered as such; what is queued at close committed. On SQLite the WAL is
checkpointed by the writer's own thread (``checkpoints_apart``); PostgreSQL has nothing of
the kind, and the writer runs without that thread."""

from __future__ import annotations

import sys
import threading
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parents[1] / "engine"))

from answerkit import Answers  # noqa: E402

from trace_ros.capture import Event, GroupCommitWriter  # noqa: E402
from trace_ros.config import CaptureConfig  # noqa: E402
from trace_ros.ledger import Scope  # noqa: E402


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
    assert answers.not_durable == [] and set(answers.calls.values()) == {1, 2}
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
