"""The capture writer's WAL checkpoints run on a thread and a connection of their own, not
in the writer's commits (issue 16); after failures in a row the commits take them back."""

from __future__ import annotations

import threading
import time

from trace_ros.capture import CHECKPOINT_FAILURES, Event, GroupCommitWriter
from trace_ros.config import CaptureConfig
from trace_ros.ledger import Ledger, Scope, StoreResult

SC = Scope("alice", "r1", "s1")
EAGER = CaptureConfig(group_commit_ms=0.0, group_commit_idle_ms=0.0)


def _autocheckpoint(ledger: Ledger) -> int:
    return int(ledger.query("PRAGMA wal_autocheckpoint")[0][0])


def _send(writer: GroupCommitWriter, n: int, start: int = 0) -> list[StoreResult]:
    results: list[StoreResult] = []
    done = threading.Event()
    lock = threading.Lock()

    def answer(res: StoreResult) -> None:
        with lock:
            results.append(res)
            if len(results) == n:
                done.set()

    for i in range(start, start + n):
        writer.submit(Event("dialogue", SC, f"turn {i}", "Alice", source_id=f"c-{i}",
                            stamp=float(i + 1)), answer)
    assert done.wait(30)
    return results


def _wal_frames(ledger: Ledger) -> int:
    """Frames in the WAL not yet copied into the file, as a PASSIVE checkpoint sees them
    (from another connection, so this one's autocheckpoint is not used)."""
    other = Ledger(ledger.path)
    try:
        _, log, copied = other.query("PRAGMA wal_checkpoint(PASSIVE)")[0]
    finally:
        other.close()
    return int(log) - int(copied)


def test_the_ledger_checkpoints_apart_on_a_connection_of_its_own(ledger: Ledger) -> None:
    assert _autocheckpoint(ledger) == 1000
    assert ledger.checkpoints_apart(True)
    assert _autocheckpoint(ledger) == 0  # the commits no longer checkpoint
    from trace_ros.capture import prepare

    items = [prepare(Event("dialogue", SC, f"t {i}", "Alice", source_id=f"a-{i}",
                           stamp=float(i + 1)), EAGER) for i in range(50)]
    ledger.store_sources(items)
    assert ledger.checkpoint_apart()  # every frame copied, no reader in the way
    assert ledger._apart is not None and ledger._apart is not ledger.conn
    ledger.checkpoints_apart(False)
    assert _autocheckpoint(ledger) == 1000 and ledger._apart is None


def test_the_writer_checkpoints_on_its_own_thread_every_n_sources(ledger: Ledger) -> None:
    calls: list[str] = []
    real = ledger.checkpoint_apart

    def counted() -> bool:
        calls.append(threading.current_thread().name)
        return real()

    ledger.checkpoint_apart = counted  # type: ignore[method-assign]
    writer = GroupCommitWriter(ledger, EAGER, checkpoint_every=100)
    assert writer.checkpoints_apart and _autocheckpoint(ledger) == 0
    results = _send(writer, 450)
    for _ in range(200):  # the last request may still be running
        if calls:
            break
        time.sleep(0.02)
    assert {r.status for r in results} == {"accepted"}
    # Four requests (every 100 sources); those made while one runs are answered by the next.
    assert 1 <= len(calls) <= 4 and set(calls) == {"trace_ros-checkpoint"}
    writer.close()
    assert _autocheckpoint(ledger) == 1000  # the commits checkpoint again
    assert not writer.checkpoints_apart and writer.checkpoint_errors == 0
    assert _wal_frames(ledger) == 0  # close made one last checkpoint


def test_failing_checkpoints_hand_the_work_back_to_the_commits(ledger: Ledger) -> None:
    def broken() -> bool:
        raise OSError(5, "Input/output error")

    ledger.checkpoint_apart = broken  # type: ignore[method-assign]
    writer = GroupCommitWriter(ledger, EAGER, checkpoint_every=10)
    start = 0
    for _ in range(40):  # one request per 10 sources; a failure each
        if not writer.checkpoints_apart:
            break
        _send(writer, 10, start)
        start += 10
        time.sleep(0.01)
    for _ in range(200):
        if not writer.checkpoints_apart:
            break
        time.sleep(0.02)
    assert not writer.checkpoints_apart
    assert writer.checkpoint_errors == CHECKPOINT_FAILURES
    assert _autocheckpoint(ledger) == 1000  # while the writer still runs
    results = _send(writer, 20, 1000)  # capture goes on
    assert {r.status for r in results} == {"accepted"}
    writer.close()
    assert ledger.count_sources() == start + 20


def test_a_ledger_that_cannot_checkpoint_apart_keeps_the_commits_checkpointing(
        ledger: Ledger) -> None:
    ledger.checkpoints_apart = lambda on: False  # type: ignore[method-assign]
    writer = GroupCommitWriter(ledger, EAGER, checkpoint_every=10)
    assert not writer.checkpoints_apart
    assert {r.status for r in _send(writer, 30)} == {"accepted"}
    writer.close()
    assert _autocheckpoint(ledger) == 1000
