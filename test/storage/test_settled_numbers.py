"""Readers that resume after a number never pass over one another writer still holds
(``storage/postgresql/settled.py``; PostgreSQL migration p012 for vectors).

On PostgreSQL a source's ``seq`` and a vector's ``vid`` are drawn before their transaction
commits, and writers take no common lock (issue 15 point 3), so a smaller number can
become visible after a larger one. Here one writer's transaction stays open with its row
inserted while another writer's row, numbered after it, commits: ``trace-ros sync``, the
query's attachments (through ``marks``) and its vector index each read in between and
again after the first commits, and must end up with both rows. The SQLite engine has one
writer; its readers are the same contract's and are tested everywhere else.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from postings_kit import as_before_postings  # noqa: E402

from trace_ros.capture import Event, ingest
from trace_ros.config import CaptureConfig
from trace_ros.ledger import Ledger, Scope
from trace_ros.query.recall import Attachments, VectorIndex
from trace_ros.sync import sync, watermark_key

WAIT_S = 10.0


def _event(subject: str, source_id: str, payload: dict[str, Any] | None = None) -> Event:
    return Event("dialogue", Scope(subject, "r1", "s1"), f"{source_id} said", "Ann",
                 stamp=1.0, source_id=source_id, payload=payload)


def _store(led: Any, event: Event) -> int:
    [res] = ingest(led, [event], CaptureConfig())
    assert res.status == "accepted"
    return int(res.sequence)


@contextmanager
def _open_writer(work: Callable[[Callable[[], None]], Any]) -> Iterator[None]:
    """Run ``work(pause)`` on a thread of its own: its transaction stays open where it
    calls ``pause()`` until the block ends."""
    paused, release = threading.Event(), threading.Event()
    failed: list[BaseException] = []

    def pause() -> None:
        paused.set()
        assert release.wait(WAIT_S)

    def run() -> None:
        try:
            work(pause)
        except BaseException as exc:  # noqa: BLE001 - reported on the test's thread
            failed.append(exc)
            paused.set()

    thread = threading.Thread(target=run)
    thread.start()
    try:
        assert paused.wait(WAIT_S) and not failed
        yield
    finally:
        release.set()
        thread.join(WAIT_S)
    assert not thread.is_alive() and not failed


def _capture(led: Any, event: Event, monkeypatch: pytest.MonkeyPatch
             ) -> Callable[[Callable[[], None]], Any]:
    """Work for ``_open_writer``: capture ``event``, pausing inside the capture
    transaction once its source is inserted (right after the lexical rows)."""
    from trace_ros.storage.postgresql import sources

    original, mine = sources.index_sources, threading.local()

    def index_then_pause(*args: Any) -> None:
        original(*args)
        if getattr(mine, "pause", None):
            mine.pause()

    def work(pause: Callable[[], None]) -> None:
        mine.pause = pause
        _store(led, event)

    monkeypatch.setattr(sources, "index_sources", index_then_pause)
    return work


@pytest.fixture
def pg(open_engine: Callable[[str], Any]) -> Any:
    pytest.importorskip("psycopg")
    return open_engine("postgresql")


def test_sync_does_not_skip_a_source_committed_after_a_later_one(
        pg: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = Ledger(tmp_path / "robot.db")
    with _open_writer(_capture(pg, _event("ann", "early"), monkeypatch)):
        late = _store(pg, _event("bob", "late"))  # numbered after "early", committed first
        first = sync(pg, target, "fleet")  # a round while "early" may still commit below
        held = (pg.sources_after(0, 10), pg.last_seq())
    second = sync(pg, target, "fleet")
    assert sorted(target.source_counts()) == ["early", "late"]
    assert (first.sources_seen, held) == (0, ([], 0))
    assert (second.accepted, second.last_seq) == (2, late)
    assert json.loads(target.meta_value(watermark_key("fleet")))["seq"] == late
    assert [r.source_id for r in pg.sources_after(0, 10)] == ["early", "late"]
    assert pg.last_seq() == late and sync(pg, target, "fleet").sources_seen == 0
    target.close()


def test_attachments_do_not_skip_a_source_committed_after_the_mark(
        pg: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A subject's own writer in flight: the last number handed out is its uncommitted
    source, which the query's attachments must not mark as read."""
    photo = _store(pg, _event("ann", "photo"))
    attachments = Attachments(pg)
    look_event = _event("ann", "look", {"attached_to": "photo"})
    with _open_writer(_capture(pg, look_event, monkeypatch)):
        _store(pg, _event("bob", "other"))  # another subject's writer commits meanwhile
        assert attachments.units("ann", [photo], pg.marks()[1]) == {}
    [look] = [r.seq for r in pg.sources_in_scope(Scope("ann")) if r.source_id == "look"]
    assert attachments.units("ann", [photo], pg.marks()[1]) == {photo: (photo, look)}


def test_the_vector_index_does_not_skip_a_vector_committed_after_a_later_one(pg: Any) -> None:
    for sid in ("early", "late"):
        _store(pg, _event("ann", sid))
    vec = np.ones(4, dtype=np.float32)

    def put(source_id: str, pause: Callable[[], None] = lambda: None) -> None:
        with pg.write() as conn:
            pg.put_vectors(conn, "source", "m", [(source_id, "ann", vec)])
            pause()
            pg.bump_generation(conn)

    index = VectorIndex(pg, "m")
    with _open_writer(lambda pause: put("early", pause)):
        put("late")  # its vid is drawn after "early"'s, and it commits first
        held = list(index.refresh("ann").ids)
    assert sorted(index.refresh("ann").ids) == ["early", "late"]
    assert held == []


def test_an_older_ledger_is_upgraded_in_place(open_engine: Callable[[str], Any],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Sources and vectors written before migration p012 are settled; a vector replaced
    after it takes the number its writer drew."""
    pytest.importorskip("psycopg")
    from trace_ros.storage.postgresql import PgLedger, base, migrations

    with monkeypatch.context() as patch:
        before = tuple(m for m in migrations.MIGRATIONS if m.version < 12)
        patch.setattr(migrations, "MIGRATIONS", before)
        patch.setattr(base, "MIGRATIONS", before)
        as_before_postings(patch)
        old = open_engine("postgresql")
        kept = _store(old, _event("ann", "kept"))
        with old.write() as conn:  # as the older build wrote it (vid given ALWAYS)
            conn.execute("INSERT INTO vectors (owner_kind, owner_id, subject_id, model, dim, "
                         "vec) VALUES ('source', 'kept', 'ann', 'm', 4, '[1,1,1,1]')")
        url = old.url
        old.close()
    with PgLedger(url) as led:
        assert [r.source_id for r in led.sources_after(0, 10)] == ["kept"]
        assert led.last_seq() == kept
        index = VectorIndex(led, "m")
        [first] = [int(r[0]) for r in led.source_vectors_after("ann", "m", 0)]
        assert index.refresh("ann").ids.tolist() == ["kept"]
        with led.write() as conn:
            led.put_vectors(conn, "source", "m", [("kept", "ann", np.zeros(4, np.float32))])
        [again] = [int(r[0]) for r in led.source_vectors_after("ann", "m", 0)]
        assert again > first and index.refresh("ann").ids.tolist() == ["kept"]
        assert np.count_nonzero(index.current("ann").matrix) == 0
