"""Tombstones of unknown subject (``''``, left before SQLite m006 / PostgreSQL p008): the
next migration (m008 / p009) gives each the subject the ledger still names for its ID,
where exactly one is named, and leaves the rest ``''``; on PostgreSQL a role confined to
its subjects reads those (its capture refuses their IDs, as the owner's does) and
cannot lift them.

The ledger is filled as an older build could have left it — rows that name a forgotten
source (an audit row, a vector, another tombstone of the ID) beside its ``''`` tombstone
— then set back to before the migration and opened again: the upgrade runs in place.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from trace_ros.capture import Event, ingest
from trace_ros.config import CaptureConfig
from trace_ros.ledger import Ledger, Scope
from trace_ros.storage.records import AuditRecord

UNKNOWN = [("old-a", 10.0, ""), ("old-b", 11.0, ""), ("old-c", 12.0, ""),
           ("old-d", 13.0, ""), ("old-e", 14.0, "")]
# What the migration can tell: old-a an audit row of ann cites, old-b has bob's vector,
# old-c has a tombstone in ann too; old-d is named nowhere, old-e in two subjects.
FOUND = [("old-a", 10.0, "ann"), ("old-b", 11.0, "bob"), ("old-c", 9.0, "ann"),
         ("old-d", 13.0, ""), ("old-e", 14.0, "")]


def _audit(qid: int, subject: str, ids: list[str]) -> AuditRecord:
    return AuditRecord(qid, 1.0, subject, {"subject_id": subject}, "q?", {}, {}, ids, ids,
                       "a", "answered", "extractive", {})


def _leave_old_rows(led: Any) -> None:
    said = [("ann", "ann-0"), ("bob", "bob-0"), ("ann", "old-a"), ("ann", "old-e")]
    ingest(led, [Event("dialogue", Scope(s, "r1", "s1"), f"{i} said", s.title(), stamp=1.0,
                       source_id=i) for s, i in said], CaptureConfig())
    led.write_audit([_audit(1, "ann", ["ann-0", "old-a"]), _audit(2, "ann", ["old-e"])])
    with led.write() as tx:  # an older forget: the sources went, the audit rows stayed
        tx.execute("DELETE FROM sources WHERE source_id IN ('old-a', 'old-e')")
    led.replace_vectors("m", [("old-b", "bob", np.ones(4, np.float32)),
                              ("old-e", "bob", np.ones(4, np.float32))])
    assert led.add_tombstones([("old-c", 9.0, "ann"), *UNKNOWN]) == 6


def _stones(led: Any) -> list[tuple[str, float, str]]:
    return sorted(t[:3] for t in led.tombstones_recorded_after(0, 100))


def _set_back(led: Any, engine: str) -> Any:
    """Close ``led``, mark its last tombstone migration not applied, open it again."""
    if engine == "sqlite":
        path = led.path
        led.close()
        conn = sqlite3.connect(path)
        conn.executescript(
            "DELETE FROM schema_version WHERE name = 'm008_tombstone_subjects_found'; "
            "DELETE FROM _sqlite_migrations WHERE name = 'm008_tombstone_subjects_found';")
        conn.close()
        return Ledger(path)
    import psycopg

    from trace_ros.storage.postgresql import PgLedger
    from trace_ros.storage.postgresql.base import conninfo

    url = led.url
    led.close()
    with psycopg.connect(**conninfo(url), autocommit=True) as conn:
        conn.execute("DELETE FROM schema_version WHERE name = 'p009_tombstone_subjects_found'")
    return PgLedger(url)


def test_the_migration_finds_the_subjects_it_can(engine: str,
                                                 open_engine: Callable[[str], Any]) -> None:
    led = open_engine(engine)
    _leave_old_rows(led)
    assert [s for s in _stones(led) if s[2] == ""] == UNKNOWN
    led = _set_back(led, engine)
    try:
        assert _stones(led) == sorted(FOUND)
        # What stays unknown still refuses its ID in every subject.
        [res] = ingest(led, [Event("dialogue", Scope("bob", "r1", "s1"), "again", "Bob",
                                   stamp=2.0, source_id="old-d")], CaptureConfig())
        assert res.status == "rejected" and res.field == "source_id"
    finally:
        led.close()


def test_a_confined_role_reads_unknown_tombstones_and_cannot_lift_them(
        open_engine: Callable[[str], Any], grant: Callable[..., Any]) -> None:
    psycopg = pytest.importorskip("psycopg")
    from trace_ros.storage.postgresql import PgLedger
    from trace_ros.storage.postgresql.base import conninfo

    owner = open_engine("postgresql")
    _leave_old_rows(owner)
    mine = grant(owner, ["ann"])
    led = PgLedger(mine)
    try:
        assert {s[2] for s in _stones(led)} == {"ann", ""}  # bob's stays hidden
        [res] = ingest(led, [Event("dialogue", Scope("ann", "r1", "s1"), "again", "Ann",
                                   stamp=2.0, source_id="old-d")], CaptureConfig())
        assert res.status == "rejected" and "forgotten" in res.reason
        led.forget(Scope("ann"), source_ids=["old-d"], allow_reingest=True)
        with psycopg.connect(**conninfo(mine), autocommit=True) as conn:
            assert conn.execute("DELETE FROM tombstones WHERE subject_id = ''").rowcount == 0
            assert conn.execute("UPDATE tombstones SET subject_id = 'ann' "
                                "WHERE subject_id = ''").rowcount == 0
        assert [s for s in _stones(owner) if s[2] == ""] == UNKNOWN
    finally:
        led.close()
