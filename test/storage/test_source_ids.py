"""A source ID names one source in the whole ledger, and the database says so (issue 15).

SQLite has said so since m001 (``sources.source_id`` is UNIQUE). On PostgreSQL the keys
lead with the subject (p008), so migration p010 adds ``source_ids``: one row per ID,
unique on the ID, which every source must hold (a foreign key). Capture refuses a second
subject's use of an ID naming the field and the reason — also for a role confined to
other subjects, which cannot see the first — and hand-written SQL is refused by the
database. p010 upgrades a populated database in place and refuses, naming the IDs, one
where an ID already names sources in two subjects.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

import pytest

from trace_ros.capture import Event, ingest
from trace_ros.config import CaptureConfig
from trace_ros.ledger import Scope
from trace_ros.storage.records import OTHER_SUBJECT

CFG = CaptureConfig()


def _say(led: Any, subject: str, source_id: str, text: str = "hello") -> Any:
    [res] = ingest(led, [Event("dialogue", Scope(subject, "r1", "s1"), text, "Ann", stamp=5.0,
                               source_id=source_id)], CFG)
    return res


def test_capture_refuses_an_id_of_another_subject(ledger: Any) -> None:
    assert _say(ledger, "ann", "x-1").status == "accepted"
    res = _say(ledger, "bob", "x-1")
    assert (res.status, res.field, res.reason) == ("rejected", "source_id", OTHER_SUBJECT)
    assert _say(ledger, "ann", "x-1").status == "duplicate"
    # Twice in one batch, two subjects: the second is refused the same way.
    out = ingest(ledger, [Event("dialogue", Scope(s, "r1", "s1"), "hi", "Ann", stamp=6.0,
                                source_id="x-2") for s in ("ann", "bob")], CFG)
    assert [(r.status, r.reason) for r in out] == [("accepted", ""),
                                                    ("rejected", OTHER_SUBJECT)]
    assert ledger.source_counts() == {"x-1": 1, "x-2": 1}


def _insert_sql(subject: str, source_id: str, mark: str) -> str:
    values = ", ".join([mark] * 8)
    return ("INSERT INTO sources (source_id, subject_id, modality, text, source_time, "
            f"known_time, content_hash, speaker) VALUES ({values})")


def test_the_database_refuses_it_by_hand(engine: str, ledger: Any) -> None:
    _say(ledger, "ann", "x-1")
    row = ("x-1", "bob", "dialogue", "by hand", 1.0, 1.0, "h", "")
    if engine == "sqlite":
        with pytest.raises(sqlite3.IntegrityError, match="source_id"), ledger.write() as tx:
            tx.execute(_insert_sql("bob", "x-1", "?"), row)
        return
    psycopg = pytest.importorskip("psycopg")
    with pytest.raises(psycopg.errors.ForeignKeyViolation, match="source_id"), \
            ledger.write() as tx:
        tx.execute(_insert_sql("bob", "x-1", "%s"), row)
    with pytest.raises(psycopg.errors.UniqueViolation, match="source_id"), \
            ledger.write() as tx:
        tx.execute("INSERT INTO source_ids (source_id, subject_id) VALUES ('x-1', 'bob')")


def test_a_confined_role_cannot_reuse_an_id_it_cannot_see(
        open_engine: Callable[[str], Any], grant: Callable[..., Any]) -> None:
    from trace_ros.storage.postgresql import PgLedger

    owner = open_engine("postgresql")
    _say(owner, "ann", "x-1")
    _say(owner, "bob", "b-0")
    led = PgLedger(grant(owner, ["bob"]))
    try:
        assert not led.get_sources(["x-1"])  # ann's source is out of its sight
        res = _say(led, "bob", "x-1")
        assert (res.status, res.field, res.reason) == ("rejected", "source_id", OTHER_SUBJECT)
        assert _say(led, "bob", "b-1").status == "accepted"
        assert led.forget(source_ids=["b-1"]) == ["b-1"]  # its claim goes with it
        assert owner.source_counts() == {"x-1": 1, "b-0": 1}
    finally:
        led.close()


def _before_p010(url: Any, *statements: str) -> None:
    import psycopg

    from trace_ros.storage.postgresql.base import conninfo

    with psycopg.connect(**conninfo(url), autocommit=True) as conn:
        conn.execute("ALTER TABLE sources DROP CONSTRAINT sources_source_id_claimed")
        conn.execute("DROP TABLE source_ids")
        conn.execute("DELETE FROM schema_version WHERE name = 'p010_source_ids'")
        for sql in statements:
            conn.execute(sql)


def test_p010_upgrades_a_populated_database(open_engine: Callable[[str], Any]) -> None:
    from trace_ros.storage.postgresql import PgLedger

    led = open_engine("postgresql")
    for i in range(5):
        _say(led, ("ann", "bob")[i % 2], f"s-{i}", f"turn {i}")
    url = led.url
    led.close()
    _before_p010(url)
    led = PgLedger(url)
    try:
        assert led.query("SELECT source_id, subject_id FROM source_ids ORDER BY source_id") == \
            [(f"s-{i}", ("ann", "bob")[i % 2]) for i in range(5)]
        assert _say(led, "bob", "s-0").reason == OTHER_SUBJECT
        assert _say(led, "bob", "s-5").status == "accepted"
    finally:
        led.close()


def test_p010_refuses_an_id_already_in_two_subjects(open_engine: Callable[[str], Any]) -> None:
    from trace_ros.errors import LedgerError
    from trace_ros.storage.postgresql import PgLedger

    led = open_engine("postgresql")
    _say(led, "ann", "s-0")
    url = led.url
    led.close()
    _before_p010(url, "INSERT INTO sources (source_id, subject_id, modality, text, "
                      "source_time, known_time, content_hash) SELECT source_id, 'bob', "
                      "modality, text, source_time, known_time, 'h' FROM sources")
    with pytest.raises(LedgerError, match=r"source_id: .*s-0 \(subjects ann, bob\)"):
        PgLedger(url).close()
