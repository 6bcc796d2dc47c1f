"""A session's sources read through the session's span and the (subject, time) index
(issue 16: migrations m015 / p016 drop the (subject, session) index every capture commit
wrote to), on every engine: exactly the session's rows, whatever shares its subject, its
time or its name, after a forget too; on SQLite a plan that reads the span, not the
subject, and an m014 file migrated."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from trace_ros.capture import Event, ingest
from trace_ros.config import CaptureConfig
from trace_ros.ledger import Ledger, Scope

CFG = CaptureConfig()

# (subject, robot, session, stamp): two sessions of one subject overlapping in time, the
# same session name on another robot and in another subject, and a turn with no session.
TURNS = [("ann", "r1", "s1", 10.0), ("ann", "r1", "s2", 11.0), ("ann", "r1", "s1", 12.0),
         ("ann", "r2", "s1", 13.0), ("ann", "r1", "s2", 14.0), ("bob", "r1", "s1", 12.5),
         ("ann", "r1", "", 12.2), ("ann", "r1", "s1", 15.0), ("ann", "r2", "s1", 9.0)]


def _fill(ledger: Any) -> None:
    events = [Event("dialogue", Scope(subject, robot, session), f"turn {i}", "Ann",
                    source_id=f"t{i}", stamp=stamp)
              for i, (subject, robot, session, stamp) in enumerate(TURNS)]
    assert {r.status for r in ingest(ledger, events, CFG)} == {"accepted"}


def _ids(records: list[Any]) -> list[str]:
    return [r.source_id for r in records]


def test_a_sessions_reads_return_its_rows_only(ledger: Any) -> None:
    _fill(ledger)
    assert _ids(ledger.sources_in_scope(Scope("ann", "r1", "s1"))) == ["t0", "t2", "t7"]
    assert _ids(ledger.sources_in_scope(Scope("ann", "", "s1"))) == ["t8", "t0", "t2", "t3",
                                                                      "t7"]
    assert _ids(ledger.sources_in_scope(Scope("ann", "r1", "s1"), as_of_valid=12.0,
                                        newest_first=True)) == ["t2", "t0"]
    assert ledger.sources_in_scope(Scope("ann", "r1", "none")) == []
    seqs = ledger.seqs_of(["t7"])
    assert _ids(ledger.session_before("ann", "r1", "s1", seqs["t7"], 5)) == ["t0", "t2"]
    assert _ids(ledger.session_before("ann", "r2", "s1", 10**9, 1)) == ["t8"]
    with ledger.write() as tx:
        turns = ledger.graph.session_turns(tx, ("ann", "r1", "s2"), seqs["t7"])
    assert [t[3] for t in turns] == ["turn 1", "turn 4"]


def test_a_forget_keeps_the_spans_covering_what_is_left(ledger: Any) -> None:
    _fill(ledger)
    assert sorted(ledger.forget(Scope("ann", "r1", "s2"))) == ["t1", "t4"]
    assert ledger.sources_in_scope(Scope("ann", "r1", "s2")) == []
    ledger.forget(source_ids=["t0"])  # the session's first turn: its span shrinks
    assert _ids(ledger.sources_in_scope(Scope("ann", "r1", "s1"))) == ["t2", "t7"]
    assert _ids(ledger.sources_in_scope(Scope("bob", "r1", "s1"))) == ["t5"]


def _plan(conn: sqlite3.Connection, sql: str, args: list[Any]) -> str:
    return " ".join(str(r[-1]) for r in conn.execute("EXPLAIN QUERY PLAN " + sql, args))


def test_sqlite_reads_a_session_by_its_span(tmp_path: Path) -> None:
    """No (subject, session) index; a session's read is a range of (subject, time)."""
    path = tmp_path / "span.db"
    with Ledger(path) as led:
        _fill(led)
        names = {r[0] for r in led.query("SELECT name FROM sqlite_master WHERE type = 'index'")}
        assert "sources_scope_session" not in names and "sources_scope_time" in names
        statements: list[str] = []
        led.conn.set_trace_callback(statements.append)
        led.sources_in_scope(Scope("ann", "r1", "s1"))
        led.session_before("ann", "r1", "s1", 10**9, 3)
        led.conn.set_trace_callback(None)
        spans = [s for s in statements if "FROM sources" in s and "FROM sessions" in s]
        assert len(spans) == 2  # the scope's, and session_before's after its first probe
        for sql in spans:
            plan = _plan(led.conn, sql, [])
            assert "sources_scope_time (subject_id=? AND source_time>? AND source_time<?)" in plan


def test_an_m014_file_loses_the_session_index_and_reads_the_same(tmp_path: Path) -> None:
    path = tmp_path / "m014.db"
    with Ledger(path) as led:
        _fill(led)
        expected = _ids(led.sources_in_scope(Scope("ann", "", "s1")))
    conn = sqlite3.connect(path, isolation_level=None)
    conn.executescript("""
        CREATE INDEX sources_scope_session ON sources (subject_id, session_id);
        DELETE FROM schema_version WHERE name = 'm015_sessions_by_span';
        DELETE FROM _sqlite_migrations WHERE name = 'm015_sessions_by_span';""")
    conn.close()
    with Ledger(path) as led:
        assert not led.query("SELECT 1 FROM sqlite_master WHERE name = 'sources_scope_session'")
        assert _ids(led.sources_in_scope(Scope("ann", "", "s1"))) == expected


def test_postgresql_has_no_session_index(open_engine: Any) -> None:
    led = open_engine("postgresql")
    assert led.query("SELECT to_regclass('sources_scope_session') IS NULL") == [(True,)]
    assert led.query("SELECT to_regclass('sources_scope_time') IS NULL") == [(False,)]


def test_sqlite_session_before_reads_the_last_sources_then_the_span(
        tmp_path: Path, monkeypatch: Any) -> None:
    """The last turns of a session found among the sources just before (by number), or,
    when fewer are there, through its span: the same rows either way."""
    from trace_ros.storage.sqlite import sources

    with Ledger(tmp_path / "before.db") as led:
        _fill(led)
        seq = led.seqs_of(["t7"])["t7"]
        statements: list[str] = []
        led.conn.set_trace_callback(statements.append)
        assert _ids(led.session_before("ann", "r1", "s1", seq, 2)) == ["t0", "t2"]
        assert not any("sessions" in s for s in statements)  # found by number
        plan = _plan(led.conn, statements[0], [])
        assert "INTEGER PRIMARY KEY (rowid>? AND rowid<?)" in plan
        monkeypatch.setattr(sources, "_RECENT", 2)
        statements.clear()
        assert _ids(led.session_before("ann", "r1", "s1", seq, 2)) == ["t0", "t2"]
        assert any("sessions" in s for s in statements)  # through the span
        assert _ids(led.session_before("ann", "r1", "s1", seq, 5)) == ["t0", "t2"]
        led.conn.set_trace_callback(None)
