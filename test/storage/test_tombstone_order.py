"""Tombstones are numbered in the order the ledger records them (SQLite m010, PostgreSQL
p011), the order ``trace-ros sync`` resumes from: a ledger written before is upgraded in
place (its tombstones numbered in the order sync read them), keeps refusing their IDs,
numbers what comes after past them — whatever its removal time — and never gives a lifted
tombstone's number again.

The ledger is written by this build with the numbering migration held back (as an older
build left it), then opened again: the upgrade runs in place.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from postings_kit import as_before_postings  # noqa: E402

from trace_ros.capture import Event, ingest
from trace_ros.config import CaptureConfig
from trace_ros.ledger import Ledger, Scope
from trace_ros.sync import sync, watermark_key

OLD = [("t-a", 30.0, "ann"), ("t-b", 10.0, "ann"), ("t-c", 20.0, "bob"), ("t-c", 20.0, "")]
# The order the sync before numbering read them in: removal time, ID, subject.
NUMBERED = [("t-b", 10.0, "ann", 1), ("t-c", 20.0, "", 2), ("t-c", 20.0, "bob", 3),
            ("t-a", 30.0, "ann", 4)]


@contextmanager
def _numbering_held_back(engine: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """While open, ledgers of ``engine`` migrate up to the migration before the numbering
    one (as an older build did)."""
    with monkeypatch.context() as patch:
        if engine == "sqlite":
            from trace_ros.storage.sqlite import base, migrations

            patch.setattr(base, "MIGRATIONS", migrations.Migrations(
                [m for m in migrations.MIGRATIONS.migrations if m.version < 10]))
        else:
            from trace_ros.storage.postgresql import base, migrations  # type: ignore[no-redef]

            before = tuple(m for m in migrations.MIGRATIONS if m.version < 11)
            patch.setattr(migrations, "MIGRATIONS", before)
            patch.setattr(base, "MIGRATIONS", before)
        as_before_postings(patch)
        yield


def _reopen(led: Any, engine: str) -> Any:
    if engine == "sqlite":
        path = led.path
        led.close()
        return Ledger(path)
    from trace_ros.storage.postgresql import PgLedger

    url = led.url
    led.close()
    return PgLedger(url)


def _say(led: Any, subject: str, source_id: str) -> str:
    event = Event("dialogue", Scope(subject, "r1", "s1"), f"{source_id} said", "Ann",
                  stamp=1.0, source_id=source_id)
    return str(ingest(led, [event], CaptureConfig())[0].status)


def test_an_older_ledger_is_numbered_in_place_and_keeps_working(
        engine: str, open_engine: Callable[[str], Any], monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path) -> None:
    with _numbering_held_back(engine, monkeypatch):
        old = open_engine(engine)
        assert old.add_tombstones(OLD) == 4
        assert _say(old, "ann", "kept") == "accepted"
    led = _reopen(old, engine)
    try:
        assert led.tombstones_recorded_after(0, 10) == NUMBERED
        assert led.tombstones_recorded_after(2, 1) == NUMBERED[2:3]
        assert _say(led, "ann", "t-a") == "rejected"  # still refused
        # What comes after is numbered past them, whatever its removal time.
        assert led.forget(source_ids=["kept"], now=5.0) == ["kept"]
        assert led.add_tombstones([("t-d", 1.0, "ann")]) == 1
        assert [(t.source_id, t.seq) for t in led.tombstones_recorded_after(4, 10)] == \
            [("kept", 5), ("t-d", 6)]
        # A lifted tombstone's number is never given again.
        assert led.forget(Scope("ann"), source_ids=["t-d"], allow_reingest=True) == []
        assert led.add_tombstones([("t-e", 2.0, "ann")]) == 1
        assert [(t.source_id, t.seq) for t in led.tombstones_recorded_after(4, 10)] == \
            [("kept", 5), ("t-e", 7)]
        # A sync mark written before the numbering: every tombstone once more, then none.
        target = Ledger(tmp_path / "target.db")
        target.put_meta_value(watermark_key("old"), json.dumps(
            {"seq": 0, "tombstone_at": 30.0, "tombstone_id": "t-a"}))
        assert sync(led, target, "old").tombstones_seen == 6
        assert [t[:3] for t in target.tombstones_recorded_after(0, 10)] == \
            [t[:3] for t in led.tombstones_recorded_after(0, 10)]
        assert sync(led, target, "old").tombstones_seen == 0
        target.close()
    finally:
        led.close()


def test_a_role_confined_before_the_upgrade_still_forgets(
        open_engine: Callable[[str], Any], grant: Callable[..., Any],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A role ``ledger grant`` confined before the numbering migration writes numbered
    tombstones after it (an identity draws its numbers without a grant on its sequence)
    and reads those of its subjects."""
    pytest.importorskip("psycopg")
    from trace_ros.storage.postgresql import PgLedger

    with _numbering_held_back("postgresql", monkeypatch):
        old = open_engine("postgresql")
        assert _say(old, "ann", "ann-0") == _say(old, "bob", "bob-0") == "accepted"
        assert old.add_tombstones(OLD) == 4
        role = grant(old, ["ann"])
    owner = _reopen(old, "postgresql")
    try:
        with PgLedger(role) as led:
            assert led.forget(source_ids=["ann-0"], now=1.0) == ["ann-0"]
            assert [(t.source_id, t.subject_id, t.seq)
                    for t in led.tombstones_recorded_after(0, 10)] == \
                [("t-b", "ann", 1), ("t-c", "", 2), ("t-a", "ann", 4), ("ann-0", "ann", 5)]
        assert owner.forget(source_ids=["bob-0"]) == ["bob-0"]
        [bob] = owner.tombstones_recorded_after(5, 10)
        assert (bob.source_id, bob.subject_id, bob.seq) == ("bob-0", "bob", 6)
    finally:
        owner.close()


def test_a_tombstone_forgotten_again_gets_a_new_number(ledger: Any) -> None:
    """A forget that re-records a tombstone (the ID stored again in that subject past
    its tombstone, e.g. by hand) numbers it anew, so sync sends the new removal time."""
    assert _say(ledger, "ann", "f") == "accepted"
    assert ledger.forget(source_ids=["f"], now=50.0) == ["f"]
    [first] = ledger.tombstones_recorded_after(0, 10)
    with ledger.write() as tx:  # the ID back in its subject beside its tombstone
        tx.execute("DELETE FROM tombstones")
    assert _say(ledger, "ann", "f") == "accepted"
    with ledger.write() as tx:
        tx.execute("INSERT INTO tombstones (subject_id, source_id, removed_at) "
                   "VALUES ('ann', 'f', 40.0)")
    assert ledger.forget(source_ids=["f"], now=70.0) == ["f"]
    [again] = ledger.tombstones_recorded_after(0, 10)
    assert again[:3] == ("f", 70.0, "ann") and again.seq > first.seq


def test_a_tombstone_writer_waits_for_another_to_commit(open_engine: Callable[[str], Any]
                                                         ) -> None:
    """On PostgreSQL numbers are drawn before commit: every writer of tombstones takes one
    lock first, so they commit in the order of their numbers and a reader never sees one
    while a smaller one is still to come."""
    psycopg = pytest.importorskip("psycopg")
    from trace_ros.storage.postgresql.base import conninfo
    from trace_ros.storage.postgresql.forget import TOMBSTONE_LOCK

    led = open_engine("postgresql")
    done = threading.Event()

    def write() -> None:
        led.add_tombstones([("second", 10.0, "ann")])
        done.set()

    with psycopg.connect(**conninfo(led.url)) as other:
        other.execute("SELECT pg_advisory_xact_lock(%s)", (TOMBSTONE_LOCK,))
        other.execute("INSERT INTO tombstones (subject_id, source_id, removed_at) "
                      "VALUES ('ann', 'first', 20.0)")
        writer = threading.Thread(target=write)
        writer.start()
        time.sleep(0.5)
        assert not done.is_set() and led.tombstones_recorded_after(0, 10) == []
        other.commit()
    writer.join(10.0)
    assert done.is_set()
    assert [(t.source_id, t.seq) for t in led.tombstones_recorded_after(0, 10)] == \
        [("first", 1), ("second", 2)]
